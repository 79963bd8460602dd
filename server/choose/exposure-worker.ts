// The Choose API's writer thread (see worker-exposure-sink.ts): owns a second SQLite connection to the service's
// database file and writes what the main thread posts — answers' exposures, and the first assignments of units the
// database has not seen — so neither the inserts nor their commits run on the event loop that answers requests.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlValue } from '../storage/sql-program.js';
import { assignmentsInsertFirstProgram, unpackAssignments, type Assignment, type PackedAssignments } from './assignment-programs.js';
import { INSERT_EXPOSURE_SETS } from './exposure-programs.js';
import { SqliteProgramRunner } from '../storage/sqlite-program-runner.js';
import { WAL_BOUND_PAGES } from '../storage/wal-checkpointer.js';

/** Main → worker: exposure sets as the values of their rows (exposureSetParams: plain arrays clone cheaply). */
export type ExposureWorkerRequest =
  | { id: number; exposureSets: SqlValue[][] }
  | { id: number; assignments: PackedAssignments }
  | { id: number; close: true };
/**
 * Worker → main: `error` set when nothing of the request was stored (the main thread keeps and retries an
 * exposure batch, and answers a Choose request 503 rather than serve an unstored assignment). For an assignments
 * request, `createdAt` alone when every row was new and stored as asked (the common case), else `assignments`, the
 * stored rows in the order asked.
 */
export interface ExposureWorkerReply {
  id: number;
  error?: string;
  createdAt?: number;
  assignments?: Assignment[];
}

export interface ExposureWorkerData {
  file: string;
}

const port = parentPort;
if (!port) throw new Error('exposure-worker.ts runs as a worker thread');
const { file } = workerData as ExposureWorkerData;

// One connection, committing with NORMAL: in WAL mode such a commit is written to the log but not fsync'd by itself; it
// reaches the disk with the next checkpoint or the next FULL commit of the main connection (which syncs the whole
// log). So a crash of the process loses nothing this thread answered, and a Choose answer waits for no fsync: a first
// assignment lost with the machine is derived again, the same, from the same config (README, "What a crash can lose").
const db = new Database(file);
// WAL lets this connection write while the main connection reads (readers never wait for a writer). Writers still
// take turns: the connections wait up to busy_timeout for each other's (short) transactions.
db.pragma('journal_mode = WAL');
db.pragma('busy_timeout = 5000');
// Checkpoints belong to the storage's checkpoint thread (wal-checkpointer.ts); this connection only takes part at the
// same bound as the main one. At SQLite's default of 1000 pages it would checkpoint after most of its commits.
db.pragma(`wal_autocheckpoint = ${WAL_BOUND_PAGES}`);
db.pragma('synchronous = NORMAL');

const runner = new SqliteProgramRunner(db);
const insertExposureSet = db.prepare(`${INSERT_EXPOSURE_SETS} VALUES (?, ?, ?, ?, ?, ?, ?)`);

type Write = Exclude<ExposureWorkerRequest, { close: true }>;

/**
 * One request's rows. Exposure sets: one prepared single-row statement looped (no per-row parsing). First assignments:
 * insert-if-absent on (project, experience, unit), then the stored rows — the storage's own SQL (its program with the
 * write first, as this connection's transactions are IMMEDIATE anyway), so the database decides which first
 * assignment wins (DESIGN 4), whichever node or connection wrote it.
 */
function write(request: Write, now: number): ExposureWorkerReply {
  if ('assignments' in request) {
    const assignments = runner.drive(assignmentsInsertFirstProgram(unpackAssignments(request.assignments), now));
    return assignments.every((a) => a.created) ? { id: request.id, createdAt: now } : { id: request.id, assignments };
  }
  for (const row of request.exposureSets) insertExposureSet.run(row);
  return { id: request.id };
}

const writeGroup = db.transaction((group: readonly Write[], now: number) => group.map((request) => write(request, now)));
const writeAlone = db.transaction(write);

/**
 * What was posted in one turn shares ONE transaction (a group commit, as the main connection's). A failed group is
 * retried request by request, so one bad request fails alone.
 */
let waiting: Write[] = [];
let flushScheduled = false;

function flush(): void {
  flushScheduled = false;
  const group = waiting;
  waiting = [];
  if (group.length === 0) return;
  const now = Date.now();
  let replies: ExposureWorkerReply[];
  try {
    replies = writeGroup.immediate(group, now);
  } catch {
    replies = group.map((request) => {
      try {
        return writeAlone.immediate(request, now);
      } catch (error) {
        return { id: request.id, error: error instanceof Error ? error.message : String(error) };
      }
    });
  }
  for (const reply of replies) port?.postMessage(reply);
}

port.on('message', (message: ExposureWorkerRequest) => {
  if ('close' in message) {
    flush();
    db.close();
    port.postMessage({ id: message.id } satisfies ExposureWorkerReply);
    port.close();
    return;
  }
  waiting.push(message);
  if (!flushScheduled) {
    flushScheduled = true;
    // After the messages already delivered in this turn: they join the same group.
    setImmediate(flush);
  }
});
