// The Choose API's writer thread (see worker-exposure-sink.ts): owns a second SQLite connection to the service's
// database file and writes what the main thread posts — exposure batches, and the first assignments of units the
// database has not seen — so neither the inserts nor their commits (and fsyncs) run on the event loop that
// answers requests.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlValue } from '../storage/sql-program.js';
import { assignmentsInsertFirstProgram, type Assignment, type AssignmentInput } from './assignment-programs.js';
import { INSERT_EXPOSURE_SETS } from './exposure-programs.js';
import { SqliteProgramRunner } from '../storage/sqlite-program-runner.js';
import { WAL_BOUND_PAGES } from '../storage/wal-checkpointer.js';

/** Main → worker: exposure sets as the values of their rows (exposureSetParams: plain arrays clone cheaply). */
export type ExposureWorkerRequest =
  | { id: number; exposureSets: SqlValue[][] }
  | { id: number; assignments: AssignmentInput[] }
  | { id: number; close: true };
/**
 * Worker → main: `error` set when nothing of the request was stored (the main thread keeps and retries an
 * exposure batch, and answers a Choose request 503 rather than serve an unstored assignment); `assignments` the
 * stored rows of an assignments request, in its order.
 */
export interface ExposureWorkerReply {
  id: number;
  error?: string;
  assignments?: Assignment[];
}

export interface ExposureWorkerData {
  file: string;
}

const port = parentPort;
if (!port) throw new Error('exposure-worker.ts runs as a worker thread');
const { file } = workerData as ExposureWorkerData;

/** A write connection of this thread to the service's database, committing with `synchronous`. */
function connect(synchronous: 'NORMAL' | 'FULL'): Database.Database {
  const conn = new Database(file);
  // WAL lets this connection write while the main connection reads (readers never wait for a writer). Writers
  // still take turns: the connections wait up to busy_timeout for each other's (short) transactions.
  conn.pragma('journal_mode = WAL');
  conn.pragma('busy_timeout = 5000');
  // Checkpoints belong to the storage's checkpoint thread (wal-checkpointer.ts); this connection only takes part
  // at the same bound as the main one. At SQLite's default of 1000 pages it would checkpoint after most of its
  // commits, since the WAL now usually holds more than that.
  conn.pragma(`wal_autocheckpoint = ${WAL_BOUND_PAGES}`);
  conn.pragma(`synchronous = ${synchronous}`);
  return conn;
}

// Exposures commit with NORMAL: in WAL mode such a commit is not fsync'd by itself; it reaches the disk at the
// next checkpoint or with the next FULL commit (which syncs the whole WAL). A power loss may take the last
// exposures committed here — they were already at risk while buffered in memory before a flush, and exposures
// are reporting data that no answer depends on.
const db = connect('NORMAL');
// First assignments are answers (a unit must never flip), so they commit with FULL, as the main connection's, on
// a connection of their own: switching one connection's `synchronous` for each commit cost ≈ 100–250 µs of CPU
// per commit (the pragma, and statements prepared again after it). Both connections live on this thread, so
// their transactions never overlap.
const assignmentsDb = connect('FULL');

const insertExposureSet = db.prepare(`${INSERT_EXPOSURE_SETS} VALUES (?, ?, ?, ?, ?, ?, ?)`);
// One prepared single-row statement looped inside one transaction: SQLite does no per-row parsing then, and
// the batch is one commit.
const insertExposureSets = db.transaction((rows: readonly SqlValue[][]) => {
  for (const row of rows) insertExposureSet.run(row);
});

// Insert-if-absent on (project, experience, unit), then the stored rows: the storage's own SQL (its program with
// the write first, as this connection's transactions are IMMEDIATE anyway), so the database decides which first
// assignment wins (DESIGN 4), whichever node or connection wrote it.
const runner = new SqliteProgramRunner(assignmentsDb);
const createAssignments = assignmentsDb.transaction((inputs: readonly AssignmentInput[], now: number): Assignment[] =>
  runner.drive(assignmentsInsertFirstProgram(inputs, now)));
const createAssignmentGroup = assignmentsDb.transaction((group: readonly { assignments: AssignmentInput[] }[], now: number): Assignment[][] =>
  group.map((r) => createAssignments(r.assignments, now)));

/**
 * The first assignments posted in one turn share ONE transaction (a group commit, as the main connection's): a
 * burst of new visitors costs one fsync, not one each. A failed group is retried request by request, so one
 * bad request fails alone.
 */
let waitingAssignments: { id: number; assignments: AssignmentInput[] }[] = [];
let assignmentFlushScheduled = false;

function flushAssignments(): void {
  assignmentFlushScheduled = false;
  const group = waitingAssignments;
  waitingAssignments = [];
  if (group.length === 0) return;
  const now = Date.now();
  try {
    const answers = createAssignmentGroup.immediate(group, now);
    group.forEach((r, i) => port?.postMessage({ id: r.id, assignments: answers[i] } satisfies ExposureWorkerReply));
  } catch {
    for (const r of group) {
      try {
        const assignments = createAssignments.immediate(r.assignments, now);
        port?.postMessage({ id: r.id, assignments } satisfies ExposureWorkerReply);
      } catch (error) {
        port?.postMessage({ id: r.id, error: error instanceof Error ? error.message : String(error) } satisfies ExposureWorkerReply);
      }
    }
  }
}

port.on('message', (message: ExposureWorkerRequest) => {
  if ('close' in message) {
    flushAssignments();
    assignmentsDb.close();
    db.close();
    port.postMessage({ id: message.id } satisfies ExposureWorkerReply);
    port.close();
    return;
  }
  if ('assignments' in message) {
    waitingAssignments.push(message);
    if (!assignmentFlushScheduled) {
      assignmentFlushScheduled = true;
      // After the messages already delivered in this turn: they join the same group.
      setImmediate(flushAssignments);
    }
    return;
  }
  try {
    insertExposureSets.immediate(message.exposureSets);
    port.postMessage({ id: message.id } satisfies ExposureWorkerReply);
  } catch (error) {
    port.postMessage({ id: message.id, error: error instanceof Error ? error.message : String(error) } satisfies ExposureWorkerReply);
  }
});
