import type { Role } from '../config/config-store.js';
import type { SqlProgram } from '../storage/sql-program.js';

// What reading a request's session needs of the stored sessions, as programs. The `sessions` table is the sessions
// domain's (its migrations create it, its folder holds every statement writing it: sessions/session-store.ts); this
// layer is below every domain, so the entry hands the programs to Sessions.

export type ActorType = 'person' | 'key';

export interface StoredSession {
  id: string;
  org: string;
  actorType: ActorType;
  actorId: string;
  createdAt: number;
  lastSeenAt: number;
  expiresAt: number;
  /** A person's role and projects; null when the person is no longer there (or the session is a key's). */
  person: { role: Role; projects: string[] | null; hasPassword: boolean } | null;
}

export interface NewSession {
  id: string;
  org: string;
  actorType: ActorType;
  actorId: string;
  at: number;
  expiresAt: number;
}

/** The stored sessions' programs, known by the SHA-256 of the cookie's token. */
export interface SessionRecords {
  insert(session: NewSession): SqlProgram<void>;
  /** The session with its person's role and projects as they are now. */
  find(id: string): SqlProgram<StoredSession | null>;
  /** Marks it used at `at` (its idle end moves). */
  touch(id: string, at: number): SqlProgram<void>;
  delete(id: string): SqlProgram<void>;
  /** Ends every session of a person or key but `except` (sign out everywhere, a changed password, a removed person). */
  deleteOf(org: string, actorType: ActorType, actorId: string, except?: string | null): SqlProgram<void>;
  /** Removes sessions past their end (idle or absolute), so the table holds only live ones; answers how many. */
  deleteEnded(now: number, idleMs: number): SqlProgram<number>;
}
