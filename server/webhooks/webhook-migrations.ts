import type { Migration } from '../storage/migrations.js';

// Webhooks: a project's endpoints, the events that happened (messages), and their delivery to each endpoint that
// asked for them: a durable queue every node takes from (a lease per delivery, so one node sends it), with each
// attempt logged.
//
// webhook_endpoints: `secret` is the Standard Webhooks signing secret (`whsec_…`), shown once at creation; `failing_since`
// is when its deliveries began to fail (null while they succeed), `disabled_reason` why the service disabled it.
// webhook_messages: one per event occurrence; `id` is the `webhook-id` every attempt to every endpoint carries; `data`
// the event's data (JSON) without its console link, which `path` gives relative to the service's public URL;
// `dedupe` (optional) makes an event the watches find (an SRM, a significant result) happen once per key, whichever
// node finds it first.
// webhook_deliveries: one per (message, endpoint); `status` `pending` (due at `next_at`), `succeeded`, `failed` (gave up
// after 24 h, or the endpoint was deleted or disabled); a node sending it holds `lease_until`.
// webhook_attempts: each attempt's answer (HTTP status, or the error when there was none) and how long it took.
const webhooks = (t: { int: string; serial: string }): string => `
CREATE TABLE webhook_endpoints (
  project TEXT NOT NULL,
  id TEXT NOT NULL,
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  format TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  secret TEXT NOT NULL,
  version INTEGER NOT NULL,
  created_at ${t.int} NOT NULL,
  updated_at ${t.int} NOT NULL,
  failing_since ${t.int},
  disabled_reason TEXT,
  PRIMARY KEY (project, id)
);
CREATE TABLE webhook_messages (
  id TEXT PRIMARY KEY,
  project TEXT NOT NULL,
  type TEXT NOT NULL,
  at ${t.int} NOT NULL,
  data TEXT NOT NULL,
  path TEXT NOT NULL,
  dedupe TEXT
);
CREATE UNIQUE INDEX webhook_messages_dedupe ON webhook_messages (project, dedupe);
CREATE TABLE webhook_deliveries (
  id ${t.serial},
  project TEXT NOT NULL,
  endpoint_id TEXT NOT NULL,
  message_id TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at ${t.int} NOT NULL,
  next_at ${t.int},
  lease_until ${t.int},
  last_at ${t.int},
  last_status INTEGER,
  last_latency_ms INTEGER,
  last_error TEXT,
  UNIQUE (message_id, endpoint_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (status, next_at);
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (project, endpoint_id, id);
CREATE TABLE webhook_attempts (
  delivery_id ${t.int} NOT NULL,
  attempt INTEGER NOT NULL,
  at ${t.int} NOT NULL,
  status INTEGER,
  latency_ms INTEGER NOT NULL,
  error TEXT,
  PRIMARY KEY (delivery_id, attempt)
);
`;

export const WEBHOOK_MIGRATIONS: readonly Migration[] = [
  {
    version: 28,
    name: 'webhooks: endpoints, messages, deliveries and their attempts',
    sqlite: webhooks({ int: 'INTEGER', serial: 'INTEGER PRIMARY KEY AUTOINCREMENT' }),
    postgres: webhooks({ int: 'BIGINT', serial: 'BIGSERIAL PRIMARY KEY' }),
  },
];
