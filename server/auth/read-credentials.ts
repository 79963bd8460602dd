import type { FastifyRequest } from 'fastify';

/** What a request presents: a Basic writeKey or an `apiKey` query parameter, rebuilt as `<id>.<secret>`. */
export interface Credentials {
  via: 'basic' | 'apiKey';
  id: string;
  key: string;
}

export type CredentialsResult = Credentials | 'missing' | 'malformed';

/**
 * Reads credentials without checking them. A writeKey `<username>.<password>` travels as Basic
 * `username:password` (split at the FIRST dot on the client), so the key is `username + "." + password`.
 */
export function readCredentials(request: FastifyRequest, allowApiKey: boolean): CredentialsResult {
  const header = request.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
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
  if (allowApiKey) {
    const query = request.query as Record<string, unknown> | undefined;
    const apiKey = query?.apiKey;
    if (apiKey !== undefined) {
      if (typeof apiKey !== 'string') return 'malformed';
      const dot = apiKey.indexOf('.');
      if (dot <= 0 || dot === apiKey.length - 1) return 'malformed';
      return { via: 'apiKey', id: apiKey.slice(0, dot), key: apiKey };
    }
  }
  return 'missing';
}
