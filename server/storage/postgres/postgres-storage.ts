import pg from 'pg';
import { migrationSteps, type Migration } from '../migrations.js';
import type { GroupProgram } from '../program.js';
import type { RowsInsert, SqlOp, SqlProgram, SqlResult } from '../sql-program.js';
import { SqlStorage } from '../sql-storage.js';
import type { TransactionOptions } from '../storage.js';
import { PostgresGroups } from './group-commit.js';

// Any fixed number: all nodes take the same advisory lock while migrating, so N nodes starting at once
// apply each version exactly once.
const MIGRATION_LOCK = 7_340_021;
// Two concurrent transactions touching the same unique keys can still deadlock or fail serialization in
// rare orders; PostgreSQL aborts one of them and a retry of the whole transaction is the documented remedy.
const RETRYABLE = new Set(['40P01', '40001']);
/** A connection not made within this long fails: a server that accepts and never answers hangs nothing. */
const CONNECT_TIMEOUT_MS = 5000;

/** `?` placeholders → `$1…$n` (our SQL has no `?` inside string literals). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Bound parameters per multi-row INSERT: well under PostgreSQL's 65,535. */
const INSERT_PARAMETERS = 30_000;

/**
 * The operations PostgreSQL runs its own way (sql-program.ts): a multi-row INSERT per chunk (which rows it stored:
 * RETURNING the key), transaction-scoped advisory locks, pg_notify.
 */
async function special(operation: SqlOp, db: Queryable): Promise<SqlResult> {
  if (operation.locks !== undefined) {
    const { keys, shared } = operation.locks;
    if (keys.length > 0) {
      await db.query(
        `SELECT ${shared ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock'}(hashtextextended(k, 0))
         FROM (VALUES ${keys.map((_, i) => `($${i + 1})`).join(', ')}) AS v(k)`,
        [...keys],
      );
    }
    return { changes: 0, rows: [] };
  }
  if (operation.notify !== undefined) {
    await db.query('SELECT pg_notify($1, $2)', [operation.notify, '']);
    return { changes: 0, rows: [] };
  }
  return insertRows(operation.sql, operation.rows as RowsInsert, db);
}

/** insertRows on PostgreSQL: multi-row statements; with a key, the rows inserted are read back by it. */
async function insertRows(head: string, { values, conflict, key }: RowsInsert, db: Queryable): Promise<SqlResult> {
  if (values.length === 0) return { changes: 0, rows: [], ...(key ? { inserted: [] } : {}) };
  const width = values[0]!.length;
  const perStatement = Math.max(1, Math.floor(INSERT_PARAMETERS / width));
  const stored = new Set<string>();
  let changes = 0;
  for (let i = 0; i < values.length; i += perStatement) {
    const chunk = values.slice(i, i + perStatement);
    let n = 0;
    const rows = chunk.map(() => `(${Array.from({ length: width }, () => `$${++n}`).join(', ')})`).join(', ');
    const res = await db.query(`${head} VALUES ${rows} ${conflict}${key ? ` RETURNING ${key.columns}` : ''}`, chunk.flat());
    changes += res.rowCount ?? 0;
    if (key) for (const row of res.rows as Record<string, unknown>[]) stored.add(Object.values(row).map(String).join('\n'));
  }
  if (!key) return { changes, rows: [] };
  // The first of rows with equal keys is the one inserted; the key is forgotten once given, so the others were not.
  const inserted = values.map((row) => stored.delete(key.at.map((at) => String(row[at])).join('\n')));
  return { changes, rows: [], inserted };
}

interface Queryable {
  query(text: string, values?: unknown[]): Promise<pg.QueryResult>;
  query(config: pg.QueryArrayConfig): Promise<pg.QueryArrayResult>;
}

/**
 * PostgreSQL through a `pg` pool (DATABASE_URL). Every guard lives in the database, so N service nodes on
 * one database agree.
 * @example const storage = await openPostgresStorage('postgres://postgres@127.0.0.1:5432/svc', SCHEMA);
 */
export class PostgresStorage extends SqlStorage {
  readonly dialect = 'postgres' as const;
  private readonly pool: pg.Pool;
  /** Group commit per group program, by name. */
  private readonly groups = new Map<string, PostgresGroups<unknown, unknown>>();

