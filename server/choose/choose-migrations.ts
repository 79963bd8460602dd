import type { Migration } from '../storage/migrations.js';

// The Choose API's tables, as migrations: written per database where the SQL differs (types, identity columns). Listed
// with every domain's in server/schema.ts and run in version order; a shipped version is never edited: a change is the
// next version, here.

// First assignments, one per (project, experience, unit), and exposures.
const chooseTables = (t: { int: string; serial: string }): string => `
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

// What results break an experiment down by, kept with each exposure row: the browser family and the page's utm_source
// and utm_medium (JSON text; NULL for rows written before, and when the request said nothing of them).
const exposureContext = `
ALTER TABLE exposures ADD COLUMN context TEXT;
`;

export const CHOOSE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema: assignments, exposures',
    sqlite: chooseTables({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: chooseTables({ int: 'BIGINT', serial: 'BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY' }),
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
    version: 18,
    name: 'exposures: the context results break down by (browser, utm_source, utm_medium)',
    sqlite: exposureContext,
    postgres: exposureContext,
  },
];
