import type { FastifyRequest } from 'fastify';

/**
 * What a request presents, as `<id>.<secret>`: a writeKey (a browser) — HTTP Basic, or a `writeKey` query parameter
 * (both `via: 'basic'`) — or a server key — an `apiKey` query parameter or `Authorization: Bearer <key>` (both
 * `via: 'apiKey'`).
 */
export interface Credentials {
  via: 'basic' | 'apiKey';
  id: string;
  key: string;
}

export type CredentialsResult = Credentials | 'missing' | 'malformed';

/**
 * A key sent whole, `<id>.<secret>` with both parts present: a server key (query or Bearer, `via: 'apiKey'`) or a
 * writeKey as `?writeKey=` (`via: 'basic'`, read as its Basic form would be). A repeated query parameter is malformed.
 */
function wholeKey(key: unknown, via: Credentials['via']): CredentialsResult {
  if (typeof key !== 'string') return 'malformed';
  const dot = key.indexOf('.');
  if (dot <= 0 || dot === key.length - 1) return 'malformed';
  return { via, id: key.slice(0, dot), key };
}

/**
 * Reads credentials without checking them. A writeKey `<username>.<password>` travels as Basic
 * `username:password` (split at the FIRST dot on the client), so the key is `username + "." + password`; or as
 * `?writeKey=<username>.<password>`, which lets a browser send a CORS "simple" request (a text/plain body, no
 * Authorization header): no preflight, one round trip less — the snippet's loader asks the Choose API that way before
 * the page's first paint. A writeKey is public (every page carries it), so the URL is no worse a place for it. Server
 * keys (`allowApiKey`) travel as `?apiKey=` or as a Bearer token.
 */
export function readCredentials(request: FastifyRequest, allowApiKey: boolean): CredentialsResult {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (bearer?.[1] && allowApiKey) return wholeKey(bearer[1], 'apiKey');
    const match = /^Basic\s+([A-Za-z0-9+/=_-]+)\s*$/i.exec(header);
    if (!match?.[1]) return 'malformed';
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return 'malformed';
    const id = decoded.slice(0, colon);
    const password = decoded.slice(colon + 1);
    // The username is the part before the writeKey's first dot, so it never contains one.
    if (id.includes('.') || password.length === 0) return 'malformed';
    return { via: 'basic', id, key: `${id}.${password}` };
  }
  const query = request.query as Record<string, unknown> | undefined;
  const writeKey = query?.writeKey;
  if (writeKey !== undefined) return wholeKey(writeKey, 'basic');
  const apiKey = query?.apiKey;
  if (allowApiKey && apiKey !== undefined) return wholeKey(apiKey, 'apiKey');
  return 'missing';
}
