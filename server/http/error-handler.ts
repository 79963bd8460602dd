import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { quoted } from '../errors/echo-input.js';
import { BODY_LIMIT } from './body-parsers.js';
import { discardRestOfBody } from './discard-body.js';
import { storageUnavailable } from '../storage/unavailable.js';
import { ServiceError, errorBody } from '../errors/service-error.js';
import type { ErrorCode } from '../errors/error-codes.js';

// Fastify's own errors (body parsing, content type, size) carry FST_* codes: they are translated here so
// that a caller only ever sees our codes and sentences, never Fastify's texts or a stack trace.
const FASTIFY_CODES: Record<string, { code: ErrorCode; message: string }> = {
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { code: 'bad_request', message: 'The Content-Length header does not match the body.' },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: 'unsupported_media_type',
    message: 'The body must be application/json or text/plain containing JSON.',
  },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: 'invalid_json', message: 'The body is empty; a JSON object is expected.' },
  FST_ERR_CTP_INVALID_JSON_BODY: { code: 'invalid_json', message: 'The body is not valid JSON.' },
};

/** 413 with the route's own limit in the sentence (1 MiB; the catalog's is larger). */
function tooLarge(request: FastifyRequest): ServiceError {
  const limit = request.routeOptions.bodyLimit ?? BODY_LIMIT;
  return new ServiceError('payload_too_large', `The request body is over the ${limit / (1024 * 1024)} MiB limit.`);
}

/** The ServiceError an error is answered as (Fastify's own translated), or null for an unexpected one (500). */
export function toServiceError(error: FastifyError | ServiceError | Error, request: FastifyRequest): ServiceError | null {
  if (error instanceof ServiceError) return error;
  const fastifyError = error as FastifyError;
  if (fastifyError.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || fastifyError.statusCode === 413) return tooLarge(request);
  const known = fastifyError.code ? FASTIFY_CODES[fastifyError.code] : undefined;
  if (known) return new ServiceError(known.code, known.message);
  // JSON.parse failures surface as SyntaxError with status 400.
  if (error instanceof SyntaxError && fastifyError.statusCode === 400) {
    return new ServiceError('invalid_json', 'The body is not valid JSON.');
  }
  if (storageUnavailable(error)) return new ServiceError('storage_unavailable', 'The database does not answer; retry the request.');
  const status = fastifyError.statusCode;
  if (status === 415) return new ServiceError('unsupported_media_type', 'The body must be application/json or text/plain containing JSON.');
  if (status === 429) return new ServiceError('rate_limited', 'Too many requests; retry later.');
  if (status !== undefined && status >= 400 && status < 500) return new ServiceError('bad_request', 'The request is malformed.');
  return null;
}

/**
 * Whether the client went away before its request arrived whole (a tab closed mid-upload, a reset, a client's own
 * timeout): Node then fails the body's stream with `aborted` (ECONNRESET), which is no fault of ours — and not the
 * database's either, whose socket errors carry the same code.
 */
function clientGone(request: FastifyRequest): boolean {
  return !request.raw.complete && (request.raw.destroyed || request.raw.socket.destroyed);
}

/**
 * Installs the error and not-found handlers: every failure answers `{error:{code, message}}` as JSON.
 * `onNotFoundAnswered` is called once a not-found answer is sent (request metrics count them).
 */
export function installErrorHandlers(
  app: FastifyInstance, options: { onNotFoundAnswered?: (request: FastifyRequest, reply: FastifyReply) => void } = {},
): void {
  app.setErrorHandler((error: FastifyError | ServiceError, request, reply) => {
    discardRestOfBody(request, reply);
    if (clientGone(request)) {
      // Logged for the record at info, with the request id: an error-level line would page someone for a closed tab.
      request.log.info({ code: (error as { code?: unknown }).code, reason: error.message }, 'client closed the connection before the request arrived');
      return reply.code(400).type('application/json; charset=utf-8').send(errorBody('bad_request', 'The request did not arrive whole.'));
    }
    const serviceError = toServiceError(error, request);
    if (serviceError) {
      if (serviceError.statusCode >= 500) request.log.error({ err: error }, 'request failed');
      if (serviceError.code === 'storage_unavailable') reply.header('Retry-After', '5');
      return reply
        .code(serviceError.statusCode)
        .type('application/json; charset=utf-8')
        .send(errorBody(serviceError.code, serviceError.message));
    }
    request.log.error({ err: error }, 'unexpected error');
    return reply
      .code(500)
      .type('application/json; charset=utf-8')
      .send(errorBody('internal_error', 'The service failed to handle the request.'));
  });

  const answered = options.onNotFoundAnswered;
  app.setNotFoundHandler((request, reply) => {
    // 'close': sent, or the client went away first (counted either way, as an onResponse hook would).
    if (answered) reply.raw.once('close', () => answered(request, reply));
    discardRestOfBody(request, reply);
    return reply
      .code(404)
      .type('application/json; charset=utf-8')
      .send(errorBody('route_not_found', `No route for ${request.method} ${quoted(request.url.split('?')[0] ?? '')}.`));
  });
}
