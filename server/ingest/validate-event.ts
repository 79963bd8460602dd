import { EVENT_TYPES, MAX_ID_LENGTH, type EventType, type ServiceEvent } from '../../wire/event.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import { refuseJsonHazards } from '../http/json-hazards.js';

// Limits keep one request's cost bounded (the body is capped at 1 MiB anyway): an SDK never comes close.
export const MAX_BATCH = 500;
export const MAX_STRING_LENGTH = 1024;
export const MAX_MAP_KEYS = 100;
/** Serialized size of one `data` / `userAttributes` / `accountAttributes` map. */
export const MAX_MAP_BYTES = 16 * 1024;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(path: string, problem: string): never {
  throw new ServiceError('invalid_event', `${path}: ${problem}`);
}

/** An id field: absent (undefined or null) passes unless `missing` says why it may not be. */
function checkId(event: Json, field: string, path: string, missing?: string): void {
  const value = event[field];
  if (value === undefined || value === null) {
    if (missing !== undefined) invalid(`${path}.${field}`, missing);
    return;
  }
  if (typeof value !== 'string' || value.length === 0) invalid(`${path}.${field}`, 'must be a non-empty string');
  if (value.length > MAX_ID_LENGTH) invalid(`${path}.${field}`, `must be at most ${MAX_ID_LENGTH} characters`);
}

function checkMap(event: Json, field: string, path: string): void {
  const value = event[field];
  if (value === undefined || value === null) return;
  if (!isObject(value)) invalid(`${path}.${field}`, 'must be an object');
  const keys = Object.keys(value);
  if (keys.length > MAX_MAP_KEYS) invalid(`${path}.${field}`, `must have at most ${MAX_MAP_KEYS} keys`);
  for (const key of keys) {
    if (key.length > MAX_ID_LENGTH) invalid(`${path}.${field}`, `keys must be at most ${MAX_ID_LENGTH} characters`);
  }
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_MAP_BYTES) {
    invalid(`${path}.${field}`, `must be at most ${MAX_MAP_BYTES} bytes as JSON`);
  }
}

// Fields an event type cannot do without: the identity graph needs them.
const REQUIRED_BY_TYPE: Partial<Record<EventType, string[]>> = {
  identify: ['userId'],
  alias: ['userId', 'anotherUserId'],
  group: ['accountId'],
};

/**
 * Checks one batch element against the event shape (src/event.ts).
 * @throws ServiceError `invalid_event` with `batch[i].field: problem`.
 */
export function validateEvent(raw: unknown, index: number): ServiceEvent {
  const path = `batch[${index}]`;
  if (!isObject(raw)) invalid(path, 'must be an object');
  if (typeof raw.eventId !== 'string' || !UUID.test(raw.eventId)) invalid(`${path}.eventId`, 'must be a UUID');
  // UUIDs compare case-insensitively (RFC 9562): stored lowercased, a resend in another case is the same event.
  raw.eventId = raw.eventId.toLowerCase();
  if (typeof raw.type !== 'string' || !(EVENT_TYPES as readonly string[]).includes(raw.type)) {
    invalid(`${path}.type`, `must be one of ${EVENT_TYPES.join(', ')}`);
  }
  if (typeof raw.name !== 'string' || raw.name.trim().length === 0) invalid(`${path}.name`, 'must be a non-empty string');
  if (raw.name.length > MAX_STRING_LENGTH) invalid(`${path}.name`, `must be at most ${MAX_STRING_LENGTH} characters`);
  for (const field of ['profileId', 'sessionId', 'pageId']) checkId(raw, field, path, 'is required');
  if (Number.isNaN(isoTime(raw.timestamp))) {
    invalid(`${path}.timestamp`, 'must be an ISO 8601 date-time');
  }
  const required = REQUIRED_BY_TYPE[raw.type as EventType] ?? [];
  // Required means present and a non-empty string: a null userId must not reach the identity graph.
  for (const field of ['userId', 'anotherUserId', 'accountId']) {
    checkId(raw, field, path, required.includes(field) ? `is required for ${raw.type} events` : undefined);
  }
  for (const field of ['userAttributes', 'accountAttributes', 'data']) checkMap(raw, field, path);
  return raw as unknown as ServiceEvent;
}

/**
 * The batch's `sentAt` (ISO 8601, the sender's clock when it sent the batch) in epoch milliseconds, or null when
 * absent. With it an event's time is corrected for the sender's clock skew: `receivedAt - (sentAt - timestamp)`.
 * @example sentAtOf({ batch: [], sentAt: '2026-11-24T10:00:00.000Z' }) // → 1795514400000
 */
export function sentAtOf(body: unknown): number | null {
  const sentAt = isObject(body) ? body.sentAt : undefined;
  if (sentAt === undefined || sentAt === null) return null;
  const time = isoTime(sentAt);
  if (Number.isNaN(time)) throw new ServiceError('invalid_batch', 'sentAt: must be an ISO 8601 date-time');
  return time;
}

/**
 * Checks a track body `{batch:[event…]}`; the first invalid event refuses the whole batch.
 * @example validateBatch({ batch: [event] }) // → [event]
 */
export function validateBatch(body: unknown): ServiceEvent[] {
  if (!isObject(body) || !Array.isArray(body.batch)) {
    throw new ServiceError('invalid_batch', 'The body must be an object {batch:[event…]}.');
  }
  const batch: unknown[] = body.batch;
  if (batch.length === 0) throw new ServiceError('invalid_batch', 'batch: must contain at least one event');
  if (batch.length > MAX_BATCH) throw new ServiceError('invalid_batch', `batch: must contain at most ${MAX_BATCH} events`);
  refuseJsonHazards(body, 'invalid_event', '');
  return batch.map((event, i) => validateEvent(event, i));
}
