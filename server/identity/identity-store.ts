import type { Attributes } from '../../src/event.js';
import { op } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';
import type { Storage } from '../storage/storage.js';
import { canonicalProfileProgram, resolveUserProgram } from './identity-programs.js';

// Reads of the identity graph, for the Choose API (form B's userId, canonical profiles, targeting attributes).

/** The profile a user id belongs to, following alias links; null when no identify linked it. */
export function resolveUser(storage: Storage, project: string, userId: string): Promise<string | null> {
  return storage.run(() => resolveUserProgram(project, userId));
}

/**
 * The profile whose assignments `profileId` shares: once the profile was identified (or aliased) as a user, that
 * user's canonical profile (what `resolveUser` answers), else the profile itself. This is what carries an anonymous
 * profile's assignments over to the identified person, so nobody flips on log-in.
 */
export function canonicalProfile(storage: Storage, project: string, profileId: string): Promise<string> {
  return storage.run(() => canonicalProfileProgram(project, profileId));
}

function attributes(storage: Storage, project: string, scope: 'profile' | 'account', ownerId: string): Promise<Attributes> {
  return storage.run(function* () {
    const { rows } = yield op(
      'SELECT key, value FROM attributes WHERE project = ? AND scope = ? AND owner_id = ? ORDER BY key',
      project, scope, ownerId,
    );
    // fromEntries defines each key as an own property: a stored `__proto__` attribute stays data, not a prototype.
    return Object.fromEntries(rows.map((r) => [str(r.key), JSON.parse(str(r.value)) as unknown])) as Attributes;
  });
}

export function getProfileAttributes(storage: Storage, project: string, profileId: string): Promise<Attributes> {
  return attributes(storage, project, 'profile', profileId);
}

export function getAccountAttributes(storage: Storage, project: string, accountId: string): Promise<Attributes> {
  return attributes(storage, project, 'account', accountId);
}

/** Accounts a profile was grouped into, oldest first. */
export function getProfileAccounts(storage: Storage, project: string, profileId: string): Promise<string[]> {
  return storage.run(function* () {
    const { rows } = yield op(
      'SELECT account_id FROM profile_accounts WHERE project = ? AND profile_id = ? ORDER BY created_at, account_id',
      project, profileId,
    );
    return rows.map((r) => str(r.account_id));
  });
}
