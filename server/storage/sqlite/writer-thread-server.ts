// The worker side of a SQLite writer thread (program-thread.ts): the thread entry (sqlite-thread.ts) calls
// serveWriterThread with the programs it may be asked to run, by name. The thread owns a second connection to the
// service's database file and commits what each turn of its event loop received as ONE transaction, each request in a
// savepoint of its own.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlProgram } from '../sql-program.js';
import { commitGroup } from './group-commit.js';
import { SqliteProgramRunner } from './sqlite-program-runner.js';
import { WAL_BOUND_PAGES } from './wal-checkpointer.js';
import { inTurn, type WriteRole } from './write-gate.js';
import { commitTiming, traceGcPauses, traceTransaction } from './write-trace.js';

/** What the thread may run: a program made from the arguments the main thread posted (structured-cloneable). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each program declares its own arguments
export type ThreadPrograms = Record<string, (...args: any[]) => SqlProgram<unknown>>;

/** Main → thread. */
export type ThreadRequest = { id: number; program: string; args: unknown[] } | { id: number; close: true };
/** Thread → main: the program's value, or why nothing of it was stored. */
export interface ThreadReply {
  id: number;
  value?: unknown;
  error?: string;
}

export interface ProgramThreadData {
  /** A writer (group commit) or a reader (read-only connection). */
  kind: 'writer' | 'reader';
  /** The URL of the module whose `PROGRAMS` (a ProgramTable) the thread serves. */
  programs: string;
  file: string;
  /** How its commits reach the disk: NORMAL (default) without waiting for it, FULL synced before they are answered. */
  synchronous?: 'NORMAL' | 'FULL';
  /** Whose commits a request waits for (`interactive`) and whose nobody does (`bulk`): the former go first. */
  role?: WriteRole;
  /** The gate the writer threads of this file share (write-gate.ts). */
  gate?: SharedArrayBuffer;
  /** The lane it serves: how its lines in a trace are named (write-trace.ts). */
  lane?: string;
}

type Run = Extract<ThreadRequest, { program: string }>;

/**
 * Serves the main thread's requests until it asks to close. Commits use `synchronous=NORMAL` unless the thread was
 * started with FULL: in WAL mode such a commit is written to the log but not fsync'd by itself; it reaches the disk
 * with the next checkpoint or the next FULL commit (which syncs the whole log). So a crash of the process loses nothing
 * this thread answered, and an answer that waits for it waits for no fsync (`durability: 'commit'` in storage.ts).
 * With FULL (ingestion), each group's commit is synced before its answers: a crash of the machine loses none either.
 * @example serveWriterThread({ 'choose.exposures': (rows: SqlValue[][]) => exposureRowsProgram(rows) });
 */
export function serveWriterThread(programs: ThreadPrograms): void {
  const port = parentPort;
  if (!port) throw new Error('serveWriterThread runs in a worker thread');
  const { file, synchronous = 'NORMAL', role = 'bulk', gate, lane = role } = workerData as ProgramThreadData;
  const db = new Database(file);
  // WAL lets this connection write while the main connection reads (readers never wait for a writer). Writers still
  // take turns: the connections wait up to busy_timeout for each other's (short) transactions.
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  // Erased rows are overwritten, not only unlinked (as on the main connection, sqlite-storage.ts).
  db.pragma('secure_delete = ON');
  // Checkpoints belong to the storage's checkpoint thread (wal-checkpointer.ts); this connection only takes part at
  // the same bound as the main one. At SQLite's default of 1000 pages it would checkpoint after most of its commits.
  db.pragma(`wal_autocheckpoint = ${WAL_BOUND_PAGES}`);
  db.pragma(`synchronous = ${synchronous === 'FULL' ? 'FULL' : 'NORMAL'}`);
  const runner = new SqliteProgramRunner(db);
  traceGcPauses(lane);

  /** Runs one request's program on the open transaction; throws when a statement fails. */
  const execute = (request: Run): unknown => {
    const make = programs[request.program];
    if (make === undefined) throw new Error(`no writer program named ${request.program}`);
    return runner.drive(make(...request.args));
  };

  let waiting: Run[] = [];
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    const requests = waiting;
    waiting = [];
    if (requests.length === 0) return;
    const timing = commitTiming();
    const start = timing === undefined ? 0 : performance.now();
    let gateWait = 0;
    const outcomes = inTurn(gate, role, () => {
      if (timing !== undefined) gateWait = performance.now() - start;
      return commitGroup(db, runner, requests, execute, timing);
    });
    if (timing !== undefined) traceTransaction(lane, start, gateWait, timing, countNames(requests));
    outcomes.forEach((outcome, i) => {
      const id = requests[i]!.id;
      port.postMessage((outcome instanceof Error ? { id, error: outcome.message } : { id, value: outcome }) satisfies ThreadReply);
    });
  };

  port.on('message', (message: ThreadRequest) => {
    if ('close' in message) {
      flush();
      db.close();
      port.postMessage({ id: message.id } satisfies ThreadReply);
      port.close();
      return;
    }
    // A name of none: the thread is up and its connection open (warm()).
    if (message.program === '') {
      port.postMessage({ id: message.id } satisfies ThreadReply);
      return;
    }
    waiting.push(message);
    if (!flushScheduled) {
      flushScheduled = true;
      // After the messages already delivered in this turn: they join the same transaction.
      setImmediate(flush);
    }
  });
}

/** How many requests of each program a group holds. */
function countNames(requests: readonly Run[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { program } of requests) counts[program] = (counts[program] ?? 0) + 1;
  return counts;
}
