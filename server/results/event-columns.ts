// What results read of an event row, computed by the database: when it happened, and its `data`; and where the
// exposures reported when shown are found.
import { EXPOSURE_EVENT } from '../../wire/event.js';

/**
 * When an event happened on the service's clock, computed by the database (one number per row instead of three): its
 * `timestamp` corrected by the batch's clock skew (`receivedAt - (sentAt - timestamp)`, as Segment does) when the
 * batch carried `sentAt`, and never later than when the service received it.
 */
export const EVENT_TIME = {
  sqlite: 'min(received_at, CASE WHEN sent_at IS NULL THEN ts ELSE received_at - (sent_at - ts) END)',
  postgres: 'LEAST(received_at, CASE WHEN sent_at IS NULL THEN ts ELSE received_at - (sent_at - ts) END)',
} as const;

/**
 * An event's `data`, taken out of its payload by the database (a small part of the payload, parsed in C): JSON text
 * from SQLite, an object from PostgreSQL (pg parses `json` values).
 */
export const DATA = { sqlite: "json_extract(payload, '$.data')", postgres: "payload::json -> 'data'" } as const;

/**
 * FROM and WHERE of the `Experiment Viewed` events of one experiment (parameters: project, experience), through
 * migration 16's partial index `events_viewed`, whose expression and `name` literal these repeat: an index of the
 * experiment's own events, exact where a time bound would not be (a deferred Choose answer leaves no exposure row to
 * bound them by). In receipt order, as the `(project, name, received_at)` index gave them before.
 */
export const VIEWED = {
  sqlite: `FROM events INDEXED BY events_viewed WHERE project = ? AND name = '${EXPOSURE_EVENT}'
    AND json_extract(payload, '$.data.experience') = ? ORDER BY received_at`,
  postgres: `FROM events WHERE project = ? AND name = '${EXPOSURE_EVENT}'
    AND ((payload::json -> 'data') ->> 'experience') = ? ORDER BY received_at`,
} as const;

/** The `data` column as an object, or undefined when the event has none (or it is not an object). */
export function parseData(raw: unknown): Record<string, unknown> | undefined {
  const parsed = typeof raw === 'string' ? JSON.parse(raw) as unknown : raw;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}
