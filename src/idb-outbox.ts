import { dispatchError } from './dom-events.js';
import type { ServiceEvent } from '../wire/event.js';
import { backoffDelay, chunk, eventBytes, OUTBOX_DEFAULTS, type Outbox, type OutboxOptions } from './outbox.js';
import { idbOutboxStore, type OutboxRecord, type OutboxStore } from './outbox-store.js';
import type { Send } from './transport.js';
import { uuid } from './uuid.js';

export interface IdbOutboxOptions extends OutboxOptions {
  /** Which events are ours: the track URL, so two configurations on one origin never mix. */
  scope: string;
  /** Most events kept; past it the oldest go (with an `svc:error`). */
  maxEvents?: number;
  /** Most bytes of event JSON kept. */
  maxStoredBytes?: number;
  /** How long an event may wait for delivery. */
  ttlMs?: number;
  /** Whether sending is allowed now (opt-in); checked before every flush. */
  active?: () => boolean;
  store?: OutboxStore;
}

/** One Web Lock per origin: whoever holds it is the only tab sending. */
export const FLUSH_LOCK = 'svc-outbox-flush';

const LIMITS = { maxEvents: 1000, maxStoredBytes: 2 * 1024 * 1024, ttlMs: 7 * 24 * 60 * 60 * 1000 };

/** Where an entry of the mirror lives: being written, in IndexedDB, or only in memory (storage failed). */
const WRITING = 0;
const STORED = 1;
const MEMORY = 2;
interface Entry extends OutboxRecord {
  state: typeof WRITING | typeof STORED | typeof MEMORY;
}

const byId = (a: Entry, b: Entry): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/**
 * The durable outbox. Every accepted event goes to an in-memory mirror at once (so `push` never touches
 * storage) and to IndexedDB within the same tick, one transaction per burst. Sending happens under a Web
 * Lock and starts from what IndexedDB holds, so events written by other tabs, or left by earlier pages,
 * go out too and no two tabs send the same events at once. An event is deleted only after a 2xx for the
 * request that carried it; one the service refuses for good, or one past the caps, goes with an
 * `svc:error` saying how many.
 *
 * It is the outbox ServiceJs uses. Where IndexedDB is missing or refuses writes, the same class keeps events in
 * memory (its first write fails and it stays in memory), so there is one delivery path to get right and the core
 * bundle carries no second outbox.
 */
