import { dispatchError } from './dom-events.js';
import type { ServiceEvent } from './event.js';
import type { Send } from './transport.js';

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
const WRAPPER_BYTES = '{"batch":[]}'.length;

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

/** Exponential backoff with full jitter, never shorter than what `Retry-After` asked for. */
export function backoffDelay(attempt: number, base: number, cap: number, retryAfterMs = 0, random = Math.random): number {
  const ceiling = Math.min(cap, base * 2 ** attempt);
  return Math.max(retryAfterMs, Math.floor(random() * ceiling));
}

/**
 * The in-memory outbox: batching, retries, splitting and page-exit sends, but no persistence across page
 * loads. `IdbOutbox` (idb-outbox.ts) is the durable one; this one is the fallback where IndexedDB is missing.
 */
export class MemoryOutbox implements Outbox {
  readonly #send: Send;
  readonly #o: Required<OutboxOptions>;
  #queue: ServiceEvent[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  #controller = new AbortController();
  #attempt = 0;
  /** After a 413 the next request carries at most this many events. */
  #maxBatch: number;

  constructor(send: Send, options: OutboxOptions = {}) {
    this.#send = send;
    this.#o = { ...OUTBOX_DEFAULTS, ...options };
    this.#maxBatch = this.#o.batchSize;
  }

  get pending(): number {
    return this.#queue.length;
  }

  push(event: ServiceEvent): void {
    this.#queue.push(event);
    // A running drain takes new events too; a scheduled retry must not be brought forward by new events.
    if (this.#running || this.#attempt > 0) return;
    if (this.#queue.length >= this.#o.batchSize) this.#schedule(0, true);
    else this.#schedule(this.#o.flushIntervalMs);
  }

  flush(): Promise<void> {
    this.#clearTimer();
    this.#running ??= this.#drain().finally(() => {
      this.#running = undefined;
    });
    return this.#running;
  }

  flushOnExit(): void {
    if (this.#queue.length === 0) return;
    for (const events of chunk(this.#queue, this.#o.batchSize, this.#o.maxBytes)) {
      // If the page survives (a hidden tab, the back/forward cache), the answer arrives and we settle the
      // events; if not, they were lost with the page in this in-memory outbox.
      void this.#send(events, { keepalive: true, signal: this.#controller.signal }).then((outcome) => {
        if (outcome.kind === 'ok') this.#remove(events);
      });
    }
  }

  purge(): void {
    this.#clearTimer();
    this.#controller.abort();
    this.#controller = new AbortController();
    this.#queue = [];
    this.#attempt = 0;
  }

  dispose(): void {
    this.purge();
  }

  async #drain(): Promise<void> {
    while (this.#queue.length > 0) {
      const [events] = chunk(this.#queue, Math.min(this.#maxBatch, this.#o.batchSize), this.#o.maxBytes);
      if (!events) return;
      const signal = this.#controller.signal;
      const outcome = await this.#send(events, { keepalive: false, signal });
      if (signal.aborted) return; // purged meanwhile: nothing of this batch may come back
      switch (outcome.kind) {
        case 'ok':
          this.#remove(events);
          this.#attempt = 0;
          this.#maxBatch = this.#o.batchSize;
          break;
        case 'split':
          if (events.length === 1) {
            this.#drop(events, 'event_too_large', 'The service refused an event as too large.');
          } else {
            this.#maxBatch = Math.ceil(events.length / 2);
          }
          break;
        case 'drop':
          this.#drop(events, `http_${outcome.status}`, outcome.message);
          break;
        case 'retry': {
          const delay = backoffDelay(this.#attempt++, this.#o.backoffBaseMs, this.#o.backoffCapMs, outcome.retryAfterMs);
          this.#schedule(delay, true);
          return;
        }
      }
    }
  }

  #drop(events: ServiceEvent[], code: string, message: string): void {
    this.#remove(events);
    dispatchError({ code, message, count: events.length });
  }

  #remove(events: ServiceEvent[]): void {
    const gone = new Set(events);
    this.#queue = this.#queue.filter((e) => !gone.has(e));
  }

  #schedule(delayMs: number, replace = false): void {
    if (this.#timer !== undefined && !replace) return;
    this.#clearTimer();
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      void this.flush();
    }, delayMs);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
