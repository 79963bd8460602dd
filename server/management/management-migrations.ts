import type { Migration } from '../storage/migrations.js';

// The management API's tables, as migrations: written per database where the SQL differs (types, identity columns).
// Listed with every domain's in server/schema.ts and run in version order; a shipped version is never edited: a change
// is the next version, here.

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

// Team access: keys created through the API (known by the SHA-256 of the whole key, never the key), the people of
// each organization with their roles, and who made each audited change (`actor`, JSON: {type, id, name}).
const access = (t: { int: string }): string => `
CREATE TABLE access_keys (
  id TEXT PRIMARY KEY,
  org TEXT NOT NULL,
  name TEXT NOT NULL,
  role TEXT NOT NULL,
  projects TEXT,
  key_hash TEXT NOT NULL,
  created_at ${t.int} NOT NULL,
  expires_at ${t.int},
  revoked_at ${t.int}
);
CREATE INDEX access_keys_org ON access_keys (org, created_at);
CREATE TABLE people (
  org TEXT NOT NULL,
  email TEXT NOT NULL,
  role TEXT NOT NULL,
  projects TEXT,
  created_at ${t.int} NOT NULL,
  updated_at ${t.int} NOT NULL,
  PRIMARY KEY (org, email)
);
ALTER TABLE audit_log ADD COLUMN actor TEXT;
`;

// The audit log is append-only: the database itself refuses to change or remove an entry, whoever asks.
const APPEND_ONLY_SQLITE = `
CREATE TRIGGER audit_log_no_update BEFORE UPDATE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_log_no_delete BEFORE DELETE ON audit_log BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
`;
const APPEND_ONLY_POSTGRES = `
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION 'the audit log is append-only'; END $$;
CREATE TRIGGER audit_log_no_change BEFORE UPDATE OR DELETE ON audit_log FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
`;

export const MANAGEMENT_MIGRATIONS: readonly Migration[] = [
  {
    version: 10,
    name: 'management: items written through the API, the audit log, the revision nodes poll',
    sqlite: managedItems({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: managedItems({ int: 'BIGINT', serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' }),
  },
  {
    version: 19,
    name: 'management: keys created through the API, people and roles, the audit\'s actor',
    sqlite: access({ int: 'INTEGER' }),
    postgres: access({ int: 'BIGINT' }),
  },
  {
    version: 20,
    name: 'management: the audit log is append-only',
    sqlite: APPEND_ONLY_SQLITE,
    postgres: APPEND_ONLY_POSTGRES,
  },
];
