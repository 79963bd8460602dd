import type { SqlProgram } from './sql-program.js';
import type { Storage, TransactionOptions } from './storage.js';

// What both drivers share: a program runs outside a transaction (`run`) or as one (`transaction`). The programs
// themselves live with their domain; their SQL is the common subset of SQLite (≥ 3.35) and PostgreSQL: ON CONFLICT
// … DO NOTHING / DO UPDATE … WHERE, RETURNING, `?` placeholders (rewritten for pg).

export abstract class SqlStorage implements Storage {
  abstract readonly dialect: 'sqlite' | 'postgres';
  abstract migrate(): Promise<void>;
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
}
