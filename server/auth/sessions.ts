import crypto from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ConfigStore, KeyEntry, Role } from '../config/config-store.js';
import { ServiceError } from '../errors/service-error.js';
import { secretsEqual } from './secrets-equal.js';
import { keyDigest } from './verified-keys.js';
import type { Storage } from '../storage/storage.js';
import type { ActorType, SessionRecords, StoredSession } from './session-records.js';

// The console's sessions: a random 256-bit token in an HttpOnly cookie, known to the database by its SHA-256 only.
// Every request reads the session and the person behind it, so a removed person, a revoked key, or a session past
// its idle or absolute end is refused at its next request on any node. A session's CSRF token is derived from its
// token (a page of another site can read neither), and every unsafe method sent with the cookie must carry it.

export const SESSION_COOKIE = 'svc_session';
/**
 * Over https the cookie is `__Host-svc_session`: the browser then takes it only from this very host, with Secure and
 * Path=/, so a sibling subdomain cannot plant or shadow one. Plain http (a laptop, tests) cannot use the prefix.
 */
export const SECURE_SESSION_COOKIE = `__Host-${SESSION_COOKIE}`;
export const CSRF_HEADER = 'x-csrf-token';
/** How stale `last_seen_at` may get before a request writes it again: the idle timeout's precision. */
const TOUCH_EVERY_MS = 60_000;
const UNSAFE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export interface SessionTimeouts {
  /** A session nobody used this long ends. */
  idleMs: number;
  /** A session ends this long after sign-in, however much it is used. */
  absoluteMs: number;
}

export const DEFAULT_SESSION_TIMEOUTS: SessionTimeouts = { idleMs: 60 * 60_000, absoluteMs: 12 * 3600_000 };

/** Who a request's session is, as the routes see them. */
export interface SessionCaller {
  /** The session's id (the SHA-256 of its token). */
  id: string;
  org: string;
  actor: { type: ActorType; id: string; name: string };
  role: Role;
  projects: readonly string[] | null;
  csrfToken: string;
  expiresAt: number;
  /** A person who signs in with a password (and so may change it). */
  hasPassword: boolean;
  /** The caller as key authentication sees one: a key, or a person standing in for one. */
  entry: KeyEntry;
}

const csrfOf = (token: string): string => crypto.createHash('sha256').update(`csrf\0${token}`, 'utf8').digest('base64url');

/** The token (32 random bytes, base64url) in the request's cookie `name`, or null when it has none of that shape. */
export function cookieToken(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
    }
  }
  return null;
}

/** The session cookie's token, or null when the request has none (over https, only the `__Host-` cookie counts). */
export function sessionToken(request: FastifyRequest): string | null {
  return cookieToken(request, request.protocol === 'https' ? SECURE_SESSION_COOKIE : SESSION_COOKIE);
}

export class Sessions {
  readonly #storage: Storage;
  readonly #records: SessionRecords;
  readonly #config: ConfigStore;
  readonly #now: () => number;
  readonly timeouts: SessionTimeouts;

  /** `records`: the stored sessions' programs, which the sessions domain owns (the entry gives them). */
  constructor(
    storage: Storage, records: SessionRecords, config: ConfigStore, now: () => number, timeouts: SessionTimeouts = DEFAULT_SESSION_TIMEOUTS,
  ) {
    this.#storage = storage;
    this.#records = records;
    this.#config = config;
    this.#now = now;
    this.timeouts = timeouts;
  }

  /**
   * The request's session, or null when it sends no session cookie. An unsafe method must carry the session's CSRF
   * token, and an `Origin`, when sent, must be the service's own.
   * @throws ServiceError `session_expired` (and clears the cookie) for a session that is unknown or over, or whose
   * person or key is gone; `csrf_failed`.
   */
  async caller(request: FastifyRequest, reply: FastifyReply): Promise<SessionCaller | null> {
    const token = sessionToken(request);
    if (token === null) return null;
    const now = this.#now();
    const records = this.#records;
    const stored = await this.#storage.run(() => records.find(keyDigest(token)));
    const caller = stored && now < stored.expiresAt && now - stored.lastSeenAt < this.timeouts.idleMs
      ? this.#callerOf(stored, token)
      : null;
    if (caller === null) {
      if (stored) await this.#storage.transaction(() => records.delete(stored.id));
      this.clearCookie(request, reply);
      throw new ServiceError('session_expired', 'Your session has ended. Sign in again.');
    }
    if (UNSAFE.has(request.method)) checkCsrf(request, caller.csrfToken);
    if (now - stored!.lastSeenAt >= TOUCH_EVERY_MS) await this.#storage.transaction(() => records.touch(caller.id, now));
    return caller;
  }

