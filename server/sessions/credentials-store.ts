import { op, type SqlProgram } from '../storage/sql-program.js';
import type { Actor } from '../auth/management-caller.js';
import type { Role } from '../config/config-store.js';

// What signing in reads of the organization's people (password hashes), and what it writes of them. The `people`
// table is management's (its migrations create it, its folder holds every statement writing it), which imports this
// domain: the writes come from there through the entry, as PeopleWrites.

/** A person's password hash (null: no such person, or no password yet) and role, for signing in. */
export function* personCredentials(org: string, email: string): SqlProgram<{ hash: string | null; exists: boolean }> {
  const { rows } = yield op('SELECT password_hash FROM people WHERE org = ? AND email = ?', org, email);
  const r = rows[0];
  return { hash: r?.password_hash == null ? null : String(r.password_hash), exists: r !== undefined };
}

/** The writes signing in makes to the people (management/people-writes.ts). */
export interface PeopleWrites {
  /** Sets a person's password hash; answers how many people it changed (0: no such person). */
  setPasswordHash(org: string, email: string, hash: string, at: number): SqlProgram<number>;
  /**
   * A person whose role the identity provider says: added with it, or their role changed to it (projects kept), the
   * change audited as made by `actor`.
   */
  upsertProvidedPerson(org: string, email: string, role: Role, at: number, actor: Actor): SqlProgram<void>;
}
