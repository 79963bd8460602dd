import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { answeredBeforeBody } from './discard-body.js';
import { ERROR_CODES, type ErrorCode } from '../errors/error-codes.js';
import { errorBody } from '../errors/service-error.js';

// Two kinds of failure happen before a route's error handler can see them, and Fastify answers both in a shape of
// its own: requests Node's HTTP parser refuses (a bad request line, a bad Content-Length or chunk size, headers over
// the limit, a header or request deadline missed), and URLs the router refuses (bad percent-encoding, a path segment
// over the router's limit). Both are answered here in ours.

/** Fastify's router refuses a path segment longer than this (its default, kept). */
export const MAX_PATH_SEGMENT = 100;

function parserRefusal(error: NodeJS.ErrnoException): { code: ErrorCode; message: string } {
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    return { code: 'request_timeout', message: 'The request did not arrive within the deadline; the connection is closed.' };
  }
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    return { code: 'headers_too_large', message: 'The request line and headers are over the 16 KiB limit.' };
  }
  return { code: 'bad_request', message: 'The request is not valid HTTP/1.1.' };
}

/**
 * The `clientError` handler of the HTTP server (Fastify's `clientErrorHandler` option): writes our error answer on
 * the raw socket, then closes it, as Node's own handler does. A reset socket has nobody to answer.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  // A request already answered (refused before its body arrived, or an answer under way) gets no second answer.
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
  if (answeredBeforeBody(socket) || pending?.headersSent) {
    socket.destroy();
    return;
  }
  const { code, message } = parserRefusal(error);
  const status = ERROR_CODES[code].status;
  if (socket.writable) {
    const body = JSON.stringify(errorBody(code, message));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
      + `Content-Length: ${Buffer.byteLength(body)}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** Fastify's `frameworkErrors` option: the router's refusals, answered without echoing the URL. */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  let code: ErrorCode = 'internal_error';
  let message = 'The service failed to handle the request.';
  if (error.code === 'FST_ERR_BAD_URL') {
    code = 'bad_request';
    message = 'The path is not valid percent-encoded UTF-8.';
  } else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    code = 'path_too_long';
    message = `A path segment is over ${MAX_PATH_SEGMENT} characters.`;
  }
  reply
    .code(ERROR_CODES[code].status)
    .header('x-content-type-options', 'nosniff')
    .type('application/json; charset=utf-8')
    .send(errorBody(code, message));
}
