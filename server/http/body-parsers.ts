import type { FastifyInstance } from 'fastify';
import { ServiceError } from '../errors/service-error.js';

/** Request bodies may be at most this large (413 beyond). */
export const BODY_LIMIT = 1024 * 1024;

/**
 * `text/plain` bodies are parsed as JSON: `navigator.sendBeacon` and no-preflight `fetch` can only send
 * "simple" content types, so the SDK's unload path posts JSON as text/plain.
 */
export function registerBodyParsers(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser('text/plain', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
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
