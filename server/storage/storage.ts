import type { Migration } from './migrations.js';
import type { GroupProgram, NamedProgram } from './program.js';
import type { SqlProgram } from './sql-program.js';

// One async interface over both drivers (better-sqlite3 embedded, PostgreSQL at scale): it runs the SQL programs of
// the domains and knows none of them. Where a named program runs (a thread, the pool, a group commit) is its choice.
// Every guard that must hold across nodes (event idempotency, first assignment, identity links) is a unique key
// enforced by the database, never an in-memory set. `project` is always `${org}/${project}`.

export interface Storage {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs the migrations of `schema` not applied yet, in version order (idempotent; safe when nodes start at once). */
  migrate(schema: readonly Migration[]): Promise<void>;
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
   * Runs a named program where its lane says (program.ts): a `report` read, or an `interactive` or `bulk` write
   * committed as one transaction. Resolves once committed, as the lane promises.
   */
  place<A extends unknown[], T>(program: NamedProgram<A, T>, ...args: A): Promise<T>;
  /**
   * Stores one input of a group program, with the inputs that arrive meanwhile; resolves to its result once on disk.
   */
  group<I, R>(program: GroupProgram<I, R>, input: I): Promise<R>;
  /**
   * Where the storage's threads (if it has any) find every named program: the URL of a module whose `PROGRAMS` export
   * is the service's ProgramTable. Until this is called, every program runs on the storage's own connection.
   */
  hostPrograms(module: URL): void;
  /** Starts what runs the lanes (threads and their connections) before the first program waits for it. */
  warm(): Promise<void>;
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
