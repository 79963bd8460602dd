// Versioned migrations, one schema written per dialect where the SQL differs (types, identity columns).
// Applied in order on start, each in its own transaction with its row in schema_migrations; never edit a
// shipped migration, add the next version.

import { experimentExposuresPostgres, experimentExposuresSqlite } from '../results/results-migrations.js';
import { cheaperModelsPostgres, cheaperModelsSqlite, modelInbox, productIdsByteOrderPostgres, recommendations } from './recommendation-migrations.js';

export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
}

const tables = (t: { int: string; serial: string }): string => `
CREATE TABLE events (
  project TEXT NOT NULL,
  event_id TEXT NOT NULL,
  source_id TEXT NOT NULL,
  type TEXT NOT NULL,
  name TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  page_id TEXT NOT NULL,
  user_id TEXT,
  account_id TEXT,
  product_id TEXT,
  ts ${t.int} NOT NULL,
  received_at ${t.int} NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (project, event_id)
);
CREATE INDEX events_profile ON events (project, profile_id, ts);
CREATE INDEX events_product ON events (project, type, product_id);

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

CREATE TABLE consents (
  id ${t.serial},
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  source_id TEXT,
  category TEXT NOT NULL,
  action TEXT NOT NULL,
  valid_until ${t.int} NOT NULL,
  email TEXT,
  message TEXT,
  event_id TEXT,
  ts ${t.int} NOT NULL,
  received_at ${t.int} NOT NULL
);
CREATE UNIQUE INDEX consents_event ON consents (project, event_id);
CREATE INDEX consents_profile ON consents (project, profile_id, category, ts);

CREATE TABLE assignments (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  unit TEXT NOT NULL,
  variation TEXT NOT NULL,
  hash_version INTEGER NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, experience, unit)
);

CREATE TABLE exposures (
  id ${t.serial},
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  experience TEXT NOT NULL,
  variation TEXT,
  session_id TEXT,
  device TEXT,
  ts ${t.int} NOT NULL
);
CREATE INDEX exposures_experience ON exposures (project, experience, ts);
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

// Exposures become one row per Choose answer (an ExposureSet: profile, session, device, time), its choices a JSON
// array of [experience, variation] pairs, with their count beside it. An answer of 20 choices was 20 inserts and
// 20 index entries, an order of magnitude more than the packed row, so new sessions' exposures were the largest cost
// of a Choose request after the framework.
// Results read a time range of a project (the index) and unpack the pairs. Existing rows become sets of one.
const exposureSets = (t: { int: string; serial: string; pairs: string }): string => `
CREATE TABLE exposures_next (
  id ${t.serial},
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  session_id TEXT,
  device TEXT,
  ts ${t.int} NOT NULL,
  choice_count INTEGER NOT NULL,
  choices TEXT NOT NULL
);
INSERT INTO exposures_next (project, profile_id, session_id, device, ts, choice_count, choices)
SELECT project, profile_id, session_id, device, ts, 1, ${t.pairs} FROM exposures ORDER BY id;
DROP TABLE exposures;
ALTER TABLE exposures_next RENAME TO exposures;
CREATE INDEX exposures_time ON exposures (project, ts);
`;

// A unit's first assignments are written together (a new visitor's 20 in one insert) and read together (a unit's
// experiences), but the primary key (project, experience, unit) put them on one index page per experience: a new
// visitor's commit wrote about 20 index pages into the WAL, and a unit missing from the cache was read from as many.
// Keyed (project, unit, experience), a unit's rows are neighbours: a page or two, written and read at once. The
// inserts keep naming (project, experience, unit) as their conflict target: both databases match it to the key
// whatever the order. On SQLite the table also becomes WITHOUT ROWID (the key is the table), as in migration 4.
const assignmentsByUnit = (t: { int: string; withoutRowid: string }): string => `
CREATE TABLE assignments_next (
  project TEXT NOT NULL,
  unit TEXT NOT NULL,
  experience TEXT NOT NULL,
  variation TEXT NOT NULL,
  hash_version INTEGER NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, unit, experience)
)${t.withoutRowid};
INSERT INTO assignments_next (project, unit, experience, variation, hash_version, created_at)
SELECT project, unit, experience, variation, hash_version, created_at FROM assignments;
DROP TABLE assignments;
ALTER TABLE assignments_next RENAME TO assignments;
`;

// Experiment results correct an event's time for the sender's clock skew: a batch may carry `sentAt` (the sender's
// clock when it sent it), and the event happened at receivedAt - (sentAt - timestamp). Null for batches without it.
const eventSentAt = (t: { int: string }): string => `
ALTER TABLE events ADD COLUMN sent_at ${t.int};
`;

// Results read the events a project's metrics name, received since the earliest first exposure: without this index,
// a scan of the whole table. Keyed by name, then receipt time, its entries append at the end of each name's range:
// cheap to keep up at ingestion, unlike the random-keyed indexes.
const eventsByName = `
CREATE INDEX events_name ON events (project, name, received_at);
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

