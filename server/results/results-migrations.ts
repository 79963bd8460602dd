import type { Migration } from '../storage/migrations.js';

// Results' schema: migration 16 (listed with every domain's in server/schema.ts), what lets results read one experiment
// without reading the rest of its project.
//
// - `experiment_exposures`: one row per experiment pair of an exposure row's choices (a pair with a variation: the
//   others are personalizations and feeds, no exposure to results), keyed (project, experience, exposure_id) so that
//   an experiment's exposures are one range of the key, in the order they were written, with the columns results
//   need beside it (no lookup into `exposures`). A Choose answer names an experience once; a row naming one twice
//   (none the service writes) keeps its first pair with a variation. Backfilled from the stored rows.
// - `exposures_unindexed`: the exposure rows written since, by id, which results' indexer (exposure-indexer.ts) adds
//   to `experiment_exposures` in chunks, sorted, on the bulk lane, and results read beside the index until then. An
//   insert into `exposures` adds its id here (a trigger: one row, no JSON), so the Choose API's writes change nothing
//   and pay one appended key for it, not one index entry per experiment. A delete (erasure, retention) takes the row's
//   pairs and its id away, an update of its choices (retention taking ended experiments out of shared rows) replaces
//   its pairs.
// - `events_viewed`: the `Experiment Viewed` events (exposures reported when shown) by project and experiment; a
//   partial index, so other events pay nothing for it.
// - `person_links` by user id and by anotherUserId, to follow an exposed profile's links to its person's other
//   profiles (the key already leads from a profile).
// - PostgreSQL: `json_extract(text, '$.a.b')`, SQLite's function (a value as text, an object or array as JSON text),
//   so that results' reads of event payloads are one statement on both databases.

/** The columns written, in the order of the pair reads below. */
const COLUMNS = 'project, experience, exposure_id, profile_id, variation, device, ts';

const personLinksByUser = `
CREATE INDEX person_links_user ON person_links (project, user_id, profile_id, other_user_id);
CREATE INDEX person_links_other ON person_links (project, other_user_id, user_id, profile_id) WHERE other_user_id <> '';
`;

/**
 * SQLite: the experiment pairs of exposure rows, in COLUMNS' order: `from` is what precedes the pairs in FROM ('' in a
 * trigger, `exposures e,` for the backfill), `row` the exposure row (NEW or e).
 */
const sqlitePairs = (from: string, row: string): string => `
  SELECT ${row}.project, json_extract(j.value, '$[0]'), ${row}.id, ${row}.profile_id, json_extract(j.value, '$[1]'),
    ${row}.device, ${row}.ts
  FROM ${from} json_each(${row}.choices) j
  WHERE j.type = 'array' AND json_extract(j.value, '$[0]') IS NOT NULL AND json_extract(j.value, '$[1]') IS NOT NULL
  ON CONFLICT (project, experience, exposure_id) DO NOTHING`;

const sqliteAdd = (row: string): string => `
  INSERT INTO experiment_exposures (${COLUMNS})${sqlitePairs('', row)};`;

const sqliteRemove = (row: string): string => `
  DELETE FROM experiment_exposures WHERE project = ${row}.project AND exposure_id = ${row}.id
  AND experience IN (SELECT json_extract(value, '$[0]') FROM json_each(${row}.choices) WHERE type = 'array');`;

const experimentExposuresSqlite = `
CREATE TABLE experiment_exposures (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  exposure_id INTEGER NOT NULL,
  profile_id TEXT NOT NULL,
  variation TEXT NOT NULL,
  device TEXT,
  ts INTEGER NOT NULL,
  PRIMARY KEY (project, experience, exposure_id)
) WITHOUT ROWID;
INSERT INTO experiment_exposures (${COLUMNS})${sqlitePairs('exposures e,', 'e')};
CREATE TABLE exposures_unindexed (exposure_id INTEGER PRIMARY KEY);
CREATE TRIGGER exposures_unindexed_insert AFTER INSERT ON exposures BEGIN
  INSERT INTO exposures_unindexed (exposure_id) VALUES (NEW.id);
END;
CREATE TRIGGER experiment_exposures_delete AFTER DELETE ON exposures BEGIN${sqliteRemove('OLD')}
  DELETE FROM exposures_unindexed WHERE exposure_id = OLD.id;
END;
CREATE TRIGGER experiment_exposures_update AFTER UPDATE OF choices ON exposures BEGIN${sqliteRemove('OLD')}${sqliteAdd('NEW')}
END;
CREATE INDEX events_viewed ON events (project, json_extract(payload, '$.data.experience'), received_at)
WHERE name = 'Experiment Viewed';
${personLinksByUser}`;

