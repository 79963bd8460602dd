import type { Migration } from '../storage/migrations.js';

// The identity graph's tables, as migrations: written per database where the SQL differs (types, identity columns).
// Listed with every domain's in server/schema.ts and run in version order; a shipped version is never edited: a change
// is the next version, here.

// Who is whom: the first profile of each user, aliases, accounts, and the attributes of profiles and accounts.
const identityTables = (t: { int: string }): string => `
CREATE TABLE identities (
  project TEXT NOT NULL,
  user_id TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, user_id)
);
CREATE INDEX identities_profile ON identities (project, profile_id);

CREATE TABLE aliases (
  project TEXT NOT NULL,
  user_id TEXT NOT NULL,
  target_user_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, user_id)
);

CREATE TABLE profile_accounts (
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  account_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, profile_id, account_id)
);

CREATE TABLE attributes (
  project TEXT NOT NULL,
  scope TEXT NOT NULL,
  owner_id TEXT NOT NULL,
  key TEXT NOT NULL,
  value TEXT NOT NULL,
  updated_at ${t.int} NOT NULL,
  PRIMARY KEY (project, scope, owner_id, key)
);
`;

// Which user id each profile was first identified (or aliased) as: `identities` keeps only the FIRST profile
// per user, so a second device's profile would otherwise not lead back to its person. The Choose API uses it
// to assign by the person's canonical profile, so nobody flips on log-in. Backfilled from stored events.
const profileUsers = (t: { int: string }): string => `
CREATE TABLE profile_users (
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, profile_id)
);
INSERT INTO profile_users (project, profile_id, user_id, created_at)
SELECT project, profile_id, user_id, received_at FROM events
WHERE type IN ('identify', 'alias') AND user_id IS NOT NULL
ORDER BY ts, event_id
ON CONFLICT (project, profile_id) DO NOTHING;
`;

// Every identity link, for results' people: `identities` and `profile_users` keep only the first link of a user and
// of a profile (what Choose's assignments follow), so a profile identified as a second user, or a user aliased twice,
// was linked nowhere. One row per (profile, userId, anotherUserId) an identify or alias event carried ('' for an
// identify). Backfilled from stored events.
const personLinks = (t: { int: string; anotherUserId: string }): string => `
CREATE TABLE person_links (
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  user_id TEXT NOT NULL,
  other_user_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, profile_id, user_id, other_user_id)
);
INSERT INTO person_links (project, profile_id, user_id, other_user_id, created_at)
SELECT project, profile_id, user_id, CASE WHEN type = 'alias' THEN COALESCE(${t.anotherUserId}, '') ELSE '' END, received_at
FROM events WHERE type IN ('identify', 'alias') AND user_id IS NOT NULL
ON CONFLICT (project, profile_id, user_id, other_user_id) DO NOTHING;
`;

export const IDENTITY_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema: identities, aliases, accounts, attributes',
    sqlite: identityTables({ int: 'INTEGER' }),
    postgres: identityTables({ int: 'BIGINT' }),
  },
  {
    version: 2,
    name: 'profile users (identity carry-over for assignments)',
    sqlite: profileUsers({ int: 'INTEGER' }),
    postgres: profileUsers({ int: 'BIGINT' }),
  },
  {
    version: 9,
    name: 'person links: every identify and alias link, for results',
    sqlite: personLinks({ int: 'INTEGER', anotherUserId: "json_extract(payload, '$.anotherUserId')" }),
    postgres: personLinks({ int: 'BIGINT', anotherUserId: "payload::json ->> 'anotherUserId'" }),
  },
];
