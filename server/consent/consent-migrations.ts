import { NORMAL_EMAIL_SQL } from '../privacy/privacy-migrations.js';
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

// Emails as the service now stores them (normalEmail): trimmed, lower-cased; one left empty is none. No unique key
// holds the email, so spellings that become one collide nowhere.
const normalEmails = (norm: (column: string) => string): string => `
UPDATE consents SET email = CASE WHEN ${norm('email')} = '' THEN NULL ELSE ${norm('email')} END
  WHERE email IS NOT NULL AND email <> ${norm('email')};
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
  {
    version: 21,
    name: 'consent records\' emails trimmed and lower-cased',
    sqlite: normalEmails(NORMAL_EMAIL_SQL.sqlite),
    postgres: normalEmails(NORMAL_EMAIL_SQL.postgres),
  },
];