export class IdbOutbox implements Outbox {
  readonly #send: Send;
  readonly #o: Required<OutboxOptions> & typeof LIMITS;
  readonly #scope: string;
  readonly #active: () => boolean;
  readonly #store: OutboxStore;
  readonly #mirror = new Map<string, Entry>();
  /** Delivered or dropped but maybe not yet deleted from IndexedDB: never loaded back. */
  readonly #gone = new Set<string>();
  /** Pushed this tick, written together by `#persist`. */
  #burst: Entry[] = [];
  /** Every IndexedDB write and delete, in order; never rejects. */
  #writes: Promise<void> = Promise.resolve();
  /** After a storage failure this page keeps its events in memory only. */
  #memoryOnly = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #running: Promise<void> | undefined;
  /** Something arrived during a run: go round once more before letting go, unless waiting to retry. */
  #again = false;
  /** A flush was asked for during a run (a caller, or a retry timer firing as the run ends): go round again. */
  #asked = false;
  #attempt = 0;
  #maxBatch: number;
  #controller = new AbortController();
  /** Bumped by purge/dispose: a run that sees it change stops and brings nothing back. */
  #generation = 0;
  #disposed = false;
  readonly #onOnline = (): void => {
    this.#attempt = 0;
    void this.flush();
  };

  constructor(send: Send, options: IdbOutboxOptions) {
    this.#send = send;
    this.#o = { ...OUTBOX_DEFAULTS, ...LIMITS, ...options };
    this.#scope = options.scope;
    this.#active = options.active ?? (() => true);
    this.#store = options.store ?? idbOutboxStore;
    this.#maxBatch = this.#o.batchSize;
    window.addEventListener('online', this.#onOnline);
    // Start-up: send what earlier pages left, after the page's own first events had a chance to join.
    this.#schedule(0);
  }

  /** Events this tab knows to be waiting (its own, plus other tabs' seen at its last read). */
  get pending(): number {
    return this.#mirror.size;
  }

  push(event: ServiceEvent): void {
    if (this.#disposed) return;
    const at = Date.now();
    // A UUIDv7: ids sort as strings, oldest first, and two tabs' ids never collide. (Entries an older SDK left, with
    // ids `<ms>-<tab>-<n>`, sort after these: they are still sent, and dropped last when the outbox is full.)
    const entry: Entry = { id: uuid(), at, size: 0, event, state: WRITING };
    this.#mirror.set(entry.id, entry);
    if (this.#burst.push(entry) === 1) queueMicrotask(() => this.#persist());
    if (this.#running) this.#again = true;
    // A scheduled retry must not be brought forward by new events.
    else if (this.#attempt === 0) {
      const full = this.#mirror.size >= this.#o.batchSize;
      this.#schedule(full ? 0 : this.#o.flushIntervalMs, full);
    }
  }

  flush(): Promise<void> {
    if (this.#disposed) return Promise.resolve();
    this.#clearTimer();
    if (this.#running) {
      this.#asked = true;
      return this.#running;
    }
    const run = this.#run().finally(() => {
      this.#running = undefined;
      // Events pushed after the run's last look: their timer was skipped while it ran.
      if (this.#asked || (this.#again && this.#attempt === 0)) this.#schedule(0);
    });
    this.#running = run;
    return run;
  }

  /** Resolves once no run is going and every write has landed (tests; nothing is started). */
  async idle(): Promise<void> {
    this.#persist(); // this tick's burst counts as work under way
    while (this.#running) await this.#running;
    await this.#writes;
  }

  flushOnExit(): void {
    if (this.#disposed) return;
    this.#persist(); // start the write now: the page may not live to the next microtask checkpoint
    // What IndexedDB has not confirmed yet goes first: a write takes milliseconds and a page torn down
    // before it lands has only this request. What is stored is safe with a later page anyway.
    const entries = [...this.#mirror.values()].sort((a, b) => +(a.state === STORED) - +(b.state === STORED) || byId(a, b));
    const signal = this.#controller.signal;
    // Chromium refuses keepalive bodies past 64 KiB in flight per page: the rest waits in IndexedDB.
    let budget = 64 * 1024;
    for (const batch of chunk(entries, this.#o.batchSize, this.#o.maxBytes, sizeOf)) {
      const cost = batch.reduce((sum, e) => sum + sizeOf(e) + 1, 12);
      if (cost > budget) continue; // too big for what is left: smaller batches after it may still fit
      budget -= cost;
      // The events stay in IndexedDB: if this page dies before the answer, a later page sends them again
      // and the service drops the duplicate by eventId. If it lives (a hidden tab), the answer settles them.
      void this.#send(batch.map((e) => e.event), { keepalive: true, signal }).then((outcome) => {
        if (outcome.kind === 'ok' && !signal.aborted) return this.#forget(batch);
        return undefined;
      });
    }
  }

  purge(): void {
    this.#stop();
    this.#mirror.clear();
    this.#gone.clear();
    this.#burst = [];
    this.#attempt = 0;
    this.#maxBatch = this.#o.batchSize;
    this.#again = this.#asked = false;
    // Issued after every write already issued, so IndexedDB runs it after them: nothing survives it.
    this.#write(() => this.#store.clear(this.#scope));
  }

  /** Stops this instance; what is stored stays for the next page or instance. */
  dispose(): void {
    this.#persist(); // this tick's events are written before anything issued after (a purge, a test's clear)
    this.#disposed = true;
    this.#stop();
    window.removeEventListener('online', this.#onOnline);
  }

  #stop(): void {
    this.#generation++;
    this.#clearTimer();
    this.#controller.abort();
    this.#controller = new AbortController();
  }

  async #run(): Promise<void> {
    const generation = this.#generation;
    do {
      this.#again = this.#asked = false;
      if (!this.#active()) return;
      const signal = this.#controller.signal;
      const locks = navigator.locks as LockManager | undefined;
      if (locks) {
        // Waiting in the lock's queue rather than skipping: when our turn comes we read IndexedDB afresh,
        // so whatever the previous holder delivered is gone from it and is not sent twice.
        await locks.request(FLUSH_LOCK, { signal }, () => this.#drain(generation)).catch(() => undefined);
      } else {
        // No Web Locks (insecure context, old browsers): tabs may overlap; the service deduplicates.
        await this.#drain(generation);
      }
    } while (generation === this.#generation && (this.#asked || (this.#again && this.#attempt === 0)));
  }

  /** One pass under the lock: read, evict what is past the limits, send oldest first. */
  async #drain(generation: number): Promise<void> {
    this.#persist();
    await this.#writes;
    if (generation !== this.#generation) return;
    let rest = await this.#load();
    if (generation !== this.#generation) return;
    const signal = this.#controller.signal;
    while (rest.length > 0) {
      const [batch = []] = chunk(rest, Math.min(this.#maxBatch, this.#o.batchSize), this.#o.maxBytes, sizeOf);
      const outcome = await this.#send(batch.map((e) => e.event), { keepalive: false, signal });
      if (generation !== this.#generation) return; // purged or disposed meanwhile
      if (outcome.kind === 'retry') {
        this.#schedule(backoffDelay(this.#attempt++, this.#o.backoffBaseMs, this.#o.backoffCapMs, outcome.retryAfterMs), true);
        return;
      }
      if (outcome.kind === 'ok') {
        // Deleted before the lock goes, so the next holder cannot read and resend them.
        await this.#forget(batch);
        rest = rest.slice(batch.length);
        this.#attempt = 0;
        this.#maxBatch = this.#o.batchSize;
        this.#again = true; // others may have written meanwhile: look again before letting go
        continue;
      }
      // Refused. A 413 asks for smaller requests; a 400 refuses the request for one bad event. Either way: halve until
      // it stands alone, so its neighbours still go. Other 4xx (keys, project) refuse any batch, and halving would only
      // repeat the refusal.
      if (batch.length > 1 && (outcome.kind === 'split' || outcome.status === 400 || outcome.status === 422)) {
        this.#maxBatch = Math.ceil(batch.length / 2);
        continue;
      }
      await (outcome.kind === 'split'
        ? this.#drop(batch, 'event_too_large', 'The service refused an event as too large.')
        : this.#drop(batch, `http_${outcome.status}`, outcome.message));
      rest = rest.slice(batch.length);
    }
    this.#attempt = 0; // emptied: no longer waiting to retry
  }

  /**
   * The mirror brought up to date with IndexedDB (other tabs' events join; ours that another tab
   * delivered leave), then the limits applied. Oldest first.
   */
  async #load(): Promise<Entry[]> {
    const storedBefore = [...this.#mirror.values()].filter((e) => e.state === STORED);
    const records = await this.#store.load(this.#scope).catch(() => undefined);
    if (records) {
      const inStore = new Set(records.map((r) => r.id));
      for (const e of storedBefore) if (!inStore.has(e.id)) this.#mirror.delete(e.id);
      for (const r of records) {
        if (!this.#mirror.has(r.id) && !this.#gone.has(r.id)) this.#mirror.set(r.id, { ...r, state: STORED });
      }
    }
    let entries = [...this.#mirror.values()].sort(byId);
    const expired = entries.filter((e) => e.at < Date.now() - this.#o.ttlMs);
    if (expired.length > 0) {
      entries = entries.filter((e) => !expired.includes(e)); // after a clock change, not always the first ids
      await this.#drop(expired, 'outbox_expired', `${expired.length} events older than 7 days were dropped.`);
    }
    const over = this.#overflow(entries);
    await this.#dropOverflow(over);
    return entries.slice(over.length);
  }

  #dropOverflow(over: Entry[]): Promise<void> | undefined {
    if (over.length > 0) return this.#drop(over, 'outbox_full', `The outbox was full: the ${over.length} oldest events were dropped.`);
    return undefined;
  }

  /** The oldest entries to let go so that at most `maxEvents` and `maxStoredBytes` remain. */
  #overflow(sorted: Entry[]): Entry[] {
    let bytes = 0;
    for (const e of sorted) bytes += e.size;
    let cut = 0;
    while (cut < sorted.length && (sorted.length - cut > this.#o.maxEvents || bytes > this.#o.maxStoredBytes)) {
      bytes -= sorted[cut++]!.size;
    }
    return sorted.slice(0, cut);
  }

  /** Writes this tick's burst in one transaction, after applying the limits to the mirror. */
  #persist(): void {
    const burst = this.#burst;
    if (burst.length === 0) return;
    this.#burst = [];
    for (const e of burst) e.size = eventBytes(e.event);
    void this.#dropOverflow(this.#overflow([...this.#mirror.values()].sort(byId)));
    const fresh = burst.filter((e) => this.#mirror.get(e.id) === e);
    if (fresh.length === 0) return;
    if (this.#memoryOnly) {
      for (const e of fresh) e.state = MEMORY;
      return;
    }
    const generation = this.#generation;
    this.#write(() =>
      this.#store.put(this.#scope, fresh).then(
        () => {
          for (const e of fresh) if (e.state === WRITING) e.state = STORED;
        },
        (error: unknown) => {
          if (generation === this.#generation) this.#storageFailed(error, fresh);
        },
      ),
    );
  }

  /**
   * IndexedDB refused a write. The burst stays in memory and so does everything after it on this page:
   * never an exception for the page. On a full quota the oldest quarter of the outbox goes too, to give
   * back room the browser asked for (reported like any other loss).
   */
  #storageFailed(error: unknown, fresh: Entry[]): void {
    this.#memoryOnly = true;
    for (const e of fresh) if (this.#mirror.get(e.id) === e) e.state = MEMORY;
    if (!(error instanceof DOMException && error.name === 'QuotaExceededError')) return;
    const sorted = [...this.#mirror.values()].sort(byId);
    const evict = sorted.slice(0, Math.ceil(sorted.length / 4));
    void this.#drop(evict, 'outbox_quota', `Storage is full: the ${evict.length} oldest events were dropped.`);
  }

  async #drop(entries: Entry[], code: string, message: string): Promise<void> {
    const done = this.#forget(entries);
    dispatchError({ code, message, count: entries.length });
    await done;
  }

  /** Removes delivered or dropped entries from the mirror at once and from IndexedDB in write order. */
  #forget(entries: Entry[]): Promise<void> {
    const ids: string[] = [];
    for (const e of entries) {
      this.#mirror.delete(e.id);
      if (e.state !== MEMORY) {
        this.#gone.add(e.id);
        ids.push(e.id);
      }
    }
    if (ids.length === 0) return Promise.resolve();
    return this.#write(async () => {
      await this.#store.remove(this.#scope, ids);
      for (const id of ids) this.#gone.delete(id);
    });
  }

  /**
   * Starts a storage operation now: IndexedDB runs read-write transactions on one store in the order they
   * were created, so issuing in program order is what orders a purge after the writes before it. A
   * failure is contained (the events stay sendable).
   */
  #write(operation: () => Promise<void>): Promise<void> {
    const done = operation().catch(() => undefined);
    this.#writes = this.#writes.then(() => done);
    return done;
  }

  #schedule(delayMs: number, replace = false): void {
    if (this.#disposed || (this.#timer !== undefined && !replace)) return;
    this.#clearTimer();
    this.#timer = setTimeout(() => void this.flush(), delayMs); // flush clears it
  }

  #clearTimer(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}

function sizeOf(e: Entry): number {
  return e.size || eventBytes(e.event);
}
