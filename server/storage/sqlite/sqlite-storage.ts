import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { migrationSteps, type Migration } from '../migrations.js';
import type { GroupProgram, Lane, NamedProgram } from '../program.js';
import type { SqlProgram } from '../sql-program.js';
import { commitGroup } from './group-commit.js';
import { SqliteProgramRunner } from './sqlite-program-runner.js';
import { SqlStorage } from '../sql-storage.js';
import type { TransactionOptions } from '../storage.js';
import { WAL_BOUND_PAGES, WalCheckpointer } from './wal-checkpointer.js';
import { SqliteProgramThread } from './program-thread.js';
import type { ProgramThreadData } from './writer-thread-server.js';
import { commitTiming, traceTransaction } from './write-trace.js';

/** A write waiting for the next group commit (an ingest batch, a request's first assignments). */
interface PendingWrite {
  /** Rows it writes (events, assignments): what bounds a group. */
  rows: number;
  /**
   * Runs the write's statements on the open transaction and returns what answers its request once the
   * transaction committed (never before: an answer means "on disk"). Throws when a statement fails.
   */
  execute(): () => void;
  /** Answers the request with a failure. */
  fail(error: Error): void;
}

/** How each lane's thread is started (program.ts says what each lane promises). */
const LANE_THREADS: Record<Lane, Omit<ProgramThreadData, 'file' | 'gate' | 'programs'>> = {
  // A visitor's answer waits for these commits: they go ahead of the bulk writers' (write-gate.ts), unsynced.
  interactive: { kind: 'writer', synchronous: 'NORMAL', role: 'interactive' },
  // Each turn's writes in one commit, synced before they are answered (as durable as the main connection's).
  bulk: { kind: 'writer', synchronous: 'FULL', role: 'bulk' },
  // Derived writes: unsynced, behind a visitor's; a thread of their own, so they never hold the others' threads.
  background: { kind: 'writer', synchronous: 'NORMAL', role: 'bulk' },
  report: { kind: 'reader' },
};

/**
 * A group stops growing at this many rows: a commit's latency (and the time the event loop is blocked by
 * it) stays bounded; later writes go into the next group.
 */
const MAX_GROUP_ROWS = 5000;

export interface SqliteStorageOptions {
  /** Overrides WAL_BOUND_PAGES (tests use a small bound to reach it quickly). */
  walBoundPages?: number;
}

/**
 * The embedded default: one better-sqlite3 connection in WAL mode. Calls are synchronous, so a whole
 * program (a batch and its identity effects) runs inside one `db.transaction` without yielding to the
 * event loop: nothing can interleave with it.
 *
 * Ingestion uses GROUP COMMIT: the fsync of a durable commit (synchronous=FULL) costs milliseconds, far more
 * than storing a batch, so the batches that arrive during one turn of the event loop (while the previous
 * commit blocked it, requests queue up in the kernel) are written in ONE transaction, each inside its own
 * savepoint, and every request is answered only after that shared commit returned — so each answer still
 * means "on disk". A batch whose statements fail is rolled back to its savepoint and fails alone; if the
 * shared transaction itself fails, every batch of the group is retried in a transaction of its own.
 *
 * The Choose API's first assignments go through the same groups: a new visitor's insert-if-absent was an
 * auto-committed write of its own, one fsync on the event loop per new visitor. Their read half runs at once,
 * outside any transaction (a returning unit writes nothing and waits for no commit); only the missing rows
 * are queued, and the insert-if-absent inside the group decides, as before.
 *
 * Named programs (program.ts) run on threads of their own, one per lane, each with its own connection to the file
 * (program-thread.ts), once the service named its programs' module (hostPrograms): neither their statements nor their
 * commits hold the event loop that answers requests. Until then, for an in-memory database (which a second
 * connection cannot open), and once a lane's thread could not start or died, they run on this connection.
 * @example const storage = await openSqliteStorage('./data/svc.db', SCHEMA);
 */
export class SqliteStorage extends SqlStorage {
  readonly dialect = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly runner: SqliteProgramRunner;
  private pending: PendingWrite[] = [];
  private flushScheduled = false;
  /** Null for `:memory:` (no WAL). */
  private readonly checkpointer: WalCheckpointer | null;
  /** The module of the programs the lanes' threads serve (hostPrograms); null: every program runs here. */
  private programsModule: string | null = null;
  private readonly lanes = new Map<Lane, SqliteProgramThread>();