  constructor(private readonly connectionString: string, poolSize = 10) {
    super();
    // A server that accepts the connection and never answers must not hang a start, a request or a shutdown: a
    // connection not made within 5 s fails (503 storage_unavailable), and TCP keep-alive finds a dead peer.
    this.pool = new pg.Pool({ connectionString, max: poolSize, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
    // An idle client losing its connection must not crash the process; the pool replaces it.
    this.pool.on('error', () => undefined);
  }

  /** The inputs of a group program that arrive while one of its transactions runs share the next (group-commit.ts). */
  override group<I, R>(program: GroupProgram<I, R>, input: I): Promise<R> {
    let groups = this.groups.get(program.name) as PostgresGroups<I, R> | undefined;
    if (groups === undefined) {
      groups = new PostgresGroups(this, program);
      this.groups.set(program.name, groups as PostgresGroups<unknown, unknown>);
    }
    return groups.add(input);
  }

  private async drive<T>(program: SqlProgram<T>, db: Queryable): Promise<T> {
    let step = program.next();
    while (!step.done) {
      const operation = step.value;
      if (operation.rows !== undefined || operation.locks !== undefined || operation.notify !== undefined) {
        step = program.next(await special(operation, db));
        continue;
      }
      const { params, values } = operation;
      const sql = operation.lockRows === undefined ? operation.sql
        : `${operation.sql} FOR UPDATE${operation.lockRows === 'skip' ? ' SKIP LOCKED' : ''}`;
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

  async migrate(schema: readonly Migration[]): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)`);
      const { rows } = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
      const applied = new Set(rows.map((r) => Number(r.version)));
      for (const step of migrationSteps(schema)) {
        if (applied.has(step.version)) continue;
        for (const part of step.parts) await client.query(part.postgres);
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
          step.version, step.name, Date.now(),
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

  async listen(channel: string, onNotify: () => void, onLost: (error: Error) => void): Promise<() => Promise<void>> {
    const client = new pg.Client({ connectionString: this.connectionString, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
    let lost = false;
    const fail = (error: Error): void => {
      if (lost) return;
      lost = true;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      onLost(error);
    };
    client.on('error', fail);
    client.on('end', () => fail(new Error('the listening connection ended')));
    client.on('notification', (message) => {
      if (message.channel === channel) onNotify();
    });
    await client.connect();
    await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
    return async () => {
      lost = true;
      await client.end().catch(() => undefined);
    };
  }

  async ping(): Promise<void> {
    await this.pool.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** PostgreSQL's "database does not exist" and "database already exists". */
const NO_SUCH_DATABASE = '3D000';
const DATABASE_EXISTS = '42P04';

/**
 * Creates the database `connectionString` names, through the server's `postgres` database with the same
 * credentials. Only plain names (letters, digits, `_`) are created.
 */
async function createDatabase(connectionString: string): Promise<void> {
  const url = new URL(connectionString);
  const name = decodeURIComponent(url.pathname.slice(1));
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name)) {
    throw new Error(`database "${name}" does not exist, and only plain names (letters, digits, _) are created`);
  }
  url.pathname = '/postgres';
  const admin = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } catch (error) {
    if ((error as { code?: string }).code !== DATABASE_EXISTS) throw error;
  } finally {
    await admin.end();
  }
}

/**
 * Connects and migrates. A database that does not exist yet is created when the server lets these credentials
 * create one (as a first `npm start` creates SQLite's file).
 */
export async function openPostgresStorage(connectionString: string, schema: readonly Migration[], create = true): Promise<PostgresStorage> {
  const storage = new PostgresStorage(connectionString);
  try {
    await storage.migrate(schema);
  } catch (error) {
    await storage.close();
    if (!create || (error as { code?: string }).code !== NO_SUCH_DATABASE) throw error;
    try {
      await createDatabase(connectionString);
    } catch (creating) {
      throw new Error(`${(error as Error).message}, and it could not be created: ${(creating as Error).message}`);
    }
    return openPostgresStorage(connectionString, schema, false);
  }
  return storage;
}
