import type { FastifyBaseLogger } from 'fastify';
import type { AppliedChunk } from './model-inbox.js';

/** Model events per chunk: large enough that popular rows are written once for many batches, small enough that a
 * chunk holds the SQLite writer (and the track requests queued behind it) for tens of milliseconds, not seconds. */
export const CHUNK_EVENTS = 5000;

/** How often a node looks for inbox rows it was not told about (another node's, or left by a crash). */
const POLL_MS = 1000;

export interface ModelApplierOptions {
  /** Runs one chunk (applyModelInbox) in a transaction of its own. */
  applyChunk: (maxEvents: number) => Promise<AppliedChunk>;
  /** Whether the inbox holds any row (a cheap read): at start, and at each poll. */
  waiting: () => Promise<boolean>;
  logger?: Pick<FastifyBaseLogger, 'warn'>;
  pollMs?: number;
}

/**
 * Keeps one node's recommendation models caught up with the inbox: told after each ingestion that added model
 * events, it applies chunks until the inbox is empty, one pass at a time, so that what arrives during a pass is
 * applied by the next one in a larger chunk. Under load the passes run back to back and each takes what has
 * gathered; when idle, nothing runs but a read every second that finds the inbox empty (rows another node or a crash
 * left are applied from it). A feed read calls `settle()` first: a visitor's own views, stored on this node, are in
 * the models before their feed is read, and so is what a crash had left when this node started.
 * @example const models = new ModelApplier({ applyChunk: (n) => storage.transaction(() => applyModelInbox('sqlite', n)) });
 */
export class ModelApplier {
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  /** Model events this node stored (told by `added`), and how many of them a finished pass has applied. */
  #added = 0;
  #applied = 0;
  #closed = false;
  #failing = false;
  readonly #poll: NodeJS.Timeout;
  /** The first look at the inbox, and the pass that applies what it found (rows a crash left). */
  readonly #startup: Promise<void>;

  constructor(private readonly options: ModelApplierOptions) {
    this.#startup = this.#applyIfWaiting();
    this.#poll = setInterval(() => {
      if (this.#running === null) void this.#applyIfWaiting();
    }, options.pollMs ?? POLL_MS);
    this.#poll.unref();
  }

  /** Model events stored by this node and not yet applied (its share of the backlog). */
  get behind(): number {
    return this.#added - this.#applied;
  }

  /** The last pass failed (logged): the models are stuck, not slow, until a pass succeeds. */
  get failing(): boolean {
    return this.#failing;
  }

  /** `count` model events were committed to the inbox: applies them soon. */
  added(count: number): void {
    if (count === 0) return;
    this.#added += count;
    void this.#pass();
  }

  /**
   * Resolves once every model event this node had stored when called is in the models, with what the inbox held at
   * start (or once a pass failed: logged, and retried by the next), or after `maxWaitMs` at most: a feed read under
   * an ingestion overload answers from models a moment old rather than late.
   */
  async settle(maxWaitMs = Infinity): Promise<void> {
    const caughtUp = this.#startup.then(() => (this.#added !== this.#applied ? this.#pass() : undefined));
    if (maxWaitMs === Infinity) return caughtUp;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([caughtUp, new Promise<void>((resolve) => { timer = setTimeout(resolve, maxWaitMs); })]);
    clearTimeout(timer);
  }

  /** Applies what is left, then stops polling. */
  async close(): Promise<void> {
    clearInterval(this.#poll);
    await this.settle();
    this.#closed = true;
  }

  async #applyIfWaiting(): Promise<void> {
    let waiting: boolean;
    try {
      waiting = await this.options.waiting();
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'reading the recommendation models\' inbox failed; will retry');
      return;
    }
    if (waiting) await this.#pass();
  }

  /** A pass that starts after this call: the running one's follower, shared by every caller meanwhile. */
  #pass(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running === null) {
      const upTo = this.#added;
      this.#running = this.#drain(upTo).finally(() => {
        this.#running = null;
      });
      return this.#running;
    }
    this.#queued ??= this.#running.then(() => {
      this.#queued = null;
      return this.#pass();
    });
    return this.#queued;
  }

  /** Chunks until the inbox is empty; `upTo` events this node had added are then applied. Never rejects. */
  async #drain(upTo: number): Promise<void> {
    try {
      let chunk: AppliedChunk;
      do chunk = await this.options.applyChunk(CHUNK_EVENTS);
      while (chunk.more);
      this.#applied = Math.max(this.#applied, upTo);
      this.#failing = false;
    } catch (error) {
      this.#failing = true;
      // The rows stay in the inbox (nothing of the chunk committed); the next pass or poll applies them.
      this.options.logger?.warn({ err: error }, 'applying the recommendation models failed; will retry');
    }
  }
}
