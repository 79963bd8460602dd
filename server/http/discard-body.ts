import type { FastifyReply, FastifyRequest } from 'fastify';

/** A refused body is read and thrown away up to this many bytes; past that the connection is closed instead. */
export const MAX_DISCARDED_BYTES = 16 * 1024 * 1024;

/**
 * Called when a request is answered before its body was read (413): the rest of the body is read and discarded, so a
 * client that is still sending reads the answer. Closing a socket with unread data makes the kernel send a reset, and
 * a client still writing then sees EPIPE or ECONNRESET instead of the 413, a network error it may retry for ever
 * (nginx's lingering close exists for the same reason). The connection then stays open for the next request. A body
 * declared larger than MAX_DISCARDED_BYTES is not worth reading: that answer keeps `Connection: close`.
 */
export function discardRestOfBody(request: FastifyRequest, reply: FastifyReply): void {
  const raw = request.raw;
  if (raw.complete || raw.destroyed) return;
  const declared = Number(raw.headers['content-length']);
  if (declared > MAX_DISCARDED_BYTES) return;
  reply.removeHeader('connection');
  let discarded = 0;
  raw.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > MAX_DISCARDED_BYTES) raw.socket.destroy();
  });
  raw.resume();
}
