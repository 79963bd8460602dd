import type { FastifyInstance, FastifyReply } from 'fastify';
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
  const allowed = names ? store.project(names.org, names.project)?.config.allowedOrigins : undefined;
  return allowed === undefined || allowed.includes('*') || allowed.includes(origin);
}

// The answers, built once. @fastify/cors's delegator form re-normalises the options object it is handed (two
// spreads of a dozen keys, plus a closure) on every request, ≈3 % of the Choose API's CPU; this hook only picks
// which of these constant headers apply. The behaviour is the plugin's with the options we gave it (origin
// reflected or refused, methods, allowed headers, max-age, `Vary: Origin` on every answer, non-strict
// preflight): test/server/cors-equivalence.test.ts compares both on a matrix of requests.
const ALLOW_METHODS = 'POST, OPTIONS';
const ALLOW_HEADERS = 'Authorization, Content-Type';
const MAX_AGE = String(PREFLIGHT_MAX_AGE_SECONDS);

/** Adds `Origin` to the Vary header: the answer depends on it (fetch spec, CORS and HTTP caches). */
function varyOnOrigin(reply: FastifyReply): void {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') {
    reply.header('Vary', 'Origin');
    return;
  }
  const value = Array.isArray(current) ? current.join(', ') : String(current);
  const fields = value.toLowerCase().split(',').map((f) => f.trim());
  if (fields.includes('*') || fields.includes('origin')) return;
  reply.header('Vary', `${value}, Origin`);
}

/**
 * CORS for the `/v1` endpoints: the request origin is reflected when the project allows it (any origin by
 * default: write keys are public), with a cacheable preflight that allows Authorization and Content-Type.
 * A refused origin gets no CORS header (the browser blocks the answer; project-endpoint.ts answers 403), and
 * its preflight, like any OPTIONS outside `/v1`, falls through to 404.
 */
export function registerCors(app: FastifyInstance, store: ConfigStore): Promise<void> {
  // A callback hook, not an async one: it runs on every request.
  app.addHook('onRequest', (request, reply, done) => {
    varyOnOrigin(reply);
    if (!request.url.startsWith('/v1/')) {
      done();
      return;
    }
    const origin = request.headers.origin;
    if (typeof origin === 'string' && !originAllowed(store, request.url, origin)) {
      done();
      return;
    }
    if (origin) reply.header('Access-Control-Allow-Origin', origin);
    if (request.raw.method === 'OPTIONS') {
      // Answered here, before authentication: a browser sends no credentials with a preflight.
      reply.header('Access-Control-Allow-Methods', ALLOW_METHODS)
        .header('Access-Control-Allow-Headers', ALLOW_HEADERS)
        .header('Access-Control-Max-Age', MAX_AGE)
        // Safari waits for a body on a 204 without a length.
        .header('Content-Length', '0')
        .code(204)
        .send();
      return;
    }
    done();
  });
  // The plugin's catch-all OPTIONS route, kept so that routing (and the route label metrics record) stays as it
  // was: the preflights the hook did not answer (refused origin, outside /v1) are not found.
  app.options('*', (_request, reply) => {
    reply.callNotFound();
  });
  return Promise.resolve();
}
