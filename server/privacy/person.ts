import { op, type SqlProgram } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';
import { normalEmail } from './email-address.js';

/** Whom a privacy request is about, as its body names them. */
export type Subject =
  | { kind: 'profileId'; value: string; sourceId: string }
  | { kind: 'userId'; value: string }
  | { kind: 'email'; value: string };

/** Every id of one person in a project: what erasure removes and an export returns. */
export interface Person {
  profiles: string[];
  users: string[];
  emails: string[];
}

/**
 * The person `subject` names, with every id linked to it, followed until nothing new turns up: a profile's user ids
 * (identify and alias links) and the emails its consent records carry; a user's profiles and the users it was aliased
 * with; an email's profiles (consent records). So a person with two devices, identified on one and aliased on the
 * other, is found whole from any of their ids. An id nothing links is a person of that one id.
 * @example const person = yield* resolvePerson('acme/shop', { kind: 'userId', value: 'u-42' });
 */
export function* resolvePerson(project: string, subject: Subject): SqlProgram<Person> {
  const found = { profiles: new Set<string>(), users: new Set<string>(), emails: new Set<string>() };
  const todo: [keyof typeof found, string][] = [];
  const add = (kind: keyof typeof found, value: unknown): void => {
    if (value === null || value === undefined || value === '') return;
    // Addresses as consent records store them; a subject or a row from before they were normalized matches too.
    const id = kind === 'emails' ? normalEmail(str(value)) : str(value);
    if (found[kind].has(id)) return;
    found[kind].add(id);
    todo.push([kind, id]);
  };
  add(subject.kind === 'profileId' ? 'profiles' : subject.kind === 'userId' ? 'users' : 'emails', subject.value);
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    const [kind, id] = next;
    if (kind === 'profiles') {
      for (const r of (yield op('SELECT user_id, other_user_id FROM person_links WHERE project = ? AND profile_id = ?', project, id)).rows) {
        add('users', r.user_id);
        add('users', r.other_user_id);
      }
      for (const r of (yield op('SELECT user_id FROM profile_users WHERE project = ? AND profile_id = ?', project, id)).rows) add('users', r.user_id);
      for (const r of (yield op('SELECT user_id FROM identities WHERE project = ? AND profile_id = ?', project, id)).rows) add('users', r.user_id);
      for (const r of (yield op('SELECT DISTINCT email FROM consents WHERE project = ? AND profile_id = ?', project, id)).rows) add('emails', r.email);
    } else if (kind === 'users') {
      const links = yield op('SELECT profile_id, user_id, other_user_id FROM person_links WHERE project = ? AND (user_id = ? OR other_user_id = ?)', project, id, id);
      for (const r of links.rows) {
        add('profiles', r.profile_id);
        add('users', r.user_id);
        add('users', r.other_user_id);
      }
      for (const r of (yield op('SELECT profile_id FROM identities WHERE project = ? AND user_id = ?', project, id)).rows) add('profiles', r.profile_id);
      for (const r of (yield op('SELECT profile_id FROM profile_users WHERE project = ? AND user_id = ?', project, id)).rows) add('profiles', r.profile_id);
      const aliases = yield op('SELECT user_id, target_user_id FROM aliases WHERE project = ? AND (user_id = ? OR target_user_id = ?)', project, id, id);
      for (const r of aliases.rows) {
        add('users', r.user_id);
        add('users', r.target_user_id);
      }
    } else {
      for (const r of (yield op('SELECT DISTINCT profile_id FROM consents WHERE project = ? AND email = ?', project, id)).rows) add('profiles', r.profile_id);
    }
  }
  const sorted = (set: Set<string>): string[] => [...set].sort();
  return { profiles: sorted(found.profiles), users: sorted(found.users), emails: sorted(found.emails) };
}

/** `(?, ?, …)` for a list of `n` values (at least one: an empty list matches nothing, as `(NULL)`). */
export function inList(n: number): string {
  return n === 0 ? '(NULL)' : `(${new Array<string>(n).fill('?').join(', ')})`;
}
