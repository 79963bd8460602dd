import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { ConfigStore } from '../config/config-store.js';
import { ServiceError } from '../errors/service-error.js';
import { readCredentials, type CredentialsResult } from '../auth/read-credentials.js';
import { verifyKey } from '../auth/verified-keys.js';

/** Default browser budget: 50 requests/s per (writeKey, client IP), bursts of 100. */
export const DEFAULT_WRITE_KEY_PER_SECOND = 50;
/** The bucket holds this many seconds of the rate: 50/s → bursts of 100. */
export const BURST_SECONDS = 2;

interface ProjectParams {
  org?: string;
  project?: string;
}

/** A project's `limits`. */
export interface ProjectLimits {
  writeKeyPerSecond?: number;
  apiKeyPerSecond?: number;
}

/**
 * Who a request claims to be, as the limiter sees it before authentication: the credentials it presents, whether they
 * claim a server key (apiKey), and the limits of the project they are for.
 */
export interface RateLimitClaim {
  credentials: CredentialsResult;
  apiKey: boolean;
  limits: ProjectLimits;
}

function limitsOf(store: ConfigStore, request: FastifyRequest): ProjectLimits {
  const params = request.params as ProjectParams;
  if (!params.org || !params.project) return {};
  return store.project(params.org, params.project)?.config.limits ?? {};
}

/** The claim of a request to `/v1/{org}/projects/{project}/…`: the project is the path's, the key's kind how it is sent. */
function projectClaim(store: ConfigStore, request: FastifyRequest): RateLimitClaim {
  const credentials = readCredentials(request, true);
  return { credentials, apiKey: typeof credentials === 'object' && credentials.via === 'apiKey', limits: limitsOf(store, request) };
}

/**
 * The options of the limiter of endpoints under `/v1/{org}/projects/{project}` (projectRateLimiter): browser
 * callers are keyed by (key id, client IP); apiKey callers by key id, and are not limited unless the project sets
 * `apiKeyPerSecond`. It runs before authentication, so guessing write keys is throttled too (keyed by the claimed
 * id); a claimed apiKey of a project without `apiKeyPerSecond` is not (its secret is not guessable in practice). An
 * apiKey whose secret is wrong is charged to (claimed id, client IP), never to the key's own budget: whoever knows
 * a key's id cannot spend its caller's requests.
 * @example const limit = app.rateLimit(projectRateLimit(store));
 */
export function projectRateLimit(store: ConfigStore): RateLimitOptions {
  return claimRateLimit(store, (request) => projectClaim(store, request));
}

/** projectRateLimit's options for requests whose claim `claimOf` reads. */
function claimRateLimit(store: ConfigStore, claimOf: (request: FastifyRequest) => RateLimitClaim): RateLimitOptions {
  return {
    timeWindow: BURST_SECONDS * 1000,
    keyGenerator: (request) => {
      const { credentials, apiKey } = claimOf(request);
      if (typeof credentials !== 'object') return `anonymous:${request.ip}`;
      if (!apiKey) return `write:${credentials.id}:${request.ip}`;
      return verifyKey(store, credentials.key, credentials.id) ? `api:${credentials.id}` : `api-unverified:${credentials.id}:${request.ip}`;
    },
    max: (request) => {
      const { apiKey, limits } = claimOf(request);
      const perSecond = apiKey
        ? limits.apiKeyPerSecond ?? DEFAULT_WRITE_KEY_PER_SECOND
        : limits.writeKeyPerSecond ?? DEFAULT_WRITE_KEY_PER_SECOND;
      return Math.max(1, Math.round(perSecond * BURST_SECONDS));
    },
    errorResponseBuilder: (_request, context) =>
      new ServiceError('rate_limited', `Too many requests; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s.`),
  };
}

/**
 * The limiter of a `/v1/{org}/projects/{project}` endpoint (its onRequest hook, projectEndpoint, calls it):
 * @fastify/rate-limit's with projectRateLimit's options, or null for a caller that is not limited (apiKey callers
 * by default) without calling it. Called by our hook rather than set as the route's `config.rateLimit` with an
 * allow-list: the plugin's route hook awaits the key generator and the allow-list and reads
 * `request.routeOptions` (a fresh object on every read) even for a caller it then lets through.
 * @example const limit = projectRateLimiter(app, store); await limit(request, reply);
 */
export function projectRateLimiter(
  app: FastifyInstance, store: ConfigStore,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | null {
  return claimRateLimiter(app, store, (request) => projectClaim(store, request));
}

/**
 * projectRateLimiter for requests whose project is not in the path but the key's (OFREP): `claimOf` says what the
 * request claims; the budgets, keys and exemptions are projectRateLimiter's, in the same buckets.
 * @example const limit = claimRateLimiter(app, store, (request) => ({ credentials, apiKey, limits }));
 */
export function claimRateLimiter(
  app: FastifyInstance, store: ConfigStore, claimOf: (request: FastifyRequest) => RateLimitClaim,
): (request: FastifyRequest, reply: FastifyReply) => Promise<unknown> | null {
  const limit = app.rateLimit(claimRateLimit(store, claimOf));
  // An apiKey caller of a project without `apiKeyPerSecond`: not limited at all.
  return (request, reply) => {
    const claim = claimOf(request);
    return claim.apiKey && claim.limits.apiKeyPerSecond === undefined ? null : limit.call(app, request, reply);
  };
}