  constructor(file: string, options: SqliteStorageOptions = {}) {
    super();
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.runner = new SqliteProgramRunner(this.db);
    const journal = this.db.pragma('journal_mode = WAL', { simple: true });
    // FULL: a batch is acknowledged only after its commit reached the disk (nothing accepted is lost).
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
    // An erasure must not leave the person's bytes in a freed page or cell, where a copy of the file would still hold
    // them: every connection that can delete overwrites what it deletes (the writer threads and the checkpointer too).
    this.db.pragma('secure_delete = ON');
    // 64 MiB of page cache instead of SQLite's 2 MiB: eventIds are random UUIDs, so every insert lands on a
    // random page of the (project, event_id) index, and the hot index pages stay cached. An upper bound, not an
    // allocation.
    this.db.pragma('cache_size = -65536');
    // Each write of a group runs in a savepoint, whose undo copy of every page it touches (the sub-journal)
    // spilled into a temporary FILE past 64 KiB: about one 4 KiB page per event. It stays in memory; migrations,
    // which may sort whole tables, use files again.
    this.db.pragma('temp_store = MEMORY');
    this.checkpointer = journal === 'wal' ? this.checkpointInTheBackground(options.walBoundPages ?? WAL_BOUND_PAGES) : null;
  }

  /** Hands the WAL's checkpoints to a thread (wal-checkpointer.ts), keeping a bound on the main connection. */
  private checkpointInTheBackground(boundPages: number): WalCheckpointer {
    const pageSize = Number(this.db.pragma('page_size', { simple: true }));
    this.db.pragma(`wal_autocheckpoint = ${boundPages}`);
    this.db.pragma(`journal_size_limit = ${boundPages * pageSize}`);
    return WalCheckpointer.start(this.db.name, boundPages);
  }

  /** The database file (`:memory:` for none): the Choose API's writer thread opens its own connection to it. */
  get file(): string {
    return this.db.name;
  }

  override hostPrograms(module: URL): void {
    this.programsModule = module.href;
  }

  /** On the lane's thread, or here while it has none (sql-storage.ts). */
  override place<A extends unknown[], T>(program: NamedProgram<A, T>, ...args: A): Promise<T> {
    const here = (): Promise<T> => super.place(program, ...args);
    const thread = this.threadOf(program.lane);
    return thread === null ? here() : this.onThread(thread, () => thread.run<T>(program.name, args), here);
  }

  /** On the bulk lane's thread, its inputs grouped by turn (each in a savepoint of the thread's commit), or here. */
  override group<I, R>(program: GroupProgram<I, R>, input: I): Promise<R> {
    const here = (): Promise<R> => super.group(program, input);
    const thread = this.threadOf('bulk');
    return thread === null ? here() : this.onThread(thread, () => thread.run<R[]>(program.name, [[input]]).then(([result]) => result!), here);
  }

  /**
   * Starts the writer lanes' threads and opens their connections (an empty run), so no first request waits for them:
   * the background lane's too, whose model chunks a visitor's feed read may wait for (the models' settle).
   */
  override async warm(): Promise<void> {
    const writers = (['interactive', 'bulk', 'background'] as const).map((lane) => this.threadOf(lane));
    await Promise.all(writers.map((thread) => (thread === null ? undefined : this.onThread(thread, () => thread.run('', []), async () => undefined))));
  }

  /** The lane's thread, started on first use; null while the programs have no module, and for `:memory:`. */
  private threadOf(lane: Lane): SqliteProgramThread | null {
    if (this.programsModule === null || this.file === ':memory:' || this.file === '') return null;
    let thread = this.lanes.get(lane);
    if (thread === undefined) {
      thread = new SqliteProgramThread(this.file, { ...LANE_THREADS[lane], lane, programs: this.programsModule });
      this.lanes.set(lane, thread);
    }
    return thread;
  }

