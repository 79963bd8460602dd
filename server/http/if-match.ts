import type { FastifyRequest } from 'fastify';

/**
 * The version an `If-Match` header names: `"3"` (or W/"3", or 3) → 3; `*` or absent → undefined (write whatever is
 * there); anything else → -1, which matches no version.
 */
export function ifMatchVersion(request: FastifyRequest): number | undefined {
  const header = request.headers['if-match'];
  if (header === undefined || header.trim() === '*') return undefined;
  const match = /^\s*(?:W\/)?"?(\d{1,15})"?\s*$/.exec(header);
  return match ? Number(match[1]) : -1;
}
