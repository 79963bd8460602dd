import type { Migration } from '../storage/migrations.js';

// The recommendation models' tables, as migrations: written per database where the SQL differs. Listed with every
// domain's in server/schema.ts and run in version order; a shipped version is never edited.

// Recommendations (issue 6): the catalog and the models that feeds read. Models are maintained incrementally by
// server/recommendations/model-updater.ts in the ingestion transaction; nothing here is recomputed per request.
// - product_scores: Σ weight·2^((t − epoch)/half-life) per product (see decay-score.ts): ordering by the stored
//   value is ordering by the score decayed to any common "now", so reads need no arithmetic.
// - baskets: the distinct products of each session (kind 'session') and order (kind 'order') seen so far, so a
//   new product can be paired with the earlier ones without scanning events.
// - co_occurrence: directed pair counts per kind (a → b and b → a both stored, so "neighbours of a" is one
//   index range, already ordered by count).
// - profile_recent: the products a profile viewed, with the last time.
const recommendations = (t: { int: string; real: string }): string => `
CREATE TABLE catalog_products (
  project TEXT NOT NULL,
  product_id TEXT NOT NULL,
  available INTEGER NOT NULL,
  data TEXT NOT NULL,
  updated_at ${t.int} NOT NULL,
  PRIMARY KEY (project, product_id)
);

CREATE TABLE product_scores (
  project TEXT NOT NULL,
  product_id TEXT NOT NULL,
  score ${t.real} NOT NULL,
  PRIMARY KEY (project, product_id)
);
CREATE INDEX product_scores_rank ON product_scores (project, score DESC, product_id);

CREATE TABLE baskets (
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  basket_id TEXT NOT NULL,
  product_id TEXT NOT NULL,
  PRIMARY KEY (project, kind, basket_id, product_id)
);

CREATE TABLE co_occurrence (
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  a TEXT NOT NULL,
  b TEXT NOT NULL,
  count ${t.int} NOT NULL,
  PRIMARY KEY (project, kind, a, b)
);
CREATE INDEX co_occurrence_rank ON co_occurrence (project, kind, a, count DESC, b);

CREATE TABLE profile_recent (
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  product_id TEXT NOT NULL,
  last_seen ${t.int} NOT NULL,
  PRIMARY KEY (project, profile_id, product_id)
);
CREATE INDEX profile_recent_rank ON profile_recent (project, profile_id, last_seen DESC, product_id);
`;

// Cheaper model updates. Almost every co-occurring pair is seen once (nine in ten, in the feed bench's generated
// shop), yet the full rank index rewrote an entry for every increment. The rank index now holds only pairs seen at
// least twice (a partial index); reads take the ranked repeats from it and then the pairs seen once in id order from
// the primary key, which is the same list as ORDER BY count DESC, b (feed-program.ts). On SQLite the three model tables
// that are pure keys plus a value become WITHOUT ROWID (one B-tree per row instead of the rowid table plus the primary
// key index), and profile_recent loses its rank index: a profile's rows are one primary-key range, sorted in memory by
// the read.
const cheaperModelsSqlite = `
CREATE TABLE co_occurrence_next (
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  a TEXT NOT NULL,
  b TEXT NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (project, kind, a, b)
) WITHOUT ROWID;
INSERT INTO co_occurrence_next (project, kind, a, b, count) SELECT project, kind, a, b, count FROM co_occurrence;
DROP TABLE co_occurrence;
ALTER TABLE co_occurrence_next RENAME TO co_occurrence;
CREATE INDEX co_occurrence_repeated ON co_occurrence (project, kind, a, count DESC, b) WHERE count >= 2;

CREATE TABLE baskets_next (
  project TEXT NOT NULL,
  kind TEXT NOT NULL,
  basket_id TEXT NOT NULL,
  product_id TEXT NOT NULL,
  PRIMARY KEY (project, kind, basket_id, product_id)
) WITHOUT ROWID;
INSERT INTO baskets_next (project, kind, basket_id, product_id) SELECT project, kind, basket_id, product_id FROM baskets;
DROP TABLE baskets;
ALTER TABLE baskets_next RENAME TO baskets;

CREATE TABLE profile_recent_next (
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  product_id TEXT NOT NULL,
  last_seen INTEGER NOT NULL,
  PRIMARY KEY (project, profile_id, product_id)
) WITHOUT ROWID;
INSERT INTO profile_recent_next (project, profile_id, product_id, last_seen)
SELECT project, profile_id, product_id, last_seen FROM profile_recent;
DROP TABLE profile_recent;
ALTER TABLE profile_recent_next RENAME TO profile_recent;
`;

