import type { ExposureSet } from './exposure-programs.js';
import type { ExposureSink } from './choose-store.js';

/** Structurally compatible with pino / Fastify's `app.log`. */
export interface ExposureWriterLogger {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export interface ExposureWriterOptions {
  /** No write carries more sets (one Choose answer's exposures each); default 500. */
  maxBatch?: number;
  /** How often sets whose write failed are tried again; default 1000 ms. */
  retryIntervalMs?: number;
  /** Sets kept while the database is failing; beyond it the oldest are dropped (with an error log). */
  maxParked?: number;
  logger?: ExposureWriterLogger;
}

/**
 * Stores each Choose answer's exposures before the answer is sent, so that an answer the caller received is never
 * missing from the results, even if the process crashes right after. The sets added during one turn of the event
 * loop are one write (batched): under load a turn holds many answers, so the cost per answer stays small,
 * and the write waits for a commit, not for the disk (the sinks commit with `durability: 'commit'`).
 *
 * `add()` resolves once its set is committed, or once a failed write has parked it in memory: the answer is not
 * failed for its exposures; parked sets are retried every `retryIntervalMs`, and only a crash during a database
 * outage (or an outage longer than `maxParked` sets) loses them. `close()` waits for every write and tries the parked
 * sets once more.
 * @example
 * const writer = new ExposureWriter(sink, { logger: app.log });
 * await writer.add(set); // then answer
 * app.addHook('onClose', () => writer.close());
 */
export class ExposureWriter {
  /** The sets of this turn, written together once it ends, and the promise their `add()` calls share. */
  private turn: { sets: ExposureSet[]; written: Promise<void> } | null = null;
  private readonly writing = new Set<Promise<void>>();
  private parked: ExposureSet[] = [];
  private retryTimer: NodeJS.Timeout | null = null;
  /** close() was called: what fails from then on is not retried later (close() reports it as lost). */
  private closing = false;
  private readonly maxBatch: number;
  private readonly retryIntervalMs: number;
  private readonly maxParked: number;

  constructor(private readonly sink: ExposureSink, private readonly options: ExposureWriterOptions = {}) {
    this.maxBatch = options.maxBatch ?? 500;
    this.retryIntervalMs = options.retryIntervalMs ?? 1000;
    this.maxParked = options.maxParked ?? 100_000;
  }

  /** Sets whose write failed, waiting to be tried again (tests, metrics). */
  get pending(): number {
    return this.parked.length;
  }

  /** Queues one answer's exposures for this turn's write; resolves once written or parked, never rejects. */
  add(set: ExposureSet): Promise<void> {
    if (set.choices.length === 0) return Promise.resolve();
    if (this.turn === null) {
      const sets: ExposureSet[] = [];
      let release!: () => void;
      this.turn = { sets, written: new Promise((resolve) => (release = resolve)) };
      // setImmediate runs after the poll phase: every request read in this turn has added its set by then.
      setImmediate(() => {
        this.turn = null;
        this.track(this.write(sets)).then(release, release);
      });
    }
    this.turn.sets.push(set);
    return this.turn.written;
  }

  /** Drops the parked sets of erased profiles: they must not reach the database once the database is back. */
  forget(project: string, profiles: ReadonlySet<string>): void {
    this.parked = this.parked.filter((set) => set.project !== project || !profiles.has(set.profileId));
  }

  /** Waits for every write under way, then tries the parked sets once more; logs what is still lost. */
  async close(): Promise<void> {
    this.closing = true;
    while (this.turn !== null || this.writing.size > 0) {
      if (this.turn !== null) await this.turn.written;
      await Promise.all(this.writing);
    }
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    await this.retryParked();
    if (this.parked.length > 0) {
      this.options.logger?.error({ exposureSets: this.parked.length }, 'Exposures lost at shutdown: the database did not take them');
    }
  }

  private track(work: Promise<void>): Promise<void> {
    this.writing.add(work);
    return work.finally(() => this.writing.delete(work));
  }

  /** Writes `sets` batch by batch; a failed batch is parked. */
  private async write(sets: ExposureSet[]): Promise<void> {
    for (let i = 0; i < sets.length; i += this.maxBatch) {
      const batch = sets.slice(i, i + this.maxBatch);
      try {
        await this.sink.recordExposures(batch);
      } catch (error) {
        this.park(batch, error);
      }
    }
  }

  private park(batch: ExposureSet[], error: unknown): void {
    this.parked.push(...batch);
    const overflow = this.parked.length - this.maxParked;
    if (overflow > 0) {
      this.parked.splice(0, overflow);
      this.options.logger?.error({ droppedExposureSets: overflow }, 'Exposures dropped: the database has been failing too long');
    }
    this.options.logger?.warn({ exposureSets: this.parked.length, error: String(error) }, 'Exposure write failed; retrying later');
    if (this.retryTimer === null && !this.closing) {
      this.retryTimer = setTimeout(() => {
        this.retryTimer = null;
        void this.track(this.retryParked());
      }, this.retryIntervalMs);
      // Parked sets must not keep a process alive that is otherwise done (close() tries them once more).
      this.retryTimer.unref();
    }
  }

  private retryParked(): Promise<void> {
    const sets = this.parked;
    this.parked = [];
    return this.write(sets);
  }
}
