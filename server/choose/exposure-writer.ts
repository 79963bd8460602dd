import type { ExposureRow } from '../storage/storage.js';
import type { ExposureSink } from './worker-exposure-sink.js';

/** Structurally compatible with pino / Fastify's `app.log`. */
export interface ExposureWriterLogger {
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export interface ExposureWriterOptions {
  /** Longest a served choice waits before its exposure is written; default 1000 ms. */
  flushIntervalMs?: number;
  /** A full batch is written at once, and no insert carries more rows; default 500. */
  maxBatch?: number;
  /** Rows kept while the database is failing; beyond it the oldest are dropped (with an error log). */
  maxBuffered?: number;
  logger?: ExposureWriterLogger;
}

/**
 * Buffers exposures and writes them in batches (DESIGN 4: writes that can wait are batched), so a Choose
 * answer never waits for an exposure insert: a batch goes out after `flushIntervalMs` or at `maxBatch` rows,
 * whichever comes first. `close()` writes whatever is buffered (the app's onClose hook), so a graceful
 * shutdown loses no exposure of a request that was answered. A failed write keeps its rows for the next
 * attempt; only a crash, or an outage longer than `maxBuffered` rows, loses exposures, which is acceptable
 * for reporting data and is why choices themselves never depend on them.
 * @example
 * const writer = new ExposureWriter(storage, { logger: app.log });
 * writer.add(rows);             // on the hot path: no I/O
 * app.addHook('onClose', () => writer.close());
 */
export class ExposureWriter {
  private buffer: ExposureRow[] = [];
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

  /** Rows waiting to be written (tests, metrics). */
  get pending(): number {
    return this.buffer.length;
  }

  /** Queues rows; never blocks and never throws. After `close()` rows are written at once instead. */
  add(rows: readonly ExposureRow[]): void {
    if (rows.length === 0) return;
    for (const row of rows) this.buffer.push(row);
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
    // One writer at a time: a second caller shares the running drain, which also takes rows added meanwhile.
    this.inFlight ??= this.drain().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** Stops the timer and writes everything buffered; called from the app's onClose hook. */
  async close(): Promise<void> {
    this.closed = true;
    // A drain that was already running may have finished its loop before the last rows arrived.
    if (this.inFlight) await this.inFlight;
    await this.flush();
    if (this.buffer.length > 0) {
      this.options.logger?.error({ exposures: this.buffer.length }, 'Exposures lost at shutdown: the database did not take them');
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

  private requeue(batch: ExposureRow[], error: unknown): void {
    this.buffer = batch.concat(this.buffer);
    const overflow = this.buffer.length - this.maxBuffered;
    if (overflow > 0) {
      this.buffer.splice(0, overflow);
      this.options.logger?.error({ dropped: overflow }, 'Exposures dropped: the database has been failing too long');
    }
    this.options.logger?.warn({ exposures: this.buffer.length, error: String(error) }, 'Exposure write failed; retrying later');
    if (!this.closed && this.timer === null) {
      this.timer = setTimeout(() => {
        this.timer = null;
        void this.flush();
      }, this.flushIntervalMs);
      this.timer.unref();
    }
  }
}