const cheaperModelsPostgres = `
DROP INDEX co_occurrence_rank;
CREATE INDEX co_occurrence_repeated ON co_occurrence (project, kind, a, count DESC, b) WHERE count >= 2;
DROP INDEX profile_recent_rank;
`;

// The recommendation models' inbox: ingestion appends one row per batch with model events (size: how many), an applier
// folds them into the models in chunks (server/recommendations/model-inbox.ts).
const modelInbox = (t: { serial: string }): string => `
CREATE TABLE model_inbox (
  id ${t.serial},
  project TEXT NOT NULL,
  size INTEGER NOT NULL,
  events TEXT NOT NULL
);
`;

// Product ids order byte-wise on PostgreSQL as on SQLite (ties in every feed break by product id): a database
// created with another collation (ICU's en-US puts "a" before "B") would answer other lists than SQLite's.
const productIdsByteOrderPostgres = `
ALTER TABLE catalog_products ALTER COLUMN product_id TYPE TEXT COLLATE "C";
ALTER TABLE product_scores ALTER COLUMN product_id TYPE TEXT COLLATE "C";
ALTER TABLE baskets ALTER COLUMN product_id TYPE TEXT COLLATE "C";
ALTER TABLE co_occurrence ALTER COLUMN a TYPE TEXT COLLATE "C", ALTER COLUMN b TYPE TEXT COLLATE "C";
ALTER TABLE profile_recent ALTER COLUMN product_id TYPE TEXT COLLATE "C";
`;

// The feed answers the service gave (issue 49): each answer's recommendationId, what it was for and what it held, so
// that the feed report counts only impressions and clicks of lists the service issued, with the feed, strategy and
// position it recorded (a browser's own claims are not read). `products` is the answer's product ids as a JSON array,
// in order: a card's position is its index there. Keyed by the id: the report reads a row per impression or click.
const issuedRecommendations = (t: { int: string }): string => `
CREATE TABLE recommendations (
  project TEXT NOT NULL,
  recommendation_id TEXT NOT NULL,
  feed_id INTEGER NOT NULL,
  strategy TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  products TEXT NOT NULL,
  issued_at ${t.int} NOT NULL,
  PRIMARY KEY (project, recommendation_id)
);
CREATE INDEX recommendations_issued ON recommendations (project, issued_at);
`;

// The catalog's prices over time (issue 49): an order that carries no price is priced as the catalog priced the product
// when it was ordered. A row per product each time a catalog write changed its price or currency (`since`: that
// write's time); existing products start with the price they have, since their last write.
const catalogPrices = (t: { int: string; real: string }): string => `
CREATE TABLE catalog_prices (
  project TEXT NOT NULL,
  product_id TEXT NOT NULL,
  since ${t.int} NOT NULL,
  price ${t.real},
  currency TEXT,
  PRIMARY KEY (project, product_id, since)
);
`;

const catalogPricesSqlite = `${catalogPrices({ int: 'INTEGER', real: 'REAL' })}
INSERT INTO catalog_prices (project, product_id, since, price, currency)
SELECT project, product_id, updated_at, json_extract(data, '$.price'), json_extract(data, '$.currency') FROM catalog_products;
`;