/** PostgreSQL: the experiment pairs of `rows` (a table or a transition table), in COLUMNS' order. */
const postgresPairs = (rows: string): string => `
  SELECT DISTINCT ON (e.id, p.pair ->> 0)
    e.project, p.pair ->> 0, e.id, e.profile_id, p.pair ->> 1, e.device, e.ts
  FROM ${rows} e CROSS JOIN LATERAL json_array_elements(e.choices::json) WITH ORDINALITY AS p(pair, at)
  WHERE json_typeof(p.pair) = 'array' AND p.pair ->> 0 IS NOT NULL AND p.pair ->> 1 IS NOT NULL
  ORDER BY e.id, p.pair ->> 0, p.at`;

// One function for the three statement-level triggers: each statement's rows at once (a Choose group commit inserts
// many in one statement), through its transition tables. Rows go per experiment through the key: joined with the
// transition table (which has no statistics), the planner read the whole table.
const experimentExposuresPostgres = `
CREATE TABLE experiment_exposures (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  exposure_id BIGINT NOT NULL,
  profile_id TEXT NOT NULL,
  variation TEXT NOT NULL,
  device TEXT,
  ts BIGINT NOT NULL,
  PRIMARY KEY (project, experience, exposure_id) INCLUDE (profile_id, variation, device, ts)
);
INSERT INTO experiment_exposures (${COLUMNS})${postgresPairs('exposures')};
CREATE FUNCTION experiment_exposures_sync() RETURNS trigger LANGUAGE plpgsql AS $body$
DECLARE
  gone RECORD;
BEGIN
  IF TG_OP <> 'INSERT' THEN
    FOR gone IN
      SELECT o.project, p.pair ->> 0 AS experience, array_agg(o.id) AS ids
      FROM old_rows o CROSS JOIN LATERAL json_array_elements(o.choices::json) AS p(pair)
      WHERE json_typeof(p.pair) = 'array' AND p.pair ->> 0 IS NOT NULL GROUP BY 1, 2
    LOOP
      DELETE FROM experiment_exposures
      WHERE project = gone.project AND experience = gone.experience AND exposure_id = ANY (gone.ids);
    END LOOP;
  END IF;
  IF TG_OP = 'DELETE' THEN
    DELETE FROM exposures_unindexed WHERE exposure_id IN (SELECT id FROM old_rows);
  ELSE
    INSERT INTO experiment_exposures (${COLUMNS})${postgresPairs('new_rows')}
    ON CONFLICT (project, experience, exposure_id) DO NOTHING;
  END IF;
  RETURN NULL;
END
$body$;
CREATE TABLE exposures_unindexed (exposure_id BIGINT PRIMARY KEY);
CREATE FUNCTION exposures_unindexed_add() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  INSERT INTO exposures_unindexed (exposure_id) SELECT id FROM new_rows;
  RETURN NULL;
END
$body$;
CREATE TRIGGER exposures_unindexed_insert AFTER INSERT ON exposures REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION exposures_unindexed_add();
CREATE TRIGGER experiment_exposures_delete AFTER DELETE ON exposures REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION experiment_exposures_sync();
CREATE TRIGGER experiment_exposures_update AFTER UPDATE ON exposures REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION experiment_exposures_sync();
CREATE FUNCTION json_extract(doc text, path text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $body$ SELECT (doc::json) #>> string_to_array(substr(path, 3), '.') $body$;
CREATE INDEX events_viewed ON events (project, json_extract(payload, '$.data.experience'), received_at)
WHERE name = 'Experiment Viewed';
${personLinksByUser}`;

export const RESULTS_MIGRATIONS: readonly Migration[] = [
  {
    version: 16,
    name: 'results read one experiment: its exposures apart (an index kept by an indexer), its reported exposures and people by index',
    sqlite: experimentExposuresSqlite,
    postgres: experimentExposuresPostgres,
  },
];
