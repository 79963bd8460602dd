import type { Migration } from '../storage/migrations.js';

// Results' schema: migration 16 (listed with every domain's in server/schema.ts), what lets results read one experiment
// without reading the rest of its project.
//
// - `experiment_exposure_ids`: which exposure rows name each experiment, as lists of their ids (`ids`, a JSON array,
//   ascending), keyed (project, experience, first_id): an experiment's lists are one range of the key. Results read
//   an experiment's lists, then its exposure rows by id (the rowid on SQLite, the key on PostgreSQL), in id order.
//   A list is written once, by the indexer (exposure-indexer.ts), for one experiment of one chunk of new rows; the
//   migration backfills one list per experiment from the stored rows. Lists hold ids only: an exposure row deleted
//   since (an erasure, retention) is simply not found, a pair taken out of a shared row (retention) no longer read.
// - `exposures_unindexed`: the exposure rows written since, by id, which the indexer puts in lists and results read
//   beside them until then. An insert into `exposures` adds its id here (a trigger: one key, no JSON), so the Choose
//   API's writes change nothing and pay one appended key each.
// - `events_viewed`: the `Experiment Viewed` events (exposures reported when shown) by project and experiment; a
//   partial index, so other events pay nothing for it.
// - `person_links` by user id and by anotherUserId, to follow an exposed profile's links to its person's other
//   profiles (the key already leads from a profile).
// - PostgreSQL: `json_extract(text, '$.a.b')`, SQLite's function (a value as text, an object or array as JSON text),
//   so that results' reads of event payloads are one statement on both databases.

const personLinksByUser = `
CREATE INDEX person_links_user ON person_links (project, user_id, profile_id, other_user_id);
CREATE INDEX person_links_other ON person_links (project, other_user_id, user_id, profile_id) WHERE other_user_id <> '';
`;

const experimentExposuresSqlite = `
CREATE TABLE experiment_exposure_ids (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  first_id INTEGER NOT NULL,
  ids TEXT NOT NULL,
  PRIMARY KEY (project, experience, first_id)
) WITHOUT ROWID;
INSERT INTO experiment_exposure_ids (project, experience, first_id, ids)
SELECT project, experience, MIN(id), json_group_array(id) FROM (
  SELECT DISTINCT e.project, json_extract(j.value, '$[0]') AS experience, e.id
  FROM exposures e, json_each(e.choices) j
  WHERE j.type = 'array' AND json_extract(j.value, '$[0]') IS NOT NULL AND json_extract(j.value, '$[1]') IS NOT NULL
  ORDER BY e.id
) GROUP BY project, experience;
CREATE TABLE exposures_unindexed (exposure_id INTEGER PRIMARY KEY);
CREATE TRIGGER exposures_unindexed_insert AFTER INSERT ON exposures BEGIN
  INSERT INTO exposures_unindexed (exposure_id) VALUES (NEW.id);
END;
CREATE INDEX events_viewed ON events (project, json_extract(payload, '$.data.experience'), received_at)
WHERE name = 'Experiment Viewed';
${personLinksByUser}`;

// A row-level trigger: a statement-level one (with its transition table) cost the Choose API a tenth of its answers
// per second on PostgreSQL, where a first visit inserts one row per statement.
const experimentExposuresPostgres = `
CREATE TABLE experiment_exposure_ids (
  project TEXT NOT NULL,
  experience TEXT NOT NULL,
  first_id BIGINT NOT NULL,
  ids TEXT NOT NULL,
  PRIMARY KEY (project, experience, first_id)
);
INSERT INTO experiment_exposure_ids (project, experience, first_id, ids)
SELECT project, experience, MIN(id), json_agg(id ORDER BY id)::text FROM (
  SELECT DISTINCT e.project, p.pair ->> 0 AS experience, e.id
  FROM exposures e CROSS JOIN LATERAL json_array_elements(e.choices::json) AS p(pair)
  WHERE json_typeof(p.pair) = 'array' AND p.pair ->> 0 IS NOT NULL AND p.pair ->> 1 IS NOT NULL
) AS pairs GROUP BY project, experience;
CREATE TABLE exposures_unindexed (exposure_id BIGINT PRIMARY KEY);
CREATE FUNCTION exposures_unindexed_add() RETURNS trigger LANGUAGE plpgsql AS $body$
BEGIN
  INSERT INTO exposures_unindexed (exposure_id) VALUES (NEW.id);
  RETURN NULL;
END
$body$;
CREATE TRIGGER exposures_unindexed_insert AFTER INSERT ON exposures
  FOR EACH ROW EXECUTE FUNCTION exposures_unindexed_add();
CREATE FUNCTION json_extract(doc text, path text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $body$ SELECT (doc::json) #>> string_to_array(substr(path, 3), '.') $body$;
CREATE INDEX events_viewed ON events (project, json_extract(payload, '$.data.experience'), received_at)
WHERE name = 'Experiment Viewed';
${personLinksByUser}`;

export const RESULTS_MIGRATIONS: readonly Migration[] = [
  {
    version: 16,
    name: 'results read one experiment: lists of its exposure rows, its reported exposures and people by index',
    sqlite: experimentExposuresSqlite,
    postgres: experimentExposuresPostgres,
  },
];
