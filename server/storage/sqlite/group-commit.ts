import type Database from 'better-sqlite3';
import type { SqliteProgramRunner } from './sqlite-program-runner.js';
import type { CommitTiming } from './write-trace.js';

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * Commits `writes` as ONE immediate transaction on `db`, each write in a savepoint of its own: a write whose statements
 * fail is rolled back to its savepoint and fails alone while the others are kept. If the shared transaction itself
 * fails (SQLite rolled it back: RAISE(ROLLBACK), an I/O error, a full disk), nothing of it is stored and each write is
 * run again in a transaction of its own, so that what failed it fails only the write that caused it (or every write,
 * if the database is unusable). Answers each write's value or the error that failed it, in order, once committed.
 * Used by the storage's main connection (group commit of ingest batches and first assignments) and by a writer
 * thread's connection (writer-thread-server.ts). With `timing`, records where the time went (write-trace.ts).
 * @example const outcomes = commitGroup(db, runner, group, (write) => write.execute());
 */
export function commitGroup<W, R>(
  db: Database.Database, runner: SqliteProgramRunner, writes: readonly W[], execute: (write: W) => R, timing?: CommitTiming,
): (R | Error)[] {
  const outcomes: (R | Error)[] = [];
  let mark = timing === undefined ? 0 : performance.now();
  const lap = (part: keyof CommitTiming): void => {
    if (timing === undefined) return;
    const now = performance.now();
    timing[part] = now - mark;
    mark = now;
  };
  try {
    runner.statement('BEGIN IMMEDIATE').run();
    lap('begin');
    for (const write of writes) {
      runner.statement('SAVEPOINT group_write').run();
      try {
        outcomes.push(execute(write));
        runner.statement('RELEASE group_write').run();
      } catch (error) {
        // Only this write's rows are undone; the group's transaction goes on. (If SQLite already rolled the whole
        // transaction back, ROLLBACK TO throws and the catch below retries each write alone.)
        runner.statement('ROLLBACK TO group_write').run();
        runner.statement('RELEASE group_write').run();
        outcomes.push(asError(error));
      }
    }
    lap('statements');
    runner.statement('COMMIT').run();
    lap('commit');
    return outcomes;
  } catch {
    if (db.inTransaction) runner.statement('ROLLBACK').run();
    return writes.map((write) => {
      try {
        return db.transaction(() => execute(write)).immediate();
      } catch (error) {
        return asError(error);
      }
    });
  }
}
