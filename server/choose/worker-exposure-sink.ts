import { Worker } from 'node:worker_threads';
import { exposureSetParams } from './exposure-programs.js';
import { packAssignments } from './assignment-programs.js';
import type { Assignment, AssignmentInput } from './assignment-programs.js';
import type { AssignmentStore, ExposureSink } from './choose-store.js';
import type { ExposureSet } from './exposure-programs.js';
import type { ExposureWorkerData, ExposureWorkerReply, ExposureWorkerRequest } from './exposure-worker.js';

interface Pending {
  resolve: (reply: ExposureWorkerReply) => void;
  reject: (error: Error) => void;
}

// The worker entry sits next to this module: dist/exposure-worker.mjs next to the bundled dist/server.mjs
// (esbuild.config.mjs builds both), or server/choose/exposure-worker.ts when running from source under tsx
// (tests, bench). Node 20 does not pass the parent's `--import tsx` loader hooks on to a worker, so a source
// worker first registers tsx itself, then imports the entry.
function startWorker(workerData: ExposureWorkerData): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./exposure-worker.mjs', import.meta.url), { workerData });
  const entry = new URL('./exposure-worker.ts', import.meta.url).href;
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * Writes exposure batches and first assignments from a worker thread that owns its own SQLite connection to
 * `file` (WAL allows a second writer connection; see exposure-worker.ts for its synchronous settings). Under the
 * bench's load the exposure inserts and their commits were a third of the main thread's time, and a new visitor's
 * 20 durable first assignments stalled every other request for the length of an fsync; here each costs the main
 * thread one postMessage. The worker starts on the first write (most apps in tests never write one).
 * If the worker cannot start or dies, the writes in flight fail (the ExposureWriter keeps and retries its batches;
 * a Choose request answers 503 and is retried by its caller) and later writes go to `fallback` (the storage, on
 * the main thread): slower, never lost.
 * @example new ExposureWriter(new WorkerExposureSink(storage.file, storage), { logger })
 */
export class WorkerExposureSink implements ExposureSink, AssignmentStore {
  private worker: Worker | null = null;
  // After the worker failed, or after close(): batches go to the fallback (storage) directly.
  private useFallback = false;
  private closing = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();

  constructor(private readonly file: string, private readonly fallback: ExposureSink & AssignmentStore) {}

  async recordExposures(sets: readonly ExposureSet[]): Promise<void> {
    if (sets.length === 0) return;
    if (this.useFallback) return this.fallback.recordExposures(sets);
    const now = Date.now();
    await this.send({ id: this.nextId++, exposureSets: sets.map((set) => exposureSetParams(set, now)) });
  }

  /**
   * Insert-if-absent of each (project, experience, unit), committed (not synced) by the writer thread; the stored rows,
   * in order. Sent as one flat array and answered, in the common case that every row was new, by the commit time
   * alone: cloning 20 objects each way was most of what a new visitor cost the main thread beyond a returning one.
   */
  async getOrCreateAssignments(inputs: readonly AssignmentInput[]): Promise<Assignment[]> {
    if (inputs.length === 0) return [];
    if (this.useFallback) return this.fallback.getOrCreateAssignments(inputs);
    const reply = await this.send({ id: this.nextId++, assignments: packAssignments(inputs) });
    if (reply.assignments !== undefined) return reply.assignments;
    if (reply.createdAt === undefined) throw new Error('the writer thread answered no assignments');
    const createdAt = reply.createdAt;
    return inputs.map((input) => ({
      experience: input.experience, unit: input.unit, variation: input.variation, hashVersion: input.hashVersion, createdAt, created: true,
    }));
  }

  /** Ends the worker after its last batch (call after the ExposureWriter's close() wrote everything). */
  async close(): Promise<void> {
    if (this.worker === null || this.useFallback) {
      this.useFallback = true;
      return;
    }
    const worker = this.worker;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.closing = true;
    try {
      await this.send({ id: this.nextId++, close: true });
    } catch {
      // It died meanwhile: nothing left to close.
    }
    await exited;
    this.worker = null;
    this.useFallback = true;
  }

  private send(message: ExposureWorkerRequest): Promise<ExposureWorkerReply> {
    const worker = this.start();
    return new Promise<ExposureWorkerReply>((resolve, reject) => {
      // Referenced while a batch is in flight, so a process that is otherwise done still waits for its write.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(message.id, { resolve, reject });
      worker.postMessage(message);
    });
  }

  private start(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startWorker({ file: this.file });
    // An idle worker keeps nothing alive (see send() for a busy one).
    worker.unref();
    worker.on('message', (reply: ExposureWorkerReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      // Closing: stays referenced until it has exited (close() awaits that).
      if (this.pending.size === 0 && !this.closing) worker.unref();
      if (reply.error === undefined) waiting.resolve(reply);
      else waiting.reject(new Error(reply.error));
    });
    const fail = (error: Error): void => {
      this.useFallback = true;
      this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.pending.size > 0 || code !== 0) fail(new Error(`exposure worker exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }
}