// An append-shaped event table: no service query reads events by profile or by product (recommendation models and
// identity are kept up per batch in their own tables, results read by name and receipt time), yet every stored event
// paid two index entries on random pages for them. What stays: the unique key (project, event_id), which the SDK's
// time-ordered ids append to, and (project, name, received_at), which appends at the end of each name's range.
const appendShapedEvents = `
DROP INDEX events_profile;
DROP INDEX events_product;
`;

// Management: items written through the API (null `item`: deleted, which hides a file item of the same name), the
// audit log of every write, and one revision counter that every node polls to pick up changes.
const managedItems = (t: { int: string; serial: string }): string => `
CREATE TABLE managed_items (
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  item TEXT,
  updated_at ${t.int} NOT NULL,
  PRIMARY KEY (project, kind, name)
);
CREATE TABLE audit_log (
  id ${t.serial},
  project TEXT NOT NULL,
  at ${t.int} NOT NULL,
  key_id TEXT NOT NULL,
  action TEXT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  before_item TEXT,
  after_item TEXT
);
CREATE INDEX audit_log_project ON audit_log (project, id);
CREATE TABLE managed_revision (
  id INTEGER PRIMARY KEY,
  revision ${t.int} NOT NULL
);
INSERT INTO managed_revision (id, revision) VALUES (1, 0);
`;

// Proof of consent: how the visitor decided (banner, api, gpc, tcf), the version of the banner they were shown, and the
// page. Null for records stored before.
const consentProof = `
ALTER TABLE consents ADD COLUMN source TEXT;
ALTER TABLE consents ADD COLUMN banner_version TEXT;
ALTER TABLE consents ADD COLUMN page TEXT;
`;

// Privacy requests (erasure, export) with the state that lets a crashed run resume (step, cursor, lease), the
// suppression list (ids erased once, whose later events are refused), and when each experiment ended, for the
// retention of exposures (server/privacy/).
const privacy = (t: { int: string }): string => `
CREATE TABLE privacy_requests (
  id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  subject_kind TEXT NOT NULL,
  subject TEXT,
  source_id TEXT,
  status TEXT NOT NULL,
  step TEXT NOT NULL,
  cursor TEXT,
  person TEXT,
  counts TEXT NOT NULL,
  result TEXT,
  key_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  updated_at ${t.int} NOT NULL,
  finished_at ${t.int},
  lease_until ${t.int} NOT NULL
);
CREATE INDEX privacy_requests_project ON privacy_requests (project, created_at);
CREATE INDEX privacy_requests_open ON privacy_requests (status, lease_until);
CREATE TABLE suppressions (
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  value TEXT NOT NULL,
  request_id TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  PRIMARY KEY (project, kind, value)
);
CREATE TABLE experiment_lifetimes (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  ended_at ${t.int},
  swept_at ${t.int},
  PRIMARY KEY (project, experience)
);
`;

