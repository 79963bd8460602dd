import type { Migration } from '../storage/migrations.js';

// Ingestion's tables, as migrations: written per database where the SQL differs (types, identity columns). Listed with
// every domain's in server/schema.ts and run in version order; a shipped version is never edited: a change is the
// next version, here.

// The events, each once per (project, event_id): the unique key is ingestion's exactly-once guarantee.
const events = (t: { int: string }): string => `
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

// An append-shaped event table: no service query reads events by profile or by product (recommendation models and
// identity are kept up per batch in their own tables, results read by name and receipt time), yet every stored event
// paid two index entries on random pages for them. What stays: the unique key (project, event_id), which the SDK's
// time-ordered ids append to, and (project, name, received_at), which appends at the end of each name's range.
const appendShapedEvents = `
DROP INDEX events_profile;
DROP INDEX events_product;
`;

export const INGEST_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial schema: events',
    sqlite: events({ int: 'INTEGER' }),
    postgres: events({ int: 'BIGINT' }),
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
    version: 11,
    name: 'events append-shaped: no index by profile or by product',
    sqlite: appendShapedEvents,
    postgres: appendShapedEvents,
  },
];
