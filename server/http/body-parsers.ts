import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ServiceError } from '../errors/service-error.js';

/** Request bodies may be at most this large (413 beyond). */
export const BODY_LIMIT = 1024 * 1024;

/** A route's `config` flag (set by registerApiRoutes): its body may be left out, so an empty one is no body. */
export interface EmptyBodyConfig {
  emptyBody?: true;
}

/**
 * Whether an empty body is read as no body rather than refused (`invalid_json`): clients that send
 * `Content-Type: application/json` on every request send it on a DELETE too, with nothing after it. So on a DELETE or
 * an OPTIONS (no route here reads a body on either), on a path no route answers (its 404 says more), and on a route
 * whose body may be left out. A body that is there is parsed as always.
 */
function emptyBodyAllowed(request: FastifyRequest): boolean {
  if (request.method === 'DELETE' || request.method === 'OPTIONS' || request.is404) return true;
  return (request.routeOptions.config as EmptyBodyConfig).emptyBody === true;
}

/**
 * JSON bodies are parsed by Fastify's own parser (its guard against `__proto__` and `constructor` keys kept), but an
 * empty one where none is needed is no body (emptyBodyAllowed). `text/plain` bodies are parsed as JSON:
 * `navigator.sendBeacon` and no-preflight `fetch` can only send "simple" content types, so the SDK's unload path posts
 * JSON as text/plain.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser(app.initialConfig.onProtoPoisoning ?? 'error', app.initialConfig.onConstructorPoisoning ?? 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    if (body.length === 0 && emptyBodyAllowed(request)) {
      done(null, undefined);
      return;
    }
    parseJson(request, body as string, done);
  });
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.length === 0 && emptyBodyAllowed(request)) {
      done(null, undefined);
      return;
    }
    if (text.trim().length === 0) {
      done(new ServiceError('invalid_json', 'The body is empty; a JSON object is expected.'), undefined);
      return;
    }
    try {
      done(null, JSON.parse(text) as unknown);
    } catch {
      done(new ServiceError('invalid_json', 'The body is not valid JSON.'), undefined);
    }
  });
}
