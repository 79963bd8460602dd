import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { AuthResult } from '../auth/authenticate.js';
import { readCredentials, type CredentialsResult } from '../auth/read-credentials.js';
import { verifyKey } from '../auth/verified-keys.js';
import type { ConfigStore } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { originInList } from './cors.js';
import { claimRateLimiter, type RateLimitClaim } from './rate-limit.js';

const MISSING = 'Send a writeKey or an apiKey: HTTP Basic, X-API-Key or Authorization: Bearer.';

/**
 * The key a request presents, unchecked: `X-API-Key: <id>.<secret>` (OpenFeature's OFREP providers send it so), else
 * as the Choose API reads keys (HTTP Basic split at the first dot, `Authorization: Bearer`, `?writeKey=`, `?apiKey=`).
 * What kind of key it is, the key says (keyAuth), not how it was sent.
 */
export function keyCredentials(request: FastifyRequest): CredentialsResult {
  const header = request.headers['x-api-key'];
  if (header === undefined) return readCredentials(request, true);
  if (typeof header !== 'string') return 'malformed';
  const key = header.trim();
  const dot = key.indexOf('.');
  if (dot <= 0 || dot === key.length - 1) return 'malformed';
  return { via: 'apiKey', id: key.slice(0, dot), key };
}

/**
 * What the limiter reads before authentication: the claimed key id's kind and its project's `limits` (ids are not
 * secret; the secret is checked after), so a request here spends the budget a Choose request of the same key spends.
 */
function claimOf(store: ConfigStore, request: FastifyRequest): RateLimitClaim {
  const credentials = keyCredentials(request);
  if (typeof credentials !== 'object') return { credentials, apiKey: false, limits: {} };
  const entry = store.keyById(credentials.id);
  const project = entry?.project != null ? store.project(entry.org, entry.project) : undefined;
  return { credentials, apiKey: entry?.kind === 'apiKey', limits: project?.config.limits ?? {} };
}

/**
 * Authenticates a request whose project is the key's: a key of one of `kinds`, however sent; an admin key opens no
 * such route. 401 `missing_credentials` or `invalid_credentials`; 403 `origin_not_allowed` for a writeKey sent from an
 * origin its project does not allow (the preflight cannot know the project, so CORS lets every origin ask).
 * @throws ServiceError
 */
export function keyAuth(request: FastifyRequest, store: ConfigStore, kinds: ReadonlySet<string>): AuthResult {
  const credentials = keyCredentials(request);
  if (credentials === 'missing') throw new ServiceError('missing_credentials', MISSING);
  if (credentials === 'malformed') throw new ServiceError('invalid_credentials', 'The credentials are malformed.');
  const entry = verifyKey(store, credentials.key, credentials.id);
  if (!entry || !kinds.has(entry.kind) || entry.project === null) {
    throw new ServiceError('invalid_credentials', 'The key is not valid.');
  }
  const project = store.project(entry.org, entry.project);
  if (!project) throw new ServiceError('project_not_found', `There is no project ${quoted(entry.project)} in organization ${quoted(entry.org)}.`);
  const origin = request.headers.origin;
  if (entry.kind === 'writeKey' && typeof origin === 'string' && !originInList(project.config.allowedOrigins, origin)) {
    throw new ServiceError('origin_not_allowed', `The origin ${quoted(origin)} may not call this project.`);
  }
  return { kind: entry.kind, key: entry, project };
}

/**
 * The onRequest hook of a route whose project is the key's, not the path's (OpenFeature's): the key's rate limit
 * first, in the buckets of projectEndpoint's (guessing keys is throttled too), then authentication, before the body
 * is read. The result is on `request.auth`.
 * @example app.post(path, { onRequest: keyEndpoint(app, store, ['writeKey', 'apiKey']) }, handler)
 */
export function keyEndpoint(
  app: FastifyInstance, store: ConfigStore, keys: readonly ('writeKey' | 'apiKey')[],
): (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void {
  const kinds = new Set<string>(keys);
  const limit = claimRateLimiter(app, store, (request) => claimOf(store, request));
  const admit = (request: FastifyRequest, done: HookHandlerDoneFunction): void => {
    try {
      request.auth = keyAuth(request, store, kinds);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
  return (request, reply, done) => {
    const limiting = limit(request, reply);
    if (limiting === null) admit(request, done);
    else limiting.then(() => admit(request, done), done);
  };
}
