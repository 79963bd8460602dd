import Database from 'better-sqlite3';
import { migrationSteps, type Migration } from '../migrations.js';
import type { Column } from './column-values.js';
import { quoted } from './sql-name.js';
import { TableChecksum, type TableSummary } from './table-checksum.js';

/** SQLite's own tables and the migrations' bookkeeping, which the target keeps for itself. */
const NOT_COPIED = new Set(['schema_migrations', 'sqlite_sequence', 'sqlite_stat1', 'sqlite_stat4']);

/**
 * The SQLite database a copy reads, through a read-only connection of its own. Everything it reads between `begin()`
 * and `close()` comes from one read transaction: one snapshot of the file, the same for the copy and its checks.
 * Integers are read as bigints, so none is rounded on the way.
 */
export class SqliteSource {
  private inTransaction = false;

  private constructor(private readonly db: Database.Database) {
    db.defaultSafeIntegers(true);
  }

  static open(file: string): SqliteSource {
    return new SqliteSource(new Database(file, { readonly: true, fileMustExist: true }));
  }

  /** A database in memory with nothing but what `schema`'s migrations write: the rows a fresh target holds. */
  static pristine(schema: readonly Migration[]): SqliteSource {
    const db = new Database(':memory:');
    for (const step of migrationSteps(schema)) for (const part of step.parts) db.exec(part.sqlite);
    return new SqliteSource(db);
  }

  /** The migration versions applied to the file. */
  versions(): number[] {
    const found = this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get();
    if (!found) return [];
    return this.db.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all().map(Number);
  }

  /** Its tables but SQLite's own and the migrations' bookkeeping. */
  tables(): string[] {
    return (this.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[])
      .filter((name) => !NOT_COPIED.has(name));
  }

  columns(table: string): string[] {
    return (this.db.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).pluck().all(table) as string[]);
  }

  /** The primary key's columns, in the key's order. */
  primaryKey(table: string): string[] {
    const key = this.db.prepare('SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk').pluck().all(table) as string[];
    if (key.length === 0) throw new Error(`table ${table} has no primary key to copy it in order by`);
    return key;
  }

  /** Starts the read transaction every later read shares (a deferred one takes its snapshot at its first read). */
  begin(): void {
    this.db.exec('BEGIN');
    this.db.prepare('SELECT count(*) FROM sqlite_master').get();
    this.inTransaction = true;
  }

  /** Up to `limit` rows (values in `columns`' order) after `after` in the order of `key` (from the first when null). */
  batch(table: string, columns: readonly Column[], key: readonly string[], after: readonly unknown[] | null, limit: number): unknown[][] {
    const list = columns.map((c) => quoted(c.name)).join(', ');
    const order = key.map(quoted).join(', ');
    const where = after === null ? '' : `WHERE (${order}) > (${key.map(() => '?').join(', ')})`;
    return this.db.prepare(`SELECT ${list} FROM ${quoted(table)} ${where} ORDER BY ${order} LIMIT ?`).raw(true)
      .all(...(after ?? []), limit) as unknown[][];
  }

  /** Every row of `table` counted and hashed in its key's order. */
  summarize(table: string, columns: readonly Column[], key: readonly string[]): TableSummary {
    const sum = new TableChecksum(columns);
    const list = columns.map((c) => quoted(c.name)).join(', ');
    const rows = this.db.prepare(`SELECT ${list} FROM ${quoted(table)} ORDER BY ${key.map(quoted).join(', ')}`).raw(true);
    for (const row of rows.iterate() as IterableIterator<unknown[]>) sum.add(row);
    return sum.summary();
  }

  close(): void {
    if (this.inTransaction) this.db.exec('COMMIT');
    this.inTransaction = false;
    this.db.close();
  }
}
