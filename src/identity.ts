import { KEYS, type LocalStore } from './local-store.js';
import { uuid } from './uuid.js';

/** The automatic identifiers every event carries. */
export interface Ids {
  profileId: string;
  sessionId: string;
  pageId: string;
}

/** A session ends after 30 minutes without activity (the industry default: GA, Segment, PostHog). */
export const SESSION_TIMEOUT_MS = 30 * 60 * 1000;
// Persisting the sliding "last activity" on every event would write storage on the hot path; a minute of
// granularity on a 30-minute window is invisible.
const TOUCH_PERSIST_MS = 60 * 1000;

interface StoredSession {
  id: string;
  last: number;
}

function parseSession(raw: string | null): StoredSession | null {
  if (!raw) return null;
  try {
    const s = JSON.parse(raw) as Partial<StoredSession>;
    return typeof s.id === 'string' && typeof s.last === 'number' ? { id: s.id, last: s.last } : null;
  } catch {
    return null;
  }
}

/**
 * profileId (persistent per browser), sessionId (30-minute sliding inactivity, shared by tabs through
 * storage) and pageId (per page view). Nothing is written while `canPersist()` is false (opted out):
 * ids then live in memory only.
 */
export class Identity {
  readonly #store: LocalStore;
  readonly #canPersist: () => boolean;
  readonly #now: () => number;
  #profileId: string | null = null;
  #session: StoredSession | null = null;
  #persistedAt = 0;
  #pageId = uuid();

  constructor(store: LocalStore, canPersist: () => boolean, now: () => number = Date.now) {
    this.#store = store;
    this.#canPersist = canPersist;
    this.#now = now;
  }

  get profileId(): string {
    if (this.#profileId === null) {
      this.#profileId = this.#store.get(KEYS.profileId) ?? uuid();
      this.#persist(KEYS.profileId, this.#profileId);
    }
    return this.#profileId;
  }

  get pageId(): string {
    return this.#pageId;
  }

  /** The ids for an event happening now; slides the session window. */
  ids(): Ids {
    return { profileId: this.profileId, sessionId: this.#touchSession(), pageId: this.#pageId };
  }

  /** The current session id without counting as activity. */
  get sessionId(): string {
    const now = this.#now();
    const s = this.#session;
    return s && now - s.last < SESSION_TIMEOUT_MS ? s.id : this.#touchSession();
  }

  /** Writes the ids held in memory, e.g. minted while opted out, once persisting is allowed. */
  persist(): void {
    if (this.#profileId !== null) this.#persist(KEYS.profileId, this.#profileId);
    if (this.#session !== null) this.#persist(KEYS.session, JSON.stringify(this.#session));
  }

  /** A new page view (SPA navigation). */
  newPage(): void {
    this.#pageId = uuid();
  }

  /** After log-out: a new person as far as this browser knows, in a new session and page. */
  reset(): void {
    this.#store.remove(KEYS.session);
    this.#store.remove(KEYS.profileId);
    // A new person: the variations the last one was shown are not theirs.
    this.#store.remove(KEYS.choices);
    this.#profileId = null;
    this.#session = null;
    this.#pageId = uuid();
  }

  #touchSession(): string {
    const now = this.#now();
    let s = this.#session;
    if (!s || now - s.last >= SESSION_TIMEOUT_MS) {
      // Another tab may have kept the session alive: storage is read only when ours looks expired.
      s = parseSession(this.#store.get(KEYS.session));
      if (s && now - s.last < SESSION_TIMEOUT_MS) {
        this.#session = s;
      } else {
        this.#session = s = { id: uuid(), last: now };
        this.#persistedAt = now;
        this.#persist(KEYS.session, JSON.stringify(s));
        return s.id;
      }
    }
    s.last = now;
    if (now - this.#persistedAt >= TOUCH_PERSIST_MS) {
      this.#persistedAt = now;
      this.#persist(KEYS.session, JSON.stringify(s));
    }
    return s.id;
  }

  #persist(key: string, value: string): void {
    if (this.#canPersist()) this.#store.set(key, value);
  }
}