  /**
   * `run` on the thread, or `here` when the thread is not running (it could not start, failed, or was closed) or died
   * under this run: a program is a transaction, so nothing of a run that died was stored, or all of it was (the
   * programs are insert-if-absent where it matters: events and assignments by their keys; an exposure row may then
   * be written twice, and results count each unit once).
   */
  private async onThread<T>(thread: SqliteProgramThread, run: () => Promise<T>, here: () => Promise<T>): Promise<T> {
    if (thread.failed) return here();
    try {
      return await run();
    } catch (error) {
      if (!thread.failed) throw error;
      return here();
    }
  }

  protected execute<T>(make: () => SqlProgram<T>, transaction: TransactionOptions | null): Promise<T> {
    try {
      const value = transaction !== null ? this.db.transaction(() => this.runner.drive(make())).immediate() : this.runner.drive(make());
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** A transaction on SQLite is a place in the next group commit (its own savepoint), which always syncs. */
  override transaction<T>(make: () => SqlProgram<T>, options: TransactionOptions = {}): Promise<T> {
    return this.enqueue(options.rows ?? 1, make);
  }

  /** Queues `make`'s program for the next group commit; resolves with its value once that commit returned. */
  private enqueue<T>(rows: number, make: () => SqlProgram<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.pending.push({
        rows,
        execute: () => {
          const value = this.runner.drive(make());
          return () => resolve(value);
        },
        fail: reject,
      });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    // setImmediate runs after the poll phase: every request read in this turn has queued its batch by then.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flushGroup();
    });
  }

  /** Takes the next group off the queue (at least one write, at most MAX_GROUP_ROWS rows otherwise). */
  private takeGroup(): PendingWrite[] {
    let rows = 0;
    let count = 0;
    while (count < this.pending.length) {
      const size = (this.pending[count] as PendingWrite).rows;
      if (count > 0 && rows + size > MAX_GROUP_ROWS) break;
      rows += size;
      count++;
    }
    return this.pending.splice(0, count);
  }

  /** Commits one group; schedules the next one if writes are still waiting. */
  private flushGroup(): void {
    const group = this.takeGroup();
    if (this.pending.length > 0) this.scheduleFlush();
    if (group.length === 0) return;
    if (!this.db.open) {
      for (const write of group) write.fail(new Error('storage is closed'));
      return;
    }
    // Each write's answer runs only once the shared commit returned (never before: an answer means "on disk").
    const timing = commitTiming();
    const start = timing === undefined ? 0 : performance.now();
    const outcomes = commitGroup(this.db, this.runner, group, (write) => write.execute(), timing);
    traceTransaction('main', start, 0, timing, { writes: group.length });
    group.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if (outcome instanceof Error) write.fail(outcome);
      else outcome();
    });
  }

  migrate(schema: readonly Migration[]): Promise<void> {
    // A migration may sort or copy a whole table (CREATE INDEX, INSERT … SELECT): in temporary files, not in RAM.
    this.db.pragma('temp_store = FILE');
    try {
      this.applyMigrations(schema);
    } finally {
      this.db.pragma('temp_store = MEMORY');
    }
    return Promise.resolve();
  }

  private applyMigrations(schema: readonly Migration[]): void {
    this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
    for (const step of migrationSteps(schema)) {
      // IMMEDIATE takes the write lock first, so two processes on one file cannot both apply a version.
      this.db.transaction(() => {
        const done = this.db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(step.version);
        if (done) return;
        for (const part of step.parts) this.db.exec(part.sqlite);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
          .run(step.version, step.name, Date.now());
      }).immediate();
    }
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  async close(): Promise<void> {
    // The lanes' threads commit what they were sent, then close their connections.
    await Promise.all([...this.lanes.values()].map((thread) => thread.close()));
    this.lanes.clear();
    // The checkpoint thread's connection closes next, so that this one is the last: SQLite then checkpoints the whole
    // WAL and removes it.
    await this.checkpointer?.stop();
    // Writes already queued (ingest batches, first assignments) are committed and answered before the
    // connection goes away.
    while (this.pending.length > 0 && this.db.open) this.flushGroup();
    if (this.db.open) this.db.close();
  }
}

/** Opens (creating if needed) a SQLite database file and migrates it to `schema` (the service's: server/schema.ts). */
export async function openSqliteStorage(file: string, schema: readonly Migration[], options: SqliteStorageOptions = {}): Promise<SqliteStorage> {
  const storage = new SqliteStorage(file, options);
  await storage.migrate(schema);
  return storage;
}
