import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConfigStore, KeyEntry } from '../config/config-store.js';
import type { SessionCaller, Sessions } from './sessions.js';
import { verifiedAdminKey } from './authenticate.js';
import { readCredentials } from './read-credentials.js';

/**
 * Whether the request is the console's (a session cookie and no key): then the session, not a key, says who calls.
 * A key sent with the request wins over a cookie the browser happens to hold.
 */
export function sendsKey(request: FastifyRequest): boolean {
  return readCredentials(request, true) !== 'missing';
}

/**
 * Who calls a management route of the organization's: the admin key sent (`?apiKey=` or Bearer), else the console's
 * session (a person, or a key signed in), which is then on `request.session`.
 * @throws ServiceError as verifiedAdminKey, and `session_expired`, `csrf_failed` for a session.
 */
export async function managementCaller(
  request: FastifyRequest, reply: FastifyReply, store: ConfigStore, sessions: Sessions, missing: string,
): Promise<KeyEntry> {
  if (!sendsKey(request)) {
    const session = await sessions.caller(request, reply);
    if (session) {
      request.session = session;
      return session.entry;
    }
  }
  return verifiedAdminKey(request, store, missing);
}

/** Who made an audited change, and from where: a key (its id and name) or a person (their email), with their role. */
export interface Actor {
  type: 'person' | 'key';
  id: string;
  name: string;
  role?: string;
  ip?: string;
  userAgent?: string;
  /** `service`: the service did it, in the background, for this person or key (a privacy request's progress). */
  via?: 'service';
}

const MAX_USER_AGENT = 256;

/** The audit's actor of an authenticated management request. */
export function actorOf(request: FastifyRequest, entry: KeyEntry): Actor {
  const userAgent = request.headers['user-agent'];
  return {
    type: entry.person ? 'person' : 'key',
    id: entry.id,
    name: entry.name ?? entry.id,
    role: entry.role ?? 'admin',
    ip: request.ip,
    ...(typeof userAgent === 'string' && userAgent !== '' ? { userAgent: userAgent.slice(0, MAX_USER_AGENT) } : {}),
  };
}

/** The console's session of a request, attached by managementCaller or the project routes' hook. */
declare module 'fastify' {
  interface FastifyRequest {
    session?: SessionCaller;
  }
}
