import type { FastifyBaseLogger } from 'fastify';
import type { ServiceEvent } from '../../wire/event.js';
import type { Storage } from '../storage/storage.js';
import { APPLY_MODELS, CHUNK_EVENTS, modelInboxWaiting, type AppliedChunk } from './model-inbox.js';

/**
 * How long model events wait for more to join their chunk. A commit writes every page it changed in full, so a chunk
 * of a quarter second's batches writes a popular product's pages once where a chunk per batch wrote them once per
 * batch (measured in the ingestion bench: docs/ingestion-internals.md).
 */
export const GATHER_MS = 250;

/** How often a node looks for inbox rows it was not told about (another node's, left by a crash, or failed). */
const POLL_MS = 1000;

export interface ModelApplierOptions {
  /** Runs one chunk (applyModelInbox) in a transaction of its own. */
  applyChunk: (maxEvents: number) => Promise<AppliedChunk>;
  /** Model events the inbox holds, any node's (a cheap read): at start, and at each poll. */
  waiting: () => Promise<number>;
  logger?: Pick<FastifyBaseLogger, 'warn'>;
  pollMs?: number;
  gatherMs?: number;
}

/**
 * Keeps one node's recommendation models caught up with the inbox: told after each ingestion how many model events it
 * added and whose, it lets them gather for `GATHER_MS` (or until a chunk's worth waits), then applies chunks, one
 * pass at a time, each pass as many events as it was behind when it started (what arrives meanwhile is the next
 * pass's, so `behind` follows the backlog and a pass ends while other nodes keep the shared inbox full). When idle,
 * nothing runs but a read every second that finds the inbox empty: rows another node or a crash left are applied
 * from it, as many events as it found, and so are rows a failed pass left (failures are retried by that poll only);
 * an empty inbox also ends a failure whose rows another node applied. A feed read calls
 * `settle({project, profileId})` first: when that visitor has events this node stored and has not applied, the pass
 * runs at once, so a visitor's own views are in the models before their feed is read; so is what the inbox held when
 * this node started. Aggregates (popular, viewed together) may be a quarter second behind. With several nodes on
 * one PostgreSQL, a chunk may hold other nodes' rows, which are counted as this node's: `behind` and a visitor's
 * wait are then approximate (their views may trail by a pass).
 * @example
 * const models = new ModelApplier({
 *   applyChunk: (n) => storage.place(APPLY_MODELS, n), waiting: () => storage.run(modelInboxWaiting),
 * });
 */
export class ModelApplier {
  #running: Promise<void> | null = null;
  #queued: Promise<void> | null = null;
  #polling: Promise<void> | null = null;
  /** Model events this node stored (told by `added`), and how many of them have been applied. */
  #added = 0;
  #applied = 0;
  /** What the running pass applies up to (an `#added` count). */
  #runningUpTo = 0;
  /** `project\nprofile` with model events not applied yet → the `#added` count that includes their latest. */
  readonly #pending = new Map<string, number>();
  #gathering: NodeJS.Timeout | undefined;
  #closed = false;
  #failing = false;
  readonly #poll: NodeJS.Timeout;
  /** The first look at the inbox, and the pass that applies what it found (rows a crash left). */
  readonly #startup: Promise<void>;

