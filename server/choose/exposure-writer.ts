import type { ExposureSet } from './exposure-programs.js';
import type { ExposureSink } from './choose-store.js';

/** Structurally compatible with pino / Fastify's `app.log`. */
export interface ExposureWriterLogger {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export interface ExposureWriterOptions {
  /** Longest a served choice waits before its exposure is written; default 1000 ms. */
  flushIntervalMs?: number;
  /** A full batch is written at once, and no write carries more sets (one Choose answer's exposures each); default 500. */
  maxBatch?: number;
  /** Sets kept while the database is failing; beyond it the oldest are dropped (with an error log). */
  maxBuffered?: number;
  logger?: ExposureWriterLogger;
}

/**
 * Buffers exposures and writes them in batches (DESIGN 4: writes that can wait are batched), so a Choose
 * answer never waits for an exposure insert: a batch goes out after `flushIntervalMs` or at `maxBatch` sets,
 * whichever comes first. `close()` writes whatever is buffered (the app's onClose hook), so a graceful
 * shutdown loses no exposure of a request that was answered. A failed write keeps its sets for the next
 * attempt; only a crash, or an outage longer than `maxBuffered` sets, loses exposures, which is acceptable
 * for reporting data and is why choices themselves never depend on them.
 * @example
 * const writer = new ExposureWriter(storage, { logger: app.log });
 * writer.add(set);              // on the hot path: no I/O
 * app.addHook('onClose', () => writer.close());
 */
export class ExposureWriter {
  private buffer: ExposureSet[] = [];
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<void> | null = null;
  private closed = false;
  private readonly flushIntervalMs: number;
  private readonly maxBatch: number;
  private readonly maxBuffered: number;

  constructor(private readonly storage: ExposureSink, private readonly options: ExposureWriterOptions = {}) {
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.maxBatch = options.maxBatch ?? 500;
    this.maxBuffered = options.maxBuffered ?? 100_000;
  }

  /** Sets waiting to be written (tests, metrics). */
  get pending(): number {
    return this.buffer.length;
  }

  /** Queues one answer's exposures; never blocks and never throws. After `close()` sets are written at once instead. */
  add(set: ExposureSet): void {
    if (set.choices.length === 0) return;
    this.buffer.push(set);
    if (this.closed || this.buffer.length >= this.maxBatch) {
      void this.flush();
    } else if (this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushIntervalMs);
      // A pending batch must not keep a process alive that is otherwise done (close() flushes it).
      this.timer.unref();
    }
  }

  /** Writes everything buffered, batch by batch; resolves (never rejects) when done or when a write failed. */
  flush(): Promise<void> {
    if (this.timer !== null) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    // One writer at a time: a second caller shares the running drain, which also takes sets added meanwhile.
    this.inFlight ??= this.drain().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** Stops the timer and writes everything buffered; called from the app's onClose hook. */
  async close(): Promise<void> {
    this.closed = true;
    // A drain that was already running may have finished its loop before the last sets arrived.
    if (this.inFlight) await this.inFlight;
    await this.flush();
    if (this.buffer.length > 0) {
      this.options.logger?.error({ exposureSets: this.buffer.length }, 'Exposures lost at shutdown: the database did not take them');
    }
  }

  private async drain(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.maxBatch);
      try {
        await this.storage.recordExposures(batch);
      } catch (error) {
        this.requeue(batch, error);
        return;
      }
    }
  }

  private requeue(batch: ExposureSet[], error: unknown): void {
    this.buffer = batch.concat(this.buffer);
    const overflow = this.buffer.length - this.maxBuffered;
    if (overflow > 0) {
      this.buffer.splice(0, overflow);
      this.options.logger?.error({ droppedExposureSets: overflow }, 'Exposures dropped: the database has been failing too long');
    }
    this.options.logger?.warn({ exposureSets: this.buffer.length, error: String(error) }, 'Exposure write failed; retrying later');
    if (!this.closed && this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushIntervalMs);
      this.timer.unref();
    }
  }
}
