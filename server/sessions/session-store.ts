import type { ActorType, NewSession, SessionRecords, StoredSession } from '../auth/session-records.js';
import type { Role } from '../config/config-store.js';
import { op, type SqlProgram } from '../storage/sql-program.js';

// Sessions as the database keeps them: by the SHA-256 of the cookie's token. A person's role and projects are read
// from `people` on every request (a removed person has no row: their sessions stop at their next request); a key's
// from the keys every node holds. The entry hands these programs to auth/'s Sessions, which reads every request's.

function* insertSession(s: NewSession): SqlProgram<void> {
  yield op(
    'INSERT INTO sessions (id, org, actor_type, actor_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    s.id, s.org, s.actorType, s.actorId, s.at, s.at, s.expiresAt,
  );
}

function* findSession(id: string): SqlProgram<StoredSession | null> {
  const { rows } = yield op(
    `SELECT s.id, s.org, s.actor_type, s.actor_id, s.created_at, s.last_seen_at, s.expires_at,
            p.role, p.projects, p.password_hash
       FROM sessions s LEFT JOIN people p ON s.actor_type = 'person' AND p.org = s.org AND p.email = s.actor_id
      WHERE s.id = ?`,
    id,
  );
  const r = rows[0];
  if (!r) return null;
  return {
    id: String(r.id), org: String(r.org), actorType: String(r.actor_type) as ActorType, actorId: String(r.actor_id),
    createdAt: Number(r.created_at), lastSeenAt: Number(r.last_seen_at), expiresAt: Number(r.expires_at),
    person: r.role == null ? null : {
      role: String(r.role) as Role,
      projects: r.projects == null ? null : JSON.parse(String(r.projects)) as string[],
      hasPassword: r.password_hash != null,
    },
  };
}

function* touchSession(id: string, at: number): SqlProgram<void> {
  yield op('UPDATE sessions SET last_seen_at = ? WHERE id = ?', at, id);
}

function* deleteSession(id: string): SqlProgram<void> {
  yield op('DELETE FROM sessions WHERE id = ?', id);
}

function* deleteSessionsOf(org: string, actorType: ActorType, actorId: string, except: string | null = null): SqlProgram<void> {
  yield op('DELETE FROM sessions WHERE org = ? AND actor_type = ? AND actor_id = ? AND id <> ?', org, actorType, actorId, except ?? '');
}

function* deleteEndedSessions(now: number, idleMs: number): SqlProgram<number> {
  const { changes } = yield op('DELETE FROM sessions WHERE expires_at <= ? OR last_seen_at <= ?', now, now - idleMs);
  return changes;
}

/** The stored sessions' programs, as auth/'s Sessions takes them. */
export const SESSION_RECORDS: SessionRecords = {
  insert: insertSession,
  find: findSession,
  touch: touchSession,
  delete: deleteSession,
  deleteOf: deleteSessionsOf,
  deleteEnded: deleteEndedSessions,
};