const catalogPricesPostgres = `${catalogPrices({ int: 'BIGINT', real: 'DOUBLE PRECISION' })}
ALTER TABLE catalog_prices ALTER COLUMN product_id TYPE TEXT COLLATE "C";
INSERT INTO catalog_prices (project, product_id, since, price, currency)
SELECT project, product_id, updated_at, CAST(json_extract(data, '$.price') AS DOUBLE PRECISION), json_extract(data, '$.currency')
FROM catalog_products;
`;

// What each profile put in its cart and ordered, product by product (issue 50): a feed's `exclude` leaves out the open
// cart (added after the profile's last order of the product) and what it ordered within N days. Kept up by the model
// applier like profile_recent (events have no index by profile); seeded from the events already stored. Times are
// event times clamped to receipt, as the models take them; 0: never.
const profileProducts = (t: { int: string; key: string; rowid: string }): string => `
CREATE TABLE profile_products (
  project TEXT NOT NULL,
  profile_id TEXT NOT NULL,
  product_id TEXT ${t.key} NOT NULL,
  carted_at ${t.int} NOT NULL,
  ordered_at ${t.int} NOT NULL,
  PRIMARY KEY (project, profile_id, product_id)
)${t.rowid};
INSERT INTO profile_products (project, profile_id, product_id, carted_at, ordered_at)
SELECT project, profile_id, product_id,
  MAX(CASE WHEN name = 'Added to cart' THEN CASE WHEN ts < received_at THEN ts ELSE received_at END ELSE 0 END),
  MAX(CASE WHEN name = 'Product ordered' THEN CASE WHEN ts < received_at THEN ts ELSE received_at END ELSE 0 END)
FROM events
WHERE type = 'product' AND name IN ('Added to cart', 'Product ordered') AND product_id IS NOT NULL AND product_id <> ''
GROUP BY project, profile_id, product_id;
`;

// The recommendationId of card events (issue 49) as a column of its own, which ingestion fills from the event it has
// already parsed (server/ingest/ingest-program.ts): the feed report joins every impression of a feed to the issued
// answers, and taking the id out of each payload was most of that join's work (on PostgreSQL, a JSON parse per row).
// Only ids an answer could have (a string of at most 64 characters) are kept; stored events get theirs here.
// PostgreSQL gets SQLite's `instr` (as strpos), with which the report places impressions in the database.
const RECOMMENDATION_ID_LENGTH = 64;
const CARD_NAMES = "name IN ('Product impression', 'Product clicked')";

const eventRecommendationIdSqlite = `
ALTER TABLE events ADD COLUMN recommendation_id TEXT;
UPDATE events SET recommendation_id = json_extract(payload, '$.data.recommendationId')
WHERE ${CARD_NAMES} AND json_type(payload, '$.data.recommendationId') = 'text'
  AND length(json_extract(payload, '$.data.recommendationId')) <= ${RECOMMENDATION_ID_LENGTH};
`;

const eventRecommendationIdPostgres = `
ALTER TABLE events ADD COLUMN recommendation_id TEXT;
UPDATE events SET recommendation_id = json_extract(payload, '$.data.recommendationId')
WHERE ${CARD_NAMES} AND json_typeof((payload::json) #> '{data,recommendationId}') = 'string'
  AND length(json_extract(payload, '$.data.recommendationId')) <= ${RECOMMENDATION_ID_LENGTH};
CREATE FUNCTION instr(haystack text, needle text) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $body$ SELECT strpos(haystack, needle) $body$;
`;

