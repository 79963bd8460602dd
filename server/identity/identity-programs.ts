import type { Attributes, ServiceEvent } from '../../wire/event.js';
import { lockKeys, op, type SqlProgram } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';

// The identity graph as SQL programs: who is whom (identify, alias), which accounts a profile belongs to, and the
// attributes of profiles and accounts. Ingestion runs applyIdentityEffects for each newly stored event; Choose
// resolves users and canonical profiles with the read programs.

const MAX_ALIAS_HOPS = 16;

/** The chain of alias links from `userId`, itself first; stops at a cycle. */
export function* aliasChain(project: string, userId: string): SqlProgram<string[]> {
  const chain = [userId];
  let current = userId;
  for (let hop = 0; hop < MAX_ALIAS_HOPS; hop++) {
    const { rows } = yield op('SELECT target_user_id FROM aliases WHERE project = ? AND user_id = ?', project, current);
    const next = rows[0] ? str(rows[0].target_user_id) : null;
    if (next === null || chain.includes(next)) break;
    chain.push(next);
    current = next;
  }
  return chain;
}

function* directProfile(project: string, userId: string): SqlProgram<string | null> {
  const { rows } = yield op('SELECT profile_id FROM identities WHERE project = ? AND user_id = ?', project, userId);
  return rows[0] ? str(rows[0].profile_id) : null;
}

/**
 * A user id's profile: follow alias links to the primary user id, then take the profile of the last id
 * of the chain that has one (the alias target wins, so two aliased ids resolve to one person).
 */
export function* resolveUserProgram(project: string, userId: string): SqlProgram<string | null> {
  const chain = yield* aliasChain(project, userId);
  for (let i = chain.length - 1; i >= 0; i--) {
    const profile = yield* directProfile(project, chain[i] as string);
    if (profile !== null) return profile;
  }
  return null;
}

function* mergeAttributes(
  project: string, scope: 'profile' | 'account', ownerId: string, attributes: Attributes, at: number,
): SqlProgram<void> {
  for (const [key, value] of Object.entries(attributes)) {
    // Last write wins per key by event time: an older event arriving late does not overwrite a newer value.
    yield op(
      `INSERT INTO attributes (project, scope, owner_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project, scope, owner_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
       WHERE excluded.updated_at >= attributes.updated_at`,
      project, scope, ownerId, key, JSON.stringify(value ?? null), at,
    );
  }
}

function* linkIdentity(project: string, userId: string, profileId: string, now: number): SqlProgram<void> {
  // First link wins: a user logging in on a second device keeps the profile (and assignments) of the first.
  yield op(
    `INSERT INTO identities (project, user_id, profile_id, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (project, user_id) DO NOTHING`,
    project, userId, profileId, now,
  );
}

function* linkProfileUser(project: string, profileId: string, userId: string, now: number): SqlProgram<void> {
  // First link wins per profile: a shared device identified as a second user keeps its first person.
  yield op(
    `INSERT INTO profile_users (project, profile_id, user_id, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (project, profile_id) DO NOTHING`,
    project, profileId, userId, now,
  );
}

/**
 * The profile whose assignments this profile shares: the canonical profile of the person it was identified
 * as (what form B's userId resolves to), or itself while it is anonymous.
 */
export function* canonicalProfileProgram(project: string, profileId: string): SqlProgram<string> {
  const { rows } = yield op('SELECT user_id FROM profile_users WHERE project = ? AND profile_id = ?', project, profileId);
  if (!rows[0]) return profileId;
  return (yield* resolveUserProgram(project, str(rows[0].user_id))) ?? profileId;
}

/** A profile's or an account's stored attributes, by key. */
export function* attributesProgram(project: string, scope: 'profile' | 'account', ownerId: string): SqlProgram<Attributes> {
  const { rows } = yield op(
    'SELECT key, value FROM attributes WHERE project = ? AND scope = ? AND owner_id = ? ORDER BY key',
    project, scope, ownerId,
  );
  return attributesOf(rows.map((r) => [str(r.key), str(r.value)]));
}

