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

export const PRIVACY_MIGRATIONS: readonly Migration[] = [
  {
    version: 15,
    name: 'privacy: erasure and export requests, the suppression list, when experiments ended (retention)',
    sqlite: privacy({ int: 'INTEGER' }),
    postgres: privacy({ int: 'BIGINT' }),
  },
];
