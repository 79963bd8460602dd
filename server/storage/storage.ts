import type { SqlProgram } from './sql-program.js';

// One async interface over both drivers (better-sqlite3 embedded, PostgreSQL at scale): it runs the SQL programs of
// the domains (ingest/, identity/, consent/, choose/, recommendations/) and knows none of them. Every guard that
// must hold across nodes (event idempotency, first assignment, identity links) is a unique key enforced by the
// database, never an in-memory set. `project` is always `${org}/${project}`.

export interface Storage {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs pending migrations (idempotent; safe when several nodes start at once). */
  migrate(): Promise<void>;
  /** Cheap round trip for the health check. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /** The SQLite file, which a second connection (a worker thread's) may open; absent on PostgreSQL and in memory. */
  readonly file?: string;

  /**
   * Runs a domain's program outside any transaction: reads, and writes whose statements each stand alone
   * (insert-if-absent under a unique key). The program is made anew if the driver has to run it again.
   */
  run<T>(make: () => SqlProgram<T>): Promise<T>;
  /**
   * Runs a program as one transaction, committed once the promise resolves (on disk, unless `durability` says
   * otherwise). On SQLite the transactions that arrive in one turn of the event loop share one commit (group commit,
   * each in a savepoint of its own, so a failing one fails alone). On PostgreSQL each is a transaction of its own.
   */
  transaction<T>(make: () => SqlProgram<T>, options?: TransactionOptions): Promise<T>;
  /**
   * PostgreSQL only: calls `onNotify` on every `NOTIFY` on `channel` (a program sends one with
   * `SELECT pg_notify(channel, '')`, delivered at its commit), on a connection of its own. `onLost` is called once if
   * that connection fails; listen again to resume. Resolves to the function that stops listening.
   */
  listen?(channel: string, onNotify: () => void, onLost: (error: Error) => void): Promise<() => Promise<void>>;
}

export interface TransactionOptions {
  /** Rows the program writes: bounds a SQLite group commit. */
  rows?: number;
  /**
   * `disk` (the default): resolved once the commit reached the disk. `commit`: once the database committed it, before
   * its log is flushed: a crash of this process loses nothing, a crash of the machine (or of PostgreSQL's server) may
   * lose the last such commits. PostgreSQL commits with `synchronous_commit = off`; SQLite's main connection always
   * syncs (the Choose writer thread has a connection that does not).
   */
  durability?: 'disk' | 'commit';
}
