import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** A refused body is read and thrown away up to this many bytes; past that the connection is closed instead. */
export const MAX_DISCARDED_BYTES = 16 * 1024 * 1024;

/** Sockets whose request was answered before its body had arrived, while the rest is being discarded. */
const answeredEarly = new WeakSet<Socket>();

/**
 * Whether `socket`'s current request has already been answered (refused before its body had arrived): a deadline
 * it then misses must not write a second answer for the same request.
 */
export function answeredBeforeBody(socket: Socket): boolean {
  return answeredEarly.has(socket);
}

/**
 * Called when a request is refused before its body was read (413 from `Content-Length`, a catalog line refused
 * mid-stream, a key refused before the body): the rest of the body is read and discarded, so a client that is still
 * sending reads the answer. Closing a socket with unread data makes the kernel send a reset, and a client still
 * writing then sees EPIPE or ECONNRESET instead of the answer, a network error it may retry for ever (nginx's
 * lingering close exists for the same reason). The connection then stays open for the next request. A body declared
 * larger than MAX_DISCARDED_BYTES is not worth reading: that answer closes the connection.
 */
export function discardRestOfBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  const socket = raw.socket;
  answeredEarly.add(socket);
  if (Number(raw.headers['content-length']) > MAX_DISCARDED_BYTES) {
    reply.header('connection', 'close');
    return;
  }
  reply.removeHeader('connection');
  let discarded = 0;
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BYTES) socket.destroy();
  });
  raw.once('end', () => answeredEarly.delete(socket));
  raw.resume();
}
