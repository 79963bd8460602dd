import type { Migration } from '../storage/migrations.js';

// Privacy's tables, as migrations: written per database where the SQL differs (types, identity columns). Listed with
// every domain's in server/schema.ts and run in version order; a shipped version is never edited: a change is the
// next version, here.

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

/**
 * `normalEmail` (email-address.ts) in each database's SQL, for migrations of stored addresses: whitespace (space, tab,
 * line ends, vertical tab, form feed) trimmed, lower case. SQLite's lower() and PostgreSQL's under a C ctype change
 * ASCII letters only, so an address stored with other capitals keeps them (and is then found only as typed).
 * @example `UPDATE consents SET email = ${NORMAL_EMAIL_SQL.sqlite('email')}`
 */
export const NORMAL_EMAIL_SQL = {
  sqlite: (column: string): string => `lower(trim(${column}, char(32, 9, 10, 11, 12, 13)))`,
  postgres: (column: string): string => `lower(btrim(${column}, chr(32) || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)))`,
};

// Emails as the service now stores them (normalEmail): the suppression list's and privacy requests' subjects. The list's
// key (project, kind, value) would collide where two spellings of one address were suppressed: the first suppressed
// (then the least spelling) stays, the others go, so the address keeps its first request.
const normalEmails = (norm: (column: string) => string): string => `
DELETE FROM suppressions WHERE kind = 'email' AND EXISTS (
  SELECT 1 FROM suppressions AS earlier
  WHERE earlier.project = suppressions.project AND earlier.kind = 'email' AND ${norm('earlier.value')} = ${norm('suppressions.value')}
    AND (earlier.created_at < suppressions.created_at OR (earlier.created_at = suppressions.created_at AND earlier.value < suppressions.value))
);
UPDATE suppressions SET value = ${norm('value')} WHERE kind = 'email' AND value <> ${norm('value')};
UPDATE privacy_requests SET subject = ${norm('subject')} WHERE subject_kind = 'email' AND subject IS NOT NULL AND subject <> ${norm('subject')};
`;

export const PRIVACY_MIGRATIONS: readonly Migration[] = [
  {
    version: 15,
    name: 'privacy: erasure and export requests, the suppression list, when experiments ended (retention)',
    sqlite: privacy({ int: 'INTEGER' }),
    postgres: privacy({ int: 'BIGINT' }),
  },
  {
    version: 21,
    name: 'the suppression list\'s and privacy requests\' emails trimmed and lower-cased, one entry per address',
    sqlite: normalEmails(NORMAL_EMAIL_SQL.sqlite),
    postgres: normalEmails(NORMAL_EMAIL_SQL.postgres),
  },
];