export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'initial schema',
    sqlite: tables({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: tables({ int: 'BIGINT', serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' }),
  },
  {
    version: 2,
    name: 'profile users (identity carry-over for assignments)',
    sqlite: profileUsers({ int: 'INTEGER' }),
    postgres: profileUsers({ int: 'BIGINT' }),
  },
  {
    version: 3,
    name: 'recommendations: catalog, product scores, baskets, co-occurrence, recently viewed',
    sqlite: recommendations({ int: 'INTEGER', real: 'REAL' }),
    postgres: recommendations({ int: 'BIGINT', real: 'DOUBLE PRECISION' }),
  },
  {
    version: 4,
    name: 'recommendations: cheaper model updates (partial co-occurrence rank index, WITHOUT ROWID on SQLite)',
    sqlite: cheaperModelsSqlite,
    postgres: cheaperModelsPostgres,
  },
  {
    version: 5,
    name: 'exposures: one row per Choose answer, its choices as JSON pairs',
    sqlite: exposureSets({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY', pairs: 'json_array(json_array(experience, variation))' }),
    postgres: exposureSets({
      int: 'BIGINT', serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY', pairs: 'json_build_array(json_build_array(experience, variation))::text',
    }),
  },
  {
    version: 6,
    name: "assignments keyed by unit first: a unit's rows are neighbours",
    sqlite: assignmentsByUnit({ int: 'INTEGER', withoutRowid: ' WITHOUT ROWID' }),
    postgres: assignmentsByUnit({ int: 'BIGINT', withoutRowid: '' }),
  },
  {
    version: 7,
    name: "events: the batch's sentAt, for clock-skew correction in results",
    sqlite: eventSentAt({ int: 'INTEGER' }),
    postgres: eventSentAt({ int: 'BIGINT' }),
  },
  {
    version: 8,
    name: 'events by name and receipt time, for results',
    sqlite: eventsByName,
    postgres: eventsByName,
  },
  {
    version: 9,
    name: 'person links: every identify and alias link, for results',
    sqlite: personLinks({ int: 'INTEGER', anotherUserId: "json_extract(payload, '$.anotherUserId')" }),
    postgres: personLinks({ int: 'BIGINT', anotherUserId: "payload::json ->> 'anotherUserId'" }),
  },
  {
    version: 10,
    name: 'management: items written through the API, the audit log, the revision nodes poll',
    sqlite: managedItems({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: managedItems({ int: 'BIGINT', serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' }),
  },
  {
    version: 11,
    name: 'events append-shaped: no index by profile or by product',
    sqlite: appendShapedEvents,
    postgres: appendShapedEvents,
  },
  {
    version: 12,
    name: "recommendations: the models' inbox, applied after ingestion in chunks",
    sqlite: modelInbox({ serial: 'INTEGER PRIMARY KEY' }),
    postgres: modelInbox({ serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' }),
  },
  {
    version: 13,
    name: 'recommendations: product ids in byte order on PostgreSQL, as on SQLite, whatever the database collation',
    sqlite: '-- SQLite compares text byte-wise already',
    postgres: productIdsByteOrderPostgres,
  },
  {
    version: 14,
    name: 'proof of consent: how each decision was made, the version of what was shown, and the page',
    sqlite: consentProof,
    postgres: consentProof,
  },
  {
    version: 15,
    name: 'privacy: erasure and export requests, the suppression list, when experiments ended (retention)',
    sqlite: privacy({ int: 'INTEGER' }),
    postgres: privacy({ int: 'BIGINT' }),
  },
  {
    version: 16,
    name: "results read one experiment: its exposures kept apart by triggers, its reported exposures and people by index",
    sqlite: experimentExposuresSqlite,
    postgres: experimentExposuresPostgres,
  },
];
