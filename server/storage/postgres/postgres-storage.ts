import pg from 'pg';
import { MIGRATIONS } from '../migrations.js';
import type { SqlProgram, SqlResult } from '../sql-program.js';
import { SqlStorage } from '../sql-storage.js';
import type { TransactionOptions } from '../storage.js';

// Any fixed number: all nodes take the same advisory lock while migrating, so N nodes starting at once
// apply each version exactly once.
const MIGRATION_LOCK = 7_340_021;
// Two concurrent transactions touching the same unique keys can still deadlock or fail serialization in
// rare orders; PostgreSQL aborts one of them and a retry of the whole transaction is the documented remedy.
const RETRYABLE = new Set(['40P01', '40001']);

/** `?` placeholders → `$1…$n` (our SQL has no `?` inside string literals). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

interface Queryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  query(config: pg.QueryArrayConfig): Promise<pg.QueryArrayResult>;
}

/**
 * PostgreSQL through a `pg` pool (DATABASE_URL). Every guard lives in the database, so N service nodes on
 * one database agree.
 * @example const storage = await openPostgresStorage('postgres://postgres@127.0.0.1:5432/svc');
 */
export class PostgresStorage extends SqlStorage {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;

  constructor(connectionString: string, poolSize = 10) {
    super();
    this.pool = new pg.Pool({ connectionString, max: poolSize });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
  }

  private async drive<T>(program: SqlProgram<T>, db: Queryable): Promise<T> {
    let step = program.next();
    while (!step.done) {
      const { sql, params, values } = step.value;
      if (values) {
        const res = await db.query({ text: numbered(sql), values: params, rowMode: 'array' });
        step = program.next({ changes: 0, rows: [], values: res.rows as unknown[][] });
        continue;
      }
      const res = await db.query(numbered(sql), params);
      const result: SqlResult = { changes: res.command === 'SELECT' ? 0 : res.rowCount ?? 0, rows: res.rows as Record<string, unknown>[] };
      step = program.next(result);
    }
    return step.value;
  }

  private async inTransaction<T>(program: SqlProgram<T>, options: TransactionOptions): Promise<T> {
    const client = await this.pool.connect();
    try {
      // One round trip either way (a simple query may hold two statements).
      await client.query(options.durability === 'commit' ? 'BEGIN; SET LOCAL synchronous_commit TO off' : 'BEGIN');
      try {
        const value = await this.drive(program, client);
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
    } finally {
      client.release();
    }
  }

  protected async execute<T>(make: () => SqlProgram<T>, transaction: TransactionOptions | null): Promise<T> {
    if (transaction === null) return this.drive(make(), this.pool);
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.inTransaction(make(), transaction);
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (attempt >= 3 || code === undefined || !RETRYABLE.has(code)) throw error;
      }
    }
  }

  async migrate(): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((r) => Number(r.version)));
      for (const migration of MIGRATIONS) {
        if (applied.has(migration.version)) continue;
        await client.query(migration.postgres);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          migration.version, migration.name, Date.now(),
        ]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** Connects and migrates. */
export async function openPostgresStorage(connectionString: string): Promise<PostgresStorage> {
  const storage = new PostgresStorage(connectionString);
  try {
    await storage.migrate();
  } catch (error) {
    await storage.close();
    throw error;
  }
  return storage;
}