  /** The session's caller: its person (still there) or key (still valid, of the same organization). */
  #callerOf(stored: StoredSession, token: string): SessionCaller | null {
    const base = { id: stored.id, org: stored.org, csrfToken: csrfOf(token), expiresAt: stored.expiresAt };
    if (stored.actorType === 'person') {
      if (!stored.person) return null;
      const { role, projects, hasPassword } = stored.person;
      const entry: KeyEntry = { kind: 'adminKey', id: stored.actorId, key: '', org: stored.org, project: null, role, projects, name: stored.actorId, person: true };
      return { ...base, actor: { type: 'person', id: stored.actorId, name: stored.actorId }, role, projects, hasPassword, entry };
    }
    const key = this.#config.keyById(stored.actorId);
    if (!key || key.kind !== 'adminKey' || key.org !== stored.org || (key.expiresAt != null && key.expiresAt <= this.#now())) return null;
    const role = key.role ?? 'admin';
    return { ...base, actor: { type: 'key', id: key.id, name: key.name ?? key.id }, role, projects: key.projects ?? null, hasPassword: false, entry: key };
  }

  /**
   * Signs a person or key in: a new session with a new token (whatever session cookie the browser sent is ended, so a
   * token planted before sign-in is never the signed-in one), set as the cookie.
   */
  async start(request: FastifyRequest, reply: FastifyReply, org: string, actorType: ActorType, actorId: string): Promise<SessionCaller> {
    const token = crypto.randomBytes(32).toString('base64url');
    const now = this.#now();
    const previous = sessionToken(request);
    const id = keyDigest(token);
    const expiresAt = now + this.timeouts.absoluteMs;
    const { idleMs } = this.timeouts;
    const records = this.#records;
    const stored = await this.#storage.transaction(function* () {
      if (previous !== null) yield* records.delete(keyDigest(previous));
      // Sessions that ended without a sign-out are cleared as people sign in: the table holds the live ones.
      yield* records.deleteEnded(now, idleMs);
      yield* records.insert({ id, org, actorType, actorId, at: now, expiresAt });
      return yield* records.find(id);
    });
    const caller = stored ? this.#callerOf(stored, token) : null;
    if (!caller) throw new ServiceError('session_expired', 'The session could not be started. Sign in again.');
    reply.header('set-cookie', this.#cookie(request, token, Math.floor(this.timeouts.absoluteMs / 1000)));
    return caller;
  }

  /** Signs this browser out: its session ends and its cookie is cleared. */
  async end(request: FastifyRequest, reply: FastifyReply, caller: SessionCaller): Promise<void> {
    await this.#storage.transaction(() => this.#records.delete(caller.id));
    this.clearCookie(request, reply);
  }

  /** Ends every session of a person or key (`except` one, e.g. the one changing its password). */
  async endAll(org: string, actorType: ActorType, actorId: string, except: string | null = null): Promise<void> {
    await this.#storage.transaction(() => this.#records.deleteOf(org, actorType, actorId, except));
  }

  clearCookie(request: FastifyRequest, reply: FastifyReply): void {
    reply.header('set-cookie', this.#cookie(request, '', 0));
  }

  // Over https (directly, or through a proxy Fastify trusts): Secure, with the __Host- prefix, which requires Path=/.
  // Over http: sent with the API's requests only.
  #cookie(request: FastifyRequest, value: string, maxAge: number): string {
    const attributes = `Max-Age=${maxAge}; HttpOnly; SameSite=Lax`;
    return request.protocol === 'https'
      ? `${SECURE_SESSION_COOKIE}=${value}; Path=/; ${attributes}; Secure`
      : `${SESSION_COOKIE}=${value}; Path=/v1/; ${attributes}`;
  }
}

/**
 * An unsafe request sent with the session cookie must carry the session's CSRF token (which a page of another site
 * cannot read) and, when the browser says where it comes from, come from the service's own origin.
 * @throws ServiceError `csrf_failed`.
 */
function checkCsrf(request: FastifyRequest, expected: string): void {
  const sent = request.headers[CSRF_HEADER];
  if (typeof sent !== 'string' || !secretsEqual(sent, expected)) {
    throw new ServiceError('csrf_failed', `Send the session's CSRF token in the X-CSRF-Token header (GET /v1/{organization}/me answers it).`);
  }
  checkSameOrigin(request);
}

/**
 * A request that signs a browser in, or acts with its cookie, must come from the service's own origin when the browser
 * says where it comes from (browsers send `Origin` with every POST, a form's too): another site cannot sign a visitor
 * in to an account of its choosing, nor act in theirs.
 * @throws ServiceError `csrf_failed`.
 */
export function checkSameOrigin(request: FastifyRequest): void {
  const origin = request.headers.origin;
  if (typeof origin !== 'string') return;
  let same = false;
  try {
    // Compared as URLs: an Origin names a default port only by leaving it out, a Host header may name it.
    same = new URL(origin).origin === new URL(`${request.protocol}://${request.host}`).origin;
  } catch {
    // Not a URL ("null" from a sandboxed frame, say): refused below.
  }
  if (!same) throw new ServiceError('csrf_failed', 'A request with the session cookie must come from the console\'s own origin.');
}
