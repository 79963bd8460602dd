import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RateLimitOptions } from '@fastify/rate-limit';
import type { ConfigStore } from '../config/config-store.js';
import { ServiceError } from '../errors/service-error.js';
import { readCredentials } from '../auth/read-credentials.js';
import { verifyKey } from '../auth/verified-keys.js';

/** Default browser budget: 50 requests/s per (writeKey, client IP), bursts of 100. */
export const DEFAULT_WRITE_KEY_PER_SECOND = 50;
/** The bucket holds this many seconds of the rate: 50/s → bursts of 100. */
export const BURST_SECONDS = 2;

interface ProjectParams {
  org?: string;
  project?: string;
}

function limitsOf(store: ConfigStore, request: FastifyRequest): { writeKeyPerSecond?: number; apiKeyPerSecond?: number } {
  const params = request.params as ProjectParams;
  if (!params.org || !params.project) return {};
  return store.project(params.org, params.project)?.config.limits ?? {};
}

function viaApiKey(request: FastifyRequest): boolean {
  const credentials = readCredentials(request, true);
  return typeof credentials === 'object' && credentials.via === 'apiKey';
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
  return {
    timeWindow: BURST_SECONDS * 1000,
    keyGenerator: (request) => {
      const credentials = readCredentials(request, true);
      if (typeof credentials !== 'object') return `anonymous:${request.ip}`;
      if (credentials.via === 'basic') return `write:${credentials.id}:${request.ip}`;
      return verifyKey(store, credentials.key, credentials.id) ? `api:${credentials.id}` : `api-unverified:${credentials.id}:${request.ip}`;
    },
    max: (request) => {
      const limits = limitsOf(store, request);
      const perSecond = viaApiKey(request)
        ? limits.apiKeyPerSecond ?? DEFAULT_WRITE_KEY_PER_SECOND
        : limits.writeKeyPerSecond ?? DEFAULT_WRITE_KEY_PER_SECOND;
      return Math.max(1, Math.round(perSecond * BURST_SECONDS));
    },
    errorResponseBuilder: (_request, context) =>
      new ServiceError('rate_limited', `Too many requests; retry in ${Math.max(1, Math.ceil(context.ttl / 1000))} s.`),
  };
}

/** An apiKey caller of a project without `apiKeyPerSecond`: not limited at all. */
function unlimited(store: ConfigStore, request: FastifyRequest): boolean {
  return viaApiKey(request) && limitsOf(store, request).apiKeyPerSecond === undefined;
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
  const limit = app.rateLimit(projectRateLimit(store));
  return (request, reply) => (unlimited(store, request) ? null : limit.call(app, request, reply));
}
