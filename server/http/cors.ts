import type { FastifyInstance } from 'fastify';
import type { ConfigStore } from '../config/config-store.js';

const PROJECT_PATH = /^\/v1\/([^/?#]+)\/projects\/([^/?#]+)\//;
/** Browsers may cache a preflight this long (Chromium caps it at 2 h). */
export const PREFLIGHT_MAX_AGE_SECONDS = 7200;

/** The project a `/v1/{org}/projects/{project}/…` URL names (the preflight has no route params). */
export function projectOfUrl(url: string): { org: string; project: string } | null {
  const match = PROJECT_PATH.exec(url);
  if (!match?.[1] || !match[2]) return null;
  try {
    return { org: decodeURIComponent(match[1]), project: decodeURIComponent(match[2]) };
  } catch {
    return null;
  }
}

/** Whether `origin` may call the project's browser endpoints: any when no allow-list is configured. */
export function originAllowed(store: ConfigStore, url: string, origin: string): boolean {
  const names = projectOfUrl(url);
  return originInList(names ? store.project(names.org, names.project)?.config.allowedOrigins : undefined, origin);
}

/** Whether a project's `allowedOrigins` (undefined: none configured, any origin) lets `origin` in. */
export function originInList(allowed: readonly string[] | undefined, origin: string): boolean {
  return allowed === undefined || allowed.includes('*') || allowed.includes(origin);
}

// GET, PUT, DELETE and If-Match / If-None-Match: the results and management endpoints, which an admin page on another
// origin calls with its key in the Authorization header; it reads a managed item's version from ETag.
const ALLOW_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';
const ALLOW_HEADERS = 'Authorization, Content-Type, If-Match, If-None-Match';
// A route whose project is the key's may take it as `X-API-Key` too (OpenFeature's OFREP providers send it so).
const KEY_PROJECT_ALLOW_HEADERS = `${ALLOW_HEADERS}, X-API-Key`;
const EXPOSE_HEADERS = 'ETag, Retry-After';
const MAX_AGE = String(PREFLIGHT_MAX_AGE_SECONDS);

/** Where CORS does not follow a project's `allowedOrigins` (see registerCors). */
export interface CorsOptions {
  /**
   * Path prefixes of routes whose project is the key's (the `keyProject` access: OpenFeature's, under `/ofrep/`): a
   * preflight does not carry the key, so any origin is answered here, and the route's access refuses a writeKey whose
   * project does not allow the request's origin (403).
   */
  keyProjectPrefixes: readonly string[];
}

/**
 * CORS for the `/v1` endpoints: the request origin is reflected when the project allows it (any origin by
 * default: write keys are public), with a cacheable preflight (204) that allows Authorization and Content-Type; under
 * `keyProjectPrefixes`, whatever the origin, and X-API-Key too.
 * An origin outside the project's allow-list gets no CORS header (its preflight answers 404; an actual request is
 * refused 403 `origin_not_allowed` by the endpoint). Other paths get no CORS headers at all.
 *
 * One onRequest hook of our own rather than @fastify/cors: with a per-request decision (the project comes from the
 * URL) the plugin rebuilds and merges its whole option set and reads `request.routeOptions` (a fresh object per
 * read) twice on every request, for three headers. The semantics are the plugin's for these options (reflected origin, `Vary:
 * Origin`, non-strict preflight); security.test.ts checks them.
 */
export function registerCors(app: FastifyInstance, store: ConfigStore, options: CorsOptions): void {
  const byKey = options.keyProjectPrefixes;
  app.addHook('onRequest', (request, reply, done) => {
    const v1 = request.url.startsWith('/v1/');
    const byKeyRoute = !v1 && byKey.some((prefix) => request.url.startsWith(prefix));
    if (!v1 && !byKeyRoute) {
      done();
      return;
    }
    // The answer depends on the Origin header whatever it is, so caches must key on it.
    reply.header('Vary', 'Origin');
    const origin = request.headers.origin;
    if (typeof origin === 'string' && !byKeyRoute && !originAllowed(store, request.url, origin)) {
      done();
      return;
    }
    if (typeof origin === 'string') reply.header('Access-Control-Allow-Origin', origin);
    if (request.method !== 'OPTIONS') {
      if (typeof origin === 'string') reply.header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
      done();
      return;
    }
    // A preflight is answered here, before authentication: the browser sends it without credentials.
    reply.header('Access-Control-Allow-Methods', ALLOW_METHODS);
    reply.header('Access-Control-Allow-Headers', byKeyRoute ? KEY_PROJECT_ALLOW_HEADERS : ALLOW_HEADERS);
    reply.header('Access-Control-Max-Age', MAX_AGE);
    reply.code(204).header('Content-Length', '0').send();
  });
  // A preflight needs a route to reach the hook with; one the hook did not answer (an origin outside the
  // allow-list) is not found.
  for (const path of ['/v1/*', ...byKey.map((prefix) => `${prefix}*`)]) {
    app.options(path, (_request, reply) => {
      reply.callNotFound();
    });
  }
}