/** Accounts a profile was grouped into, oldest first. */
export function* profileAccountsProgram(project: string, profileId: string): SqlProgram<string[]> {
  const { rows } = yield op(
    'SELECT account_id FROM profile_accounts WHERE project = ? AND profile_id = ? ORDER BY created_at, account_id',
    project, profileId,
  );
  return rows.map((r) => str(r.account_id));
}

/** `[key, JSON value]` pairs as attributes. */
function attributesOf(pairs: readonly (readonly [string, string])[]): Attributes {
  // fromEntries defines each key as an own property: a stored `__proto__` attribute stays data, not a prototype.
  return Object.fromEntries(pairs.map(([key, value]) => [key, JSON.parse(value) as unknown])) as Attributes;
}

/**
 * What `condition` rules read of a person (README "Choose API"): the attributes of the canonical profile with the
 * requesting profile's own on top, and the attributes of the first account the profile (else the canonical profile)
 * was grouped into.
 */
export interface StoredTargeting {
  profile: Attributes;
  account: Attributes;
}

/** The stored targeting of `profileId`, whose canonical profile is known to be `canonicalProfileId`. */
export function* storedTargetingProgram(project: string, profileId: string, canonicalProfileId: string): SqlProgram<StoredTargeting> {
  const { own, accounts } = yield* profileRows(project, profileId);
  return yield* targetingOf(project, profileId, canonicalProfileId, own, accounts);
}

/**
 * The canonical profile of `profileId` (canonicalProfileProgram) and its stored targeting (storedTargetingProgram), for
 * a Choose request whose profile no cache knows. For a profile that is not linked to a user (every new visitor) it is
 * one statement; it was three reads, one after the other on PostgreSQL.
 */
export function* profileTargetingProgram(
  project: string, profileId: string,
): SqlProgram<{ canonicalProfileId: string; targeting: StoredTargeting }> {
  const { userId, own, accounts } = yield* profileRows(project, profileId);
  const canonicalProfileId = userId === null ? profileId : (yield* resolveUserProgram(project, userId)) ?? profileId;
  return { canonicalProfileId, targeting: yield* targetingOf(project, profileId, canonicalProfileId, own, accounts) };
}

/**
 * A profile's own rows in one statement: the user it was first linked to, its attributes, its accounts oldest first.
 */
function* profileRows(project: string, profileId: string): SqlProgram<{ userId: string | null; own: Attributes; accounts: string[] }> {
  // Ordered as the single reads above order them, by the database's own collation.
  const { rows } = yield op(
    `SELECT 'a' AS kind, user_id AS name, NULL AS value, 0 AS at FROM profile_users WHERE project = ? AND profile_id = ?
     UNION ALL SELECT 'b', key, value, 0 FROM attributes WHERE project = ? AND scope = 'profile' AND owner_id = ?
     UNION ALL SELECT 'c', account_id, NULL, created_at FROM profile_accounts WHERE project = ? AND profile_id = ?
     ORDER BY kind, at, name`,
    project, profileId, project, profileId, project, profileId,
  );
  let userId: string | null = null;
  const own: [string, string][] = [];
  const accounts: string[] = [];
  for (const row of rows) {
    if (row.kind === 'a') userId = str(row.name);
    else if (row.kind === 'b') own.push([str(row.name), str(row.value)]);
    else accounts.push(str(row.name));
  }
  return { userId, own: attributesOf(own), accounts };
}

/**
 * Whether the identity graph holds what a Choose answer to `profileId` would read: a user link (its canonical profile)
 * and, with `targeting`, an attribute or an account. A profile it does not hold is its own canonical profile, with no
 * stored targeting (what a Choose answer to a new visitor assumes).
 */