  constructor(private readonly options: ModelApplierOptions) {
    this.#startup = this.#applyIfWaiting();
    this.#poll = setInterval(() => {
      if (this.#running === null && this.#polling === null) {
        this.#polling = this.#applyIfWaiting().finally(() => {
          this.#polling = null;
        });
      }
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

  /**
   * A batch of `project` was stored and `count` model events of it went into the inbox (ingestion's hand-on): applies
   * them soon. Its visitors are those of its product events.
   */
  stored(project: string, events: readonly ServiceEvent[], count: number): void {
    if (count > 0) this.added(count, project, new Set(events.filter((e) => e.type === 'product').map((e) => e.profileId)));
  }

  /** `count` model events of `profiles` (of `project`) were committed to the inbox: applies them soon. */
  added(count: number, project: string, profiles: Iterable<string>): void {
    if (count === 0) return;
    this.#added += count;
    // While failing, no read waits for them (settle), so there is nothing to remember.
    if (!this.#failing) for (const profile of profiles) this.#pending.set(`${project}\n${profile}`, this.#added);
    this.#schedule();
  }

  /**
   * Resolves once the model events this node had stored when called are in the models — all of them, or with
   * `profileId` those of that visitor (none: at once) — with what the inbox held at start; or once a pass failed
   * (logged); or after `maxWaitMs` at most, so that a feed read under an ingestion overload answers from models a
   * moment old rather than late. With a visitor, nothing waits while the models are failing: the poll retries them.
   */
  async settle(options: { project?: string; profileId?: string; maxWaitMs?: number } = {}): Promise<void> {
    const { project, profileId, maxWaitMs = Infinity } = options;
    const caughtUp = this.#startup.then(async () => {
      // A pass may end before reaching them (older rows it was not told about came first): then another.
      for (;;) {
        if (profileId !== undefined && this.#failing) return;
        const upTo = profileId === undefined ? this.#added : (this.#pending.get(`${project}\n${profileId}`) ?? 0);
        if (upTo <= this.#applied) return;
        await (this.#running !== null && upTo <= this.#runningUpTo ? this.#running : this.#pass());
        if (this.#failing || this.#closed) return;
      }
    });
    if (maxWaitMs === Infinity) return caughtUp;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([caughtUp, new Promise<void>((resolve) => { timer = setTimeout(resolve, maxWaitMs); })]);
    clearTimeout(timer);
  }

  /** Applies this node's events, then stops: nothing runs once it has resolved (other nodes' rows are theirs). */
  async close(): Promise<void> {
    clearInterval(this.#poll);
    await this.settle();
    this.#closed = true;
    clearTimeout(this.#gathering);
    await Promise.all([this.#polling, this.#running, this.#queued]);
  }

  /** A pass once the events gathered (at once past a chunk's worth), unless one is running or due, or they fail. */
  #schedule(): void {
    if (this.#running !== null || this.#closed || this.#failing) return;
    if (this.behind >= CHUNK_EVENTS) {
      void this.#passAfterStartup();
      return;
    }
    this.#gathering ??= setTimeout(() => {
      this.#gathering = undefined;
      void this.#passAfterStartup();
    }, this.options.gatherMs ?? GATHER_MS);
  }

  /** A pass once the startup's look at the inbox is done: rows it found come first and are not this node's. */
  #passAfterStartup(): Promise<void> {
    return this.#startup.then(() => this.#pass());
  }

  async #applyIfWaiting(): Promise<void> {
    const added = this.#added;
    const applied = this.#applied;
    let waiting: number;
    try {
      waiting = await this.options.waiting();
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'reading the recommendation models\' inbox failed; will retry');
      return;
    }
    // Empty: whatever this node had stored before the read was applied, here or by another node.
    if (waiting === 0) this.#credit(added);
    // What the read found beyond this node's own backlog is rows it was not told about (another node's, a crash's).
    else if (this.#running === null) await this.#pass(waiting + this.#added - added, Math.max(0, waiting - (added - applied)));
  }

  /**
   * A pass that starts after this call (the running one's follower, shared by every caller meanwhile): it applies
   * what this node is behind when it starts, or `events` (what a poll found), whichever is more; the first `untold`
   * events it applies are not this node's.
   */
  #pass(events = 0, untold = 0): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running === null) {
      clearTimeout(this.#gathering);
      this.#gathering = undefined;
      const upTo = this.#added;
      this.#runningUpTo = upTo;
      this.#running = this.#drain(upTo, Math.max(events, upTo - this.#applied), untold).finally(() => {
        this.#running = null;
        // What arrived meanwhile gathers for the next pass.
        if (this.behind > 0 && this.#queued === null) this.#schedule();
      });
      return this.#running;
    }
    this.#queued ??= this.#running.then(() => {
      this.#queued = null;
      return this.#pass();
    });
    return this.#queued;
  }

  /**
   * Chunks until `events` model events are applied or the inbox is empty. Once it is empty, the `upTo` events this node
   * had added are applied; a pass that stopped before has credited what its chunks applied, at most `upTo` (rows it
   * was not told about, such as a crash's, may have come first: the inbox is applied oldest first). Never rejects.
   */
  async #drain(upTo: number, events: number, untold: number): Promise<void> {
    try {
      const from = this.#applied;
      let chunk: AppliedChunk;
      let applied = 0;
      do {
        chunk = await this.options.applyChunk(CHUNK_EVENTS);
        applied += chunk.events;
        // Credited as each chunk commits, past the `untold` events (other rows in it may be counted as ours, never
        // past `upTo`).
        this.#applied = Math.max(this.#applied, Math.min(upTo, from + Math.max(0, applied - untold)));
      } while (chunk.more && applied < events);
      this.#credit(chunk.more ? this.#applied : upTo);
    } catch (error) {
      this.#failing = true;
      this.#pending.clear();
      // The chunk's rows stay in the inbox (nothing of it committed); the poll retries them.
      this.options.logger?.warn({ err: error }, 'applying the recommendation models failed; will retry');
    }
  }

  /**
   * The first `upTo` model events this node stored are in the models (applied here or by another node): the pass
   * succeeded, and the visitors waiting for them wait no more.
   */
  #credit(upTo: number): void {
    this.#applied = Math.max(this.#applied, upTo);
    this.#failing = false;
    for (const [key, at] of this.#pending) if (at <= this.#applied) this.#pending.delete(key);
  }
}

/**
 * The applier of `storage`'s models: chunks applied as the storage places APPLY_MODELS (a bulk write).
 * @example const models = modelApplier(storage, { logger: app.log });
 */
export function modelApplier(storage: Storage, options: Omit<ModelApplierOptions, 'applyChunk' | 'waiting'> = {}): ModelApplier {
  return new ModelApplier({ applyChunk: (maxEvents) => storage.place(APPLY_MODELS, maxEvents), waiting: () => storage.run(modelInboxWaiting), ...options });
}
