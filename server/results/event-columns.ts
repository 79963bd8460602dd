// What results read of an event row, computed by the database: when it happened, and its `data`; and where the
// exposures reported when shown are found. One statement on both databases (PostgreSQL's `json_extract` is
// migration 16's, with SQLite's meaning).
import { EXPOSURE_EVENT } from '../../wire/event.js';

/** An event's time as sent, corrected by the batch's clock skew when it carried `sentAt`. */
const SENT_TIME = 'CASE WHEN sent_at IS NULL THEN ts ELSE received_at - (sent_at - ts) END';

/**
 * When an event happened on the service's clock, computed by the database (one number per row instead of three): its
 * `timestamp` corrected by the batch's clock skew (`receivedAt - (sentAt - timestamp)`, as Segment does) when the
 * batch carried `sentAt`, and never later than when the service received it.
 */
export const EVENT_TIME = `CASE WHEN ${SENT_TIME} < received_at THEN ${SENT_TIME} ELSE received_at END`;

/**
 * An event's `data`, taken out of its payload by the database (a small part of the payload, parsed in C): JSON text.
 */
export const DATA = "json_extract(payload, '$.data')";

/**
 * FROM and WHERE of the `Experiment Viewed` events of one experiment (parameters: project, experience), through
 * migration 16's partial index `events_viewed`, whose expression and `name` literal these repeat: an index of the
 * experiment's own events, exact where a time bound would not be (a deferred Choose answer leaves no exposure row to
 * bound them by). In receipt order, as the `(project, name, received_at)` index gave them before. Read it
 * throughIndex(…, 'events', 'events_viewed'): both indexes match, and only this one is the experiment's.
 */
export const VIEWED = `FROM events WHERE project = ? AND name = '${EXPOSURE_EVENT}'
    AND json_extract(payload, '$.data.experience') = ? ORDER BY received_at`;

/** The `data` column as an object, or undefined when the event has none (or it is not an object). */
export function parseData(raw: unknown): Record<string, unknown> | undefined {
  const parsed = typeof raw === 'string' ? JSON.parse(raw) as unknown : raw;
  return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : undefined;
}
