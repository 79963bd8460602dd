import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MIGRATIONS } from './migrations.js';
import type { SqlProgram, SqlResult } from './sql-program.js';
import { SqlStorage } from './sql-storage.js';

/**
 * The embedded default: one better-sqlite3 connection in WAL mode. Calls are synchronous, so a whole
 * program (a batch and its identity effects) runs inside one `db.transaction` without yielding to the
 * event loop: nothing can interleave with it.
 * @example const storage = await openSqliteStorage('./data/svc.db');
 */
export class SqliteStorage extends SqlStorage {
  readonly dialect = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Database.Statement>();

  constructor(file: string) {
    super();
    if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file);
    this.db.pragma('journal_mode = WAL');
    // FULL: a batch is acknowledged only after its commit reached the disk (nothing accepted is lost).
    this.db.pragma('synchronous = FULL');
    this.db.pragma('busy_timeout = 5000');
  }

  private statement(sql: string): Database.Statement {
    let stmt = this.statements.get(sql);
    if (!stmt) {
      stmt = this.db.prepare(sql);
      // Multi-row inserts differ per batch size; the cache stays bounded.
      if (this.statements.size > 1000) this.statements.clear();
      this.statements.set(sql, stmt);
    }
    return stmt;
  }

  private drive<T>(program: SqlProgram<T>): T {
    let step = program.next();
    while (!step.done) {
      const { sql, params } = step.value;
      const stmt = this.statement(sql);
      let result: SqlResult;
      if (stmt.reader) {
        result = { changes: 0, rows: stmt.all(...params) as Record<string, unknown>[] };
      } else {
        result = { changes: stmt.run(...params).changes, rows: [] };
      }
      step = program.next(result);
    }
    return step.value;
  }

  protected run<T>(make: () => SqlProgram<T>, transaction: boolean): Promise<T> {
    try {
      const value = transaction ? this.db.transaction(() => this.drive(make())).immediate() : this.drive(make());
      return Promise.resolve(value);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  migrate(): Promise<void> {
    this.db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
    for (const migration of MIGRATIONS) {
      // IMMEDIATE takes the write lock first, so two processes on one file cannot both apply a version.
      this.db.transaction(() => {
        const done = this.db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(migration.version);
        if (done) return;
        this.db.exec(migration.sqlite);
        this.db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)')
          .run(migration.version, migration.name, Date.now());
      }).immediate();
    }
    return Promise.resolve();
  }

  ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
    return Promise.resolve();
  }

  close(): Promise<void> {
    if (this.db.open) this.db.close();
    return Promise.resolve();
  }
}

/** Opens (creating if needed) and migrates a SQLite database file. */
export async function openSqliteStorage(file: string): Promise<SqliteStorage> {
  const storage = new SqliteStorage(file);
  await storage.migrate();
  return storage;
}
