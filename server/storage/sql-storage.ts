import type { Migration } from './migrations.js';
import type { GroupProgram, Lane, NamedProgram } from './program.js';
import type { SqlProgram } from './sql-program.js';
import type { Storage, TransactionOptions } from './storage.js';

/** How a lane's writes reach the disk before they are answered (storage.ts: TransactionOptions). */
export const LANE_DURABILITY: Record<Exclude<Lane, 'report'>, TransactionOptions['durability']> = {
  interactive: 'commit',
  bulk: 'disk',
  background: 'commit',
};

// What both drivers share: a program runs outside a transaction (`run`) or as one (`transaction`). The programs
// themselves live with their domain; their SQL is the common subset of SQLite (≥ 3.35) and PostgreSQL: ON CONFLICT
// … DO NOTHING / DO UPDATE … WHERE, RETURNING, `?` placeholders (rewritten for pg).

export abstract class SqlStorage implements Storage {
  abstract readonly dialect: 'sqlite' | 'postgres';
  abstract migrate(schema: readonly Migration[]): Promise<void>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
  /** Runs a fresh program from `make` (a driver may retry a transaction with a new one). */
  protected abstract execute<T>(make: () => SqlProgram<T>, transaction: TransactionOptions | null): Promise<T>;

  run<T>(make: () => SqlProgram<T>): Promise<T> {
    return this.execute(make, null);
  }

  transaction<T>(make: () => SqlProgram<T>, options: TransactionOptions = {}): Promise<T> {
    return this.execute(make, options);
  }

  /** On the storage's own connection: a read outside any transaction, or a transaction of its lane's durability. */
  place<A extends unknown[], T>(program: NamedProgram<A, T>, ...args: A): Promise<T> {
    if (program.lane === 'report') return this.run(() => program.make(...args));
    return this.transaction(() => program.make(...args), { durability: LANE_DURABILITY[program.lane] });
  }

  /** On the storage's own connection, alone (a driver may group inputs: PostgreSQL does). */
  group<I, R>(program: GroupProgram<I, R>, input: I): Promise<R> {
    return this.transaction(() => program.make([input]), { rows: program.rows(input) }).then(([result]) => result as R);
  }

  hostPrograms(_module: URL): void {
    // Nothing runs elsewhere: every program runs on this storage's connections.
  }

  warm(): Promise<void> {
    return Promise.resolve();
  }
}
