// The worker side of a SQLite writer thread (writer-thread.ts): a domain's thread entry calls serveWriterThread with
// the programs it may be asked to run, by name. The thread owns a second connection to the service's database file and
// commits what each turn of its event loop received as ONE transaction, each request in a savepoint of its own.
import Database from 'better-sqlite3';
import { parentPort, workerData } from 'node:worker_threads';
import type { SqlProgram } from '../sql-program.js';
import { SqliteProgramRunner } from './sqlite-program-runner.js';
import { WAL_BOUND_PAGES } from './wal-checkpointer.js';

/** What the thread may run: a program made from the arguments the main thread posted (structured-cloneable). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each program declares its own arguments
export type WriterPrograms = Record<string, (...args: any[]) => SqlProgram<unknown>>;

/** Main → thread. */
export type WriterRequest = { id: number; program: string; args: unknown[] } | { id: number; close: true };
/** Thread → main: the program's value, or why nothing of it was stored. */
export interface WriterReply {
  id: number;
  value?: unknown;
  error?: string;
}

export interface WriterThreadData {
  file: string;
}

type Run = Extract<WriterRequest, { program: string }>;

/**
 * Serves the main thread's requests until it asks to close. Commits use `synchronous=NORMAL`: in WAL mode such a
 * commit is written to the log but not fsync'd by itself; it reaches the disk with the next checkpoint or the next
 * FULL commit of the main connection (which syncs the whole log). So a crash of the process loses nothing this thread
 * answered, and an answer that waits for it waits for no fsync (`durability: 'commit'` in storage.ts).
 * @example serveWriterThread({ exposures: (rows: SqlValue[][]) => insertExposureRowsProgram(rows) });
 */
export function serveWriterThread(programs: WriterPrograms): void {
  const port = parentPort;
  if (!port) throw new Error('serveWriterThread runs in a worker thread');
  const { file } = workerData as WriterThreadData;
  const db = new Database(file);
  // WAL lets this connection write while the main connection reads (readers never wait for a writer). Writers still
  // take turns: the connections wait up to busy_timeout for each other's (short) transactions.
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  // Checkpoints belong to the storage's checkpoint thread (wal-checkpointer.ts); this connection only takes part at
  // the same bound as the main one. At SQLite's default of 1000 pages it would checkpoint after most of its commits.
  db.pragma(`wal_autocheckpoint = ${WAL_BOUND_PAGES}`);
  db.pragma('synchronous = NORMAL');
  const runner = new SqliteProgramRunner(db);

  const errorReply = (request: Run, error: unknown): WriterReply =>
    ({ id: request.id, error: error instanceof Error ? error.message : String(error) });
  /** Runs one request's program on the open transaction; throws when a statement fails. */
  const execute = (request: Run): WriterReply => {
    const make = programs[request.program];
    if (make === undefined) throw new Error(`no writer program named ${request.program}`);
    return { id: request.id, value: runner.drive(make(...request.args)) };
  };
  /** One request of the turn's group, in a savepoint: a failing one is undone alone and the group goes on. */
  const inSavepoint = (request: Run): WriterReply => {
    runner.statement('SAVEPOINT writer_request').run();
    try {
      const reply = execute(request);
      runner.statement('RELEASE writer_request').run();
      return reply;
    } catch (error) {
      // If SQLite already ended the whole transaction (RAISE(ROLLBACK), I/O error, disk full), this throws and the
      // group is retried request by request (flush).
      runner.statement('ROLLBACK TO writer_request').run();
      runner.statement('RELEASE writer_request').run();
      return errorReply(request, error);
    }
  };
  const group = db.transaction((requests: readonly Run[]) => requests.map(inSavepoint));
  const alone = db.transaction(execute);

  let waiting: Run[] = [];
  let flushScheduled = false;
  const flush = (): void => {
    flushScheduled = false;
    const requests = waiting;
    waiting = [];
    if (requests.length === 0) return;
    let replies: WriterReply[];
    try {
      replies = group.immediate(requests);
    } catch {
      // Nothing of the group is stored: each request again in a transaction of its own, so that what failed the shared
      // transaction fails only the request that caused it (or every request, if the database is unusable).
      replies = requests.map((request) => {
        try {
          return alone.immediate(request);
        } catch (error) {
          return errorReply(request, error);
        }
      });
    }
    for (const reply of replies) port.postMessage(reply);
  };

  port.on('message', (message: WriterRequest) => {
    if ('close' in message) {
      flush();
      db.close();
      port.postMessage({ id: message.id } satisfies WriterReply);
      port.close();
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
