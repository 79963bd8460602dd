import crypto from 'node:crypto';
import { keyDigest } from '../auth/verified-keys.js';
import type { KeyEntry, Role } from '../config/config-store.js';
import { ServiceError } from '../errors/service-error.js';
import { lockKeys, notify, op, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import type { Actor } from '../auth/management-caller.js';
import { recordAccessAudit } from './access-audit.js';
import { deleteInvitationsOf } from '../sessions/invitations.js';
import { CHANGES_CHANNEL } from './managed-item-store.js';
import type { AccessKey, CreatedKey, Person } from '../../wire/api/access-schema.js';

export type { AccessKey, Person };

// Keys and people of an organization, as the management API keeps them. A key is shown once, when it is made; the
// database holds its SHA-256 only. Every change bumps the revision every node polls (and NOTIFYs on PostgreSQL), so
// a revoked key stops on every node within a second, as item changes reach them.

const iso = (t: unknown): string => new Date(Number(t)).toISOString();
const projectsOf = (raw: unknown): string[] | null => (raw === null || raw === undefined ? null : JSON.parse(String(raw)) as string[]);

function* bumpRevision(): SqlProgram<void> {
  yield op('UPDATE managed_revision SET revision = revision + 1 WHERE id = 1');
  yield notify(CHANGES_CHANNEL);
}

/** Every key of every organization that is not revoked, as authentication looks them up. */
export function* storedKeysProgram(): SqlProgram<KeyEntry[]> {
  const { rows } = yield op('SELECT id, org, name, role, projects, key_hash, expires_at FROM access_keys WHERE revoked_at IS NULL');
  return rows.map((r) => ({
    kind: 'adminKey', id: String(r.id), key: '', org: String(r.org), project: null, role: String(r.role) as Role,
    name: String(r.name), hash: String(r.key_hash), projects: projectsOf(r.projects), expiresAt: r.expires_at === null ? null : Number(r.expires_at),
  }));
}

export interface NewKey {
  org: string;
  name: string;
  role: Role;
  projects: string[] | null;
  expiresAt: number | null;
  at: number;
}

/** Makes a key: `k<24 hex>.<43 base64url>` (id and secret random), stored by its digest. Answers it whole, once. */
export async function createKey(storage: Storage, key: NewKey, actor: Actor): Promise<CreatedKey> {
  const id = `k${crypto.randomBytes(12).toString('hex')}`;
  const whole = `${id}.${crypto.randomBytes(32).toString('base64url')}`;
  await storage.transaction(function* () {
    yield op(
      `INSERT INTO access_keys (id, org, name, role, projects, key_hash, created_at, expires_at, revoked_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)`,
      id, key.org, key.name, key.role, key.projects === null ? null : JSON.stringify(key.projects), keyDigest(whole), key.at, key.expiresAt,
    );
    const after = { name: key.name, role: key.role, projects: key.projects, expiresAt: key.expiresAt === null ? null : iso(key.expiresAt) };
    yield* recordAccessAudit({ org: key.org, at: key.at, actor, action: 'create', kind: 'key', name: id, before: null, after });
    yield* bumpRevision();
  });
  return {
    id, name: key.name, role: key.role, projects: key.projects, createdAt: iso(key.at),
    expiresAt: key.expiresAt === null ? null : iso(key.expiresAt), key: whole,
  };
}

/** The organization's keys that are not revoked, oldest first. */
export function listKeys(storage: Storage, org: string): Promise<AccessKey[]> {
  return storage.run(function* () {
    const { rows } = yield op(
      'SELECT id, name, role, projects, created_at, expires_at FROM access_keys WHERE org = ? AND revoked_at IS NULL ORDER BY created_at, id', org,
    );
    return rows.map((r): AccessKey => ({
      id: String(r.id), name: String(r.name), role: String(r.role) as Role, projects: projectsOf(r.projects),
      createdAt: iso(r.created_at), expiresAt: r.expires_at === null ? null : iso(r.expires_at),
    }));
  });
}

/**
 * Revokes a key of the organization.
 * @throws ServiceError `key_not_found` when it has no such key (or it is revoked already).
 */
export async function revokeKey(storage: Storage, org: string, id: string, at: number, actor: Actor): Promise<void> {
  await storage.transaction(function* () {
    const { rows } = yield op('SELECT name, role, projects FROM access_keys WHERE id = ? AND org = ? AND revoked_at IS NULL', id, org);
    const { changes } = yield op('UPDATE access_keys SET revoked_at = ? WHERE id = ? AND org = ? AND revoked_at IS NULL', at, id, org);
    if (changes === 0) throw new ServiceError('key_not_found', `The organization has no key ${JSON.stringify(id)}.`);
    const before = { name: String(rows[0]!.name), role: String(rows[0]!.role), projects: projectsOf(rows[0]!.projects) };
    yield* recordAccessAudit({ org, at, actor, action: 'delete', kind: 'key', name: id, before, after: null });
    yield* bumpRevision();
  });
}

/** The organization's people, by email, with whether each has a password and their open invitation's expiry. */
export function listPeople(storage: Storage, org: string, now: number): Promise<Person[]> {
  return storage.run(function* () {
    const { rows } = yield op(
      `SELECT p.email, p.role, p.projects, p.created_at, p.updated_at, p.password_hash IS NOT NULL AS has_password,
              (SELECT MAX(i.expires_at) FROM invitations i WHERE i.org = p.org AND i.email = p.email AND i.expires_at > ?) AS invited_until
         FROM people p WHERE p.org = ? ORDER BY p.email`,
      now, org,
    );
    return rows.map(personOf);
  });
}

function personOf(r: Record<string, unknown>): Person {
  return {
    email: String(r.email), role: String(r.role) as Role, projects: projectsOf(r.projects), createdAt: iso(r.created_at), updatedAt: iso(r.updated_at),
    password: r.has_password === true || Number(r.has_password) === 1,
    invitedUntil: r.invited_until == null ? null : iso(r.invited_until),
  };
}

/** Adds a person or changes their role; answers them and whether they were added. */
export function putPerson(
  storage: Storage, org: string, email: string, role: Role, projects: string[] | null, at: number, actor: Actor,
): Promise<{ person: Person; created: boolean }> {
  return storage.transaction(function* () {
    yield lockKeys([`people:${org}:${email}`]);
    const { rows: found } = yield op('SELECT created_at, password_hash, role, projects FROM people WHERE org = ? AND email = ?', org, email);
    const json = projects === null ? null : JSON.stringify(projects);
    if (found.length === 0) {
      yield op('INSERT INTO people (org, email, role, projects, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', org, email, role, json, at, at);
    } else yield op('UPDATE people SET role = ?, projects = ?, updated_at = ? WHERE org = ? AND email = ?', role, json, at, org, email);
    const before = found[0] ? { role: String(found[0].role), projects: projectsOf(found[0].projects) } : null;
    yield* recordAccessAudit({ org, at, actor, action: before ? 'update' : 'create', kind: 'person', name: email, before, after: { role, projects } });
    yield* bumpRevision();
    const createdAt = found.length === 0 ? at : Number(found[0]!.created_at);
    const { rows: invited } = yield op('SELECT MAX(expires_at) AS until FROM invitations WHERE org = ? AND email = ? AND expires_at > ?', org, email, at);
    const person = personOf({
      email, role, projects: json, created_at: createdAt, updated_at: at, has_password: found[0]?.password_hash != null, invited_until: invited[0]?.until ?? null,
    });
    return { person, created: found.length === 0 };
  });
}

/**
 * Removes a person.
 * @throws ServiceError `person_not_found`.
 */
export async function deletePerson(storage: Storage, org: string, email: string, at: number, actor: Actor): Promise<void> {
  await storage.transaction(function* () {
    const { rows } = yield op('SELECT role, projects FROM people WHERE org = ? AND email = ?', org, email);
    const { changes } = yield op('DELETE FROM people WHERE org = ? AND email = ?', org, email);
    if (changes === 0) throw new ServiceError('person_not_found', `The organization has no person ${JSON.stringify(email)}.`);
    const before = { role: String(rows[0]!.role), projects: projectsOf(rows[0]!.projects) };
    yield* recordAccessAudit({ org, at, actor, action: 'delete', kind: 'person', name: email, before, after: null });
    yield* deleteInvitationsOf(org, email);
    yield* bumpRevision();
  });
}
