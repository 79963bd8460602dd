import type { ServiceEvent } from '../wire/event.js';

/**
 * Where accepted events wait until the service acknowledges them. `push` is the hot path: it never reads
 * storage and never throws. An event leaves only after a 2xx for the request that carried it, or when the
 * service refuses it for good (a `svc:error` says so).
 */
export interface Outbox {
  push(event: ServiceEvent): void;
  /** Sends everything pending now; resolves when the outbox is idle or waiting to retry. */
  flush(): Promise<void>;
  /** Page exit: sends what is pending with `keepalive` in chunks the browser accepts. */
  flushOnExit(): void;
  /** Drops everything pending and cancels every scheduled or running send (opt-out). */
  purge(): void;
  readonly pending: number;
  dispose(): void;
}

export interface OutboxOptions {
  /** Most events in one request. */
  batchSize?: number;
  /** Most body bytes in one request: under Chromium's 64 KiB keepalive budget, with room for the wrapper. */
  maxBytes?: number;
  /** How long an event may wait for more to share its request. */
  flushIntervalMs?: number;
  /** Retry backoff: full jitter between 0 and min(cap, base·2^attempt). */
  backoffBaseMs?: number;
  backoffCapMs?: number;
}

export const OUTBOX_DEFAULTS: Required<OutboxOptions> = {
  batchSize: 50,
  maxBytes: 60 * 1024,
  flushIntervalMs: 2000,
  backoffBaseMs: 1000,
  backoffCapMs: 60_000,
};

const encoder = new TextEncoder();
// The body around the events: `{"batch":[…],"sentAt":"<ISO 8601>"}` (transport.ts).
const WRAPPER_BYTES = '{"batch":[],"sentAt":"2026-01-01T00:00:00.000Z"}'.length;

/** UTF-8 bytes of an event's JSON: what it adds to a request body. */
export function eventBytes(event: ServiceEvent): number {
  return encoder.encode(JSON.stringify(event)).length;
}

/**
 * Splits items into runs of at most `batchSize` items and `maxBytes` of JSON body. `sizeOf` lets a caller
 * that already knows each event's size (the IndexedDB outbox stores it) skip serialising again.
 */
export function chunk<T = ServiceEvent>(
  items: T[], batchSize: number, maxBytes: number,
  sizeOf: (item: T) => number = (item) => eventBytes(item as ServiceEvent),
): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = WRAPPER_BYTES;
  for (const event of items) {
    const size = sizeOf(event) + 1; // + the comma between elements
    if (current.length > 0 && (current.length >= batchSize || bytes + size > maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = WRAPPER_BYTES;
    }
    current.push(event);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Exponential backoff with full jitter, never shorter than what `Retry-After` asked for, nor longer than a timer can
 * wait (2^31 − 1 ms, 24.8 days: a longer `setTimeout` fires at once, and the outbox would retry without pause).
 */
export function backoffDelay(attempt: number, base: number, cap: number, retryAfterMs = 0, random = Math.random): number {
  const ceiling = Math.min(cap, base * 2 ** attempt);
  return Math.min(2 ** 31 - 1, Math.max(retryAfterMs, Math.floor(random() * ceiling)));
}
