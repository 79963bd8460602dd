import type { Actor } from '../auth/management-caller.js';
import type { Role } from '../config/config-store.js';
import type { PeopleWrites } from '../sessions/credentials-store.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import { recordAccessAudit } from './access-audit.js';

// What signing in writes of the organization's people (a password set; a person an identity provider vouches for),
// written here with every other statement that writes `people`, and handed to the sign-in routes by the entry.

function* setPasswordHash(org: string, email: string, hash: string, at: number): SqlProgram<number> {
  const { changes } = yield op('UPDATE people SET password_hash = ?, updated_at = ? WHERE org = ? AND email = ?', hash, at, org, email);
  return changes;
}

/**
 * A person whose role the identity provider says: added with it, or their role changed to it (projects kept); the
 * change, if any, goes to the organization's audit, made by the person signing in.
 */
function* upsertProvidedPerson(org: string, email: string, role: Role, at: number, actor: Actor): SqlProgram<void> {
  const { rows } = yield op('SELECT role, projects FROM people WHERE org = ? AND email = ?', org, email);
  const found = rows[0];
  if (found && found.role === role) return;
  const projects = found?.projects == null ? null : JSON.parse(String(found.projects)) as string[];
  if (found) {
    yield op('UPDATE people SET role = ?, updated_at = ? WHERE org = ? AND email = ?', role, at, org, email);
  } else {
    const { changes } = yield op(
      'INSERT INTO people (org, email, role, projects, created_at, updated_at) VALUES (?, ?, ?, NULL, ?, ?) ON CONFLICT (org, email) DO NOTHING',
      org, email, role, at, at,
    );
    if (changes === 0) return; // added by a sign-in at the same moment, which audited it
  }
  yield* recordAccessAudit({
    org, at, actor, action: found ? 'update' : 'create', kind: 'person', name: email,
    before: found ? { role: String(found.role), projects } : null, after: { role, projects, from: 'single sign-on' },
  });
}

/** The people's writes the sign-in routes make, as they take them. */
export const PEOPLE_WRITES: PeopleWrites = { setPasswordHash, upsertProvidedPerson };
