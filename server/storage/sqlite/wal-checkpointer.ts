// A thread that checkpoints a SQLite database's WAL, so that the main connection's commits do not.
//
// With SQLite's default (the committing connection checkpoints whenever the WAL passes 1000 pages), every
// second ingestion group paid a checkpoint on the event loop: eventIds are random UUIDs, so each event dirties
// a random page of the (project, event_id) index, and the checkpoint copied those pages into the database file
// and fsync'd it while every request waited. Here a second connection on a worker thread runs PASSIVE
// checkpoints (they never wait for, nor block, the writer) a few times a second; the writing connections keep only
// a large auto-checkpoint of their own, as the bound on the WAL (WAL_BOUND_PAGES).
//
// Crash safety does not depend on who checkpoints or when: a commit is durable once its frames are fsync'd in
// the WAL (synchronous=FULL on the main connection), and a checkpoint fsyncs the database file before SQLite
// lets a writer reuse the WAL (this connection must therefore never run with synchronous=OFF).
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { TRACE_FILE } from './write-trace.js';

/** How often the thread checkpoints: the WAL's un-checkpointed tail stays about this many ms of writes. */
const CHECKPOINT_INTERVAL_MS = 200;

/**
 * The WAL's bound, in pages (64 MiB at SQLite's 4 KiB pages), for every connection that writes. The thread copies
 * the WAL into the database file, but SQLite only writes the WAL from its start again when a checkpoint has caught
 * up before the next transaction begins, which a concurrent checkpoint rarely does while groups follow each other.
 * So a writing connection keeps an auto-checkpoint at the bound: past it, its commit copies the little the thread
 * has not yet copied, its next transaction starts the WAL over, and journal_size_limit shrinks the file back.
 */
export const WAL_BOUND_PAGES = 16384;

/**
 * Between half the bound and the bound, the thread checkpoints this often, so that the writer that reaches the
 * bound finds little left to copy on its own thread (the event loop, for the main connection): a group commit's
 * slowest times drop by about a third (docs/ingestion-internals.md). Past the bound
 * the thread goes back to its pace: a checkpoint it holds would make the writer's own (PASSIVE) one give up,
 * and the WAL would grow on until a checkpoint happens to end between two transactions.
 */
const HURRY_INTERVAL_MS = 10;

interface CheckpointerData {
  driver: string;
  file: string;
  intervalMs: number;
  hurryPages: number;
  boundPages: number;
  hurryIntervalMs: number;
  /** SVC_STORAGE_TRACE's file (write-trace.ts): checkpoints of `traceMs` or more are written there. */
  trace: string | undefined;
  traceMs: number;
}

/** Shorter checkpoints are not traced. */
const TRACE_CHECKPOINT_MS = 5;

// The thread's program is source text run with `eval: true` rather than a module of its own: a module would need
// an entry in the server bundle next to dist/server.mjs (and to be kept out of what dist/ serves to browsers) for
// a dozen lines. It loads the same better-sqlite3 as this module, by resolved path.
const PROGRAM = `
const { parentPort, workerData } = require('node:worker_threads');
const { appendFileSync } = require('node:fs');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('synchronous = FULL');
db.pragma('secure_delete = ON');
let timer = setTimeout(checkpoint, workerData.intervalMs);
function checkpoint() {
  const start = workerData.trace === undefined ? 0 : performance.now();
  const [{ busy, log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)');
  if (workerData.trace !== undefined && performance.now() - start >= workerData.traceMs) {
    const ms = Math.round((performance.now() - start) * 10) / 10;
    const line = { at: performance.timeOrigin + start, ms, thread: 'checkpoint', what: 'checkpoint', busy, log, checkpointed };
    appendFileSync(workerData.trace, JSON.stringify(line) + '\\n');
  }
  const hurry = log >= workerData.hurryPages && log < workerData.boundPages;
  timer = setTimeout(checkpoint, hurry ? workerData.hurryIntervalMs : workerData.intervalMs);
}
parentPort.once('message', () => {
  clearTimeout(timer);
  db.close();
  parentPort.close();
});
`;

/**
 * Runs PASSIVE checkpoints of `file`'s WAL on a worker thread until `stop()`. If the thread fails (an I/O
 * error), it ends: the main connection's own auto-checkpoint still bounds the WAL, on the event loop as before.
 * @example const checkpointer = WalCheckpointer.start('./data/svc.db', WAL_BOUND_PAGES); … await checkpointer.stop();
 */
export class WalCheckpointer {
  private constructor(private readonly worker: Worker, private readonly exited: Promise<void>) {}

  static start(file: string, boundPages: number): WalCheckpointer {
    const workerData: CheckpointerData = {
      driver: createRequire(import.meta.url).resolve('better-sqlite3'),
      file,
      intervalMs: CHECKPOINT_INTERVAL_MS,
      hurryPages: Math.floor(boundPages / 2),
      boundPages,
      hurryIntervalMs: HURRY_INTERVAL_MS,
      trace: TRACE_FILE,
      traceMs: TRACE_CHECKPOINT_MS,
    };
    const worker = new Worker(PROGRAM, { eval: true, workerData });
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    // Without a listener a failed checkpoint would be an uncaught exception of the whole process.
    worker.on('error', () => {});
    // Never the reason a process stays alive; stop() is what ends it in order.
    worker.unref();
    return new WalCheckpointer(worker, exited);
  }

  /** Ends the thread after its current checkpoint and closes its connection. */
  async stop(): Promise<void> {
    // Referenced again until it has exited: a process with nothing else to do must still wait for this.
    this.worker.ref();
    this.worker.postMessage('stop');
    await this.exited;
  }
}