// The feed report's impressions and clicks, counted as card events arrive (issue 49): per feed, UTC day of the event's
// time (EVENT_TIME: corrected for clock skew, never after receipt), strategy and place in the issued list, as the
// report counted them from events (only ids the service issued, only products of that answer, the feed, strategy
// and place it recorded). No person's ids. Kept up by the models' applier from the inbox's `cards` (feed-card-counts.ts);
// stored card events are counted here once, from the same join the report made.
const CARD_DAY = 'CASE WHEN at >= 0 THEN at / 86400000 ELSE (at + 1) / 86400000 - 1 END';
const CARD_TIME = 'CASE WHEN (CASE WHEN sent_at IS NULL THEN ts ELSE received_at - (sent_at - ts) END) < received_at '
  + 'THEN (CASE WHEN sent_at IS NULL THEN ts ELSE received_at - (sent_at - ts) END) ELSE received_at END';
const feedCardCounts = (t: { int: string; key: string; rowid: string; place: string }): string => `
CREATE TABLE feed_card_counts (
  project TEXT NOT NULL,
  feed_id INTEGER NOT NULL,
  day INTEGER NOT NULL,
  strategy TEXT ${t.key} NOT NULL,
  position INTEGER NOT NULL,
  impressions ${t.int} NOT NULL,
  clicks ${t.int} NOT NULL,
  PRIMARY KEY (project, feed_id, day, strategy, position)
)${t.rowid};
ALTER TABLE model_inbox ADD COLUMN cards TEXT;
INSERT INTO feed_card_counts (project, feed_id, day, strategy, position, impressions, clicks)
SELECT project, feed_id, day, strategy, position,
  SUM(CASE WHEN name = 'Product impression' THEN 1 ELSE 0 END) AS impressions,
  SUM(CASE WHEN name = 'Product clicked' THEN 1 ELSE 0 END) AS clicks
FROM (
  SELECT e.project, r.feed_id, e.name, ${CARD_DAY} AS day, r.strategy, ${t.place} AS position
  FROM (SELECT project, name, product_id, recommendation_id, ${CARD_TIME} AS at FROM events
        WHERE ${CARD_NAMES} AND recommendation_id IS NOT NULL AND product_id IS NOT NULL) e
  JOIN recommendations r ON r.project = e.project AND r.recommendation_id = e.recommendation_id
) cards
WHERE position IS NOT NULL
GROUP BY project, feed_id, day, strategy, position;
`;

export const RECOMMENDATION_MIGRATIONS: readonly Migration[] = [
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
    version: 22,
    name: 'recommendations: the feed answers issued, by recommendationId (feed, strategy, profile, products, time)',
    sqlite: issuedRecommendations({ int: 'INTEGER' }),
    postgres: issuedRecommendations({ int: 'BIGINT' }),
  },
  {
    version: 23,
    name: "recommendations: the catalog's prices over time, for orders that carry none",
    sqlite: catalogPricesSqlite,
    postgres: catalogPricesPostgres,
  },
  {
    version: 24,
    name: "recommendations: each profile's cart additions and orders by product, for feeds that exclude them",
    sqlite: profileProducts({ int: 'INTEGER', key: '', rowid: ' WITHOUT ROWID' }),
    postgres: profileProducts({ int: 'BIGINT', key: 'COLLATE "C"', rowid: '' }),
  },
  {
    version: 25,
    name: 'recommendations: card events keep their recommendationId in a column; instr on PostgreSQL',
    sqlite: eventRecommendationIdSqlite,
    postgres: eventRecommendationIdPostgres,
  },
  {
    version: 26,
    name: "recommendations: the feed report's impressions and clicks by feed, day, strategy and place, kept as events arrive",
    sqlite: feedCardCounts({
      int: 'INTEGER', key: '', rowid: ' WITHOUT ROWID',
      place: '(SELECT MIN(CAST(j.key AS INTEGER)) + 1 FROM json_each(r.products) j WHERE j.type = \'text\' AND j.value = e.product_id)',
    }),
    postgres: feedCardCounts({
      int: 'BIGINT', key: 'COLLATE "C"', rowid: '',
      place: '(SELECT MIN(j.place) FROM json_array_elements_text(r.products::json) WITH ORDINALITY AS j(value, place) WHERE j.value = e.product_id)',
    }),
  },
];