export function* profileIsKnownProgram(project: string, profileId: string, targeting: boolean): SqlProgram<boolean> {
  const { rows } = yield targeting
    ? op(
      `SELECT 1 AS known FROM profile_users WHERE project = ? AND profile_id = ?
       UNION ALL SELECT 1 FROM attributes WHERE project = ? AND scope = 'profile' AND owner_id = ?
       UNION ALL SELECT 1 FROM profile_accounts WHERE project = ? AND profile_id = ?
       LIMIT 1`,
      project, profileId, project, profileId, project, profileId,
    )
    : op('SELECT 1 AS known FROM profile_users WHERE project = ? AND profile_id = ?', project, profileId);
  return rows.length > 0;
}

/**
 * The stored targeting from a profile's own attributes and accounts: the canonical profile's and the account's added.
 */
function* targetingOf(
  project: string, profileId: string, canonicalProfileId: string, own: Attributes, ownAccounts: string[],
): SqlProgram<StoredTargeting> {
  const sameProfile = profileId === canonicalProfileId;
  const profile = sameProfile ? own : { ...(yield* attributesProgram(project, 'profile', canonicalProfileId)), ...own };
  const accounts = ownAccounts.length > 0 || sameProfile ? ownAccounts : yield* profileAccountsProgram(project, canonicalProfileId);
  const account = accounts[0] === undefined ? {} : yield* attributesProgram(project, 'account', accounts[0]);
  return { profile, account };
}

/** The identity graph and attribute effects of one newly stored event. */
export function* applyIdentityEffects(
  project: string, event: ServiceEvent, now: number,
): SqlProgram<void> {
  const at = Date.parse(event.timestamp);
  if ((event.type === 'identify' || event.type === 'alias') && event.userId) {
    yield* linkProfileUser(project, event.profileId, event.userId, now);
    // Every link, not only the first (results' people).
    yield op(
      `INSERT INTO person_links (project, profile_id, user_id, other_user_id, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (project, profile_id, user_id, other_user_id) DO NOTHING`,
      project, event.profileId, event.userId, event.type === 'alias' ? event.anotherUserId ?? '' : '', now,
    );
  }
  if (event.type === 'identify' && event.userId) {
    yield* linkIdentity(project, event.userId, event.profileId, now);
  }
  if (event.type === 'alias' && event.userId && event.anotherUserId && event.userId !== event.anotherUserId) {
    // anotherUserId → userId, unless userId already leads to anotherUserId (that would close a cycle). The chain is
    // read and the link written by one transaction at a time per project: on PostgreSQL two opposite aliases
    // committing together would each miss the other's link and close a cycle.
    yield lockKeys([`svc_aliases:${project}`]);
    const chain = yield* aliasChain(project, event.userId);
    if (!chain.includes(event.anotherUserId)) {
      yield op(
        `INSERT INTO aliases (project, user_id, target_user_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (project, user_id) DO NOTHING`,
        project, event.anotherUserId, event.userId, now,
      );
    }
    const existing = yield* resolveUserProgram(project, event.anotherUserId);
    yield* linkIdentity(project, event.userId, existing ?? event.profileId, now);
  }
  if ((event.type === 'group' || event.type === 'record') && event.accountId) {
    yield op(
      `INSERT INTO profile_accounts (project, profile_id, account_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (project, profile_id, account_id) DO NOTHING`,
      project, event.profileId, event.accountId, now,
    );
  }
  if (event.userAttributes) {
    yield* mergeAttributes(project, 'profile', event.profileId, event.userAttributes, at);
    // The person's canonical profile (the one a userId resolves to) gets them too, for Choose form B.
    if (event.userId) {
      const canonical = yield* resolveUserProgram(project, event.userId);
      if (canonical !== null && canonical !== event.profileId) {
        yield* mergeAttributes(project, 'profile', canonical, event.userAttributes, at);
      }
    }
  }
  if (event.accountAttributes && event.accountId) {
    yield* mergeAttributes(project, 'account', event.accountId, event.accountAttributes, at);
  }
}
