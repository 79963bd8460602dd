import { Worker } from 'node:worker_threads';
import { moduleBeside } from '../program.js';
import type { ThreadReply, ThreadRequest, ProgramThreadData } from './writer-thread-server.js';
import { gateFor } from './write-gate.js';

/** The threads' one entry module (sqlite-thread.ts): `sqlite-thread.mjs` beside the bundled dist/server.mjs. */
const ENTRY = moduleBeside(import.meta.url, 'sqlite-thread');

/**
 * Why a run was refused without being sent: the thread is not running (it failed, was closed, or could not start).
 * Nothing of the run reached the database, so the caller may do the work another way.
 */
export class ThreadUnavailable extends Error {}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

/**
 * Starts a worker from `entry`. Node 20 does not pass the parent's `--import tsx` loader hooks on to a worker, so a
 * TypeScript entry (tests and bench run from source) first registers tsx itself, then imports the entry.
 */
function startWorker(entry: URL, workerData: ProgramThreadData): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData });
}

/**
 * A SQLite thread that runs the service's named programs on its own connection to the database `file`, so neither
 * their statements nor their commits run on the event loop that answers requests. A writer's programs of one turn
 * share one commit, made without waiting for the disk (or synced first, with `synchronous` FULL:
 * writer-thread-server.ts); a reader runs each in a read transaction of its own (reader-thread-server.ts). The thread
 * starts on the first `run` (most apps in tests never send one) and keeps no process alive while idle. If it cannot
 * start or dies, the runs in flight reject and so do later ones (`failed` tells the storage to run them on its own
 * connection).
 * @example const thread = new SqliteProgramThread(file, { kind: 'writer', programs: PROGRAMS_MODULE.href });
 *          await thread.run('choose.exposures', [rows]);
 */
export class SqliteProgramThread {
  private worker: Worker | null = null;
  private closing = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** True once the thread failed or was closed: the caller writes another way from then on. */
  failed = false;

  constructor(
    private readonly file: string,
    /**
     * What kind of thread, and what it serves; `role` `interactive`: its commits go ahead of bulk ones (write-gate.ts).
     */
    private readonly data: Omit<ProgramThreadData, 'file' | 'gate'>,
  ) {}

  /** Runs the program `program` with `args` in the thread's next transaction; its value once committed. */
  run<T>(program: string, args: unknown[]): Promise<T> {
    if (this.failed) return Promise.reject(new ThreadUnavailable('the SQLite thread is not running'));
    return this.send({ id: this.nextId++, program, args }) as Promise<T>;
  }

  /** Ends the thread after what it was sent (call once nothing more will be run). */
  async close(): Promise<void> {
    const worker = this.worker;
    this.failed = true;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    this.closing = true;
    try {
      await this.send({ id: this.nextId++, close: true });
    } catch {
      // It died meanwhile: nothing left to close.
    }
    await exited;
    this.worker = null;
  }

  private send(message: ThreadRequest): Promise<unknown> {
    let worker: Worker;
    try {
      worker = this.start();
    } catch (error) {
      // The Worker constructor throws at once when a thread cannot be created: from now on the callers' other way.
      this.failed = true;
      const why = error instanceof Error ? error.message : String(error);
      return Promise.reject(new ThreadUnavailable(`the SQLite thread could not start: ${why}`));
    }
    return new Promise((resolve, reject) => {
      // Referenced while a run is in flight, so a process that is otherwise done still waits for its write.
      if (this.pending.size === 0) worker.ref();
      this.pending.set(message.id, { resolve, reject });
      worker.postMessage(message);
    });
  }

  private start(): Worker {
    if (this.worker !== null) return this.worker;
    const worker = startWorker(ENTRY, { ...this.data, file: this.file, gate: gateFor(this.file) });
    // An idle worker keeps nothing alive (see send() for a busy one).
    worker.unref();
    worker.on('message', (reply: ThreadReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      // Closing: stays referenced until it has exited (close() awaits that).
      if (this.pending.size === 0 && !this.closing) worker.unref();
      if (reply.error === undefined) waiting.resolve(reply.value);
      else waiting.reject(new Error(reply.error));
    });
    const fail = (error: Error): void => {
      this.failed = true;
      this.worker = null;
      for (const waiting of this.pending.values()) waiting.reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => {
      if (this.pending.size > 0 || code !== 0) fail(new Error(`SQLite thread exited with code ${code}`));
    });
    this.worker = worker;
    return worker;
  }
}
