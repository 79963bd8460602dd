import type { Migration } from '../storage/migrations.js';

// Consent's tables, as migrations: written per database where the SQL differs (types, identity columns). Listed with
// every domain's in server/schema.ts and run in version order; a shipped version is never edited: a change is the
// next version, here.

// Consent records, one row per category decided; stored once per (project, event_id).
const consents = (t: { int: string; serial: string }): string => `
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
`;

// Proof of consent: how the visitor decided (banner, api, gpc, tcf), the version of the banner they were shown, and the
// page. Null for records stored before.
const consentProof = `
ALTER TABLE consents ADD COLUMN source TEXT;
ALTER TABLE consents ADD COLUMN banner_version TEXT;
ALTER TABLE consents ADD COLUMN page TEXT;
`;

export const CONSENT_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema: consents',
    sqlite: consents({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: consents({ int: 'BIGINT', serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' }),
  },
  {
    version: 14,
    name: 'proof of consent: how each decision was made, the version of what was shown, and the page',
    sqlite: consentProof,
    postgres: consentProof,
  },
];
