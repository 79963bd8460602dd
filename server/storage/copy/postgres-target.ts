import pg from 'pg';
import { kindOf, toPostgres, type Column } from './column-values.js';
import { quoted } from './sql-name.js';
import { TableChecksum, type TableSummary } from './table-checksum.js';

/** Where a copy keeps how far each table got, in the target itself: written in each batch's transaction. */
export const PROGRESS_TABLE = 'svc_copy_progress';
/** Bound parameters per INSERT statement: under PostgreSQL's 65,535. */
const INSERT_PARAMETERS = 30_000;
/** Rows per FETCH when a table is read back for its checksum. */
const FETCH_ROWS = 5000;

export interface TargetTable {
  name: string;
  columns: Column[];
  /** The primary key's columns, in the key's order. */
  key: string[];
  /** Its identity columns: an INSERT of their values says OVERRIDING SYSTEM VALUE. */
  identity: boolean;
  /** Triggers that fire on INSERT: off while a batch copies rows as they were (what they would add is copied too). */
  insertTriggers: string[];
  /** The sequences behind its columns (identity or serial), set past the copied rows at the end. */
  sequences: { column: string; sequence: string }[];
}

export interface TableProgress {
  lastKey: string | null;
  rows: number;
  done: boolean;
}

/** One batch of one table, committed with the table's progress. */
export interface Batch {
  rows: readonly (readonly unknown[])[];
  /** Delete what the migrations seeded in the table first (its first batch only). */
  clearSeed: boolean;
  progress: TableProgress;
}

/** The PostgreSQL database a copy writes, through one connection of its own. */
export class PostgresTarget {
  private constructor(private readonly client: pg.Client) {}

  static async connect(url: string): Promise<PostgresTarget> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    return new PostgresTarget(client);
  }

  async versions(): Promise<number[]> {
    const { rows } = await this.client.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
    return rows.map((r) => Number(r.version));
  }

  /** The service's tables (the public schema's, but the migrations' and the copy's bookkeeping), by name. */
  async tables(): Promise<Map<string, TargetTable>> {
    const { rows } = await this.client.query<{ table_name: string; column_name: string; data_type: string; seq: string | null }>(`
      SELECT c.table_name, c.column_name, c.data_type,
        CASE WHEN c.is_identity = 'YES' OR c.column_default LIKE 'nextval(%'
          THEN pg_get_serial_sequence(quote_ident(c.table_name), c.column_name) END AS seq
      FROM information_schema.columns c JOIN information_schema.tables t USING (table_schema, table_name)
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE' AND c.table_name NOT IN ('schema_migrations', $1)
      ORDER BY c.table_name, c.ordinal_position`, [PROGRESS_TABLE]);
    const tables = new Map<string, TargetTable>();
    for (const row of rows) {
      let table = tables.get(row.table_name);
      if (!table) {
        table = { name: row.table_name, columns: [], key: [], identity: false, insertTriggers: [], sequences: [] };
        tables.set(row.table_name, table);
      }
      table.columns.push({ name: row.column_name, kind: kindOf(row.data_type) });
      if (row.seq !== null) table.sequences.push({ column: row.column_name, sequence: row.seq });
    }
    const keys = await this.client.query<{ table_name: string; column_name: string }>(`
      SELECT c.relname AS table_name, a.attname AS column_name
      FROM pg_index x JOIN pg_class c ON c.oid = x.indrelid
        CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, place)
        JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = k.attnum
      WHERE x.indisprimary AND c.relnamespace = 'public'::regnamespace ORDER BY c.relname, k.place`);
    for (const row of keys.rows) tables.get(row.table_name)?.key.push(row.column_name);
    const identity = await this.client.query<{ table_name: string }>(
      "SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = 'public' AND is_identity = 'YES'");
    for (const row of identity.rows) {
      const table = tables.get(row.table_name);
      if (table) table.identity = true;
    }
    const triggers = await this.client.query<{ table_name: string; trigger_name: string }>(`
      SELECT DISTINCT event_object_table AS table_name, trigger_name FROM information_schema.triggers
      WHERE event_object_schema = 'public' AND event_manipulation = 'INSERT'`);
    for (const row of triggers.rows) tables.get(row.table_name)?.insertTriggers.push(row.trigger_name);
    return tables;
  }

  /** Every row of the table counted and hashed in its key's order (text keys in byte order, as SQLite sorts them). */
  async summarize(table: TargetTable): Promise<TableSummary> {
    const sum = new TableChecksum(table.columns);
    const text = new Set(table.columns.filter((c) => c.kind === 'text').map((c) => c.name));
    const order = table.key.map((k) => (text.has(k) ? `${quoted(k)} COLLATE "C"` : quoted(k))).join(', ');
    await this.client.query('BEGIN READ ONLY');
    try {
      await this.client.query(`DECLARE svc_copy_rows NO SCROLL CURSOR FOR
        SELECT ${table.columns.map((c) => quoted(c.name)).join(', ')} FROM ${quoted(table.name)} ORDER BY ${order}`);
      for (;;) {
        const { rows } = await this.client.query<unknown[]>({ text: `FETCH ${FETCH_ROWS} FROM svc_copy_rows`, rowMode: 'array' });
        for (const row of rows) sum.add(row);
        if (rows.length < FETCH_ROWS) break;
      }
    } finally {
      await this.client.query('COMMIT');
    }
    return sum.summary();
  }

  /** Whether a copy into this database was started and not finished. */
  async copyStarted(): Promise<boolean> {
    const { rows } = await this.client.query<{ found: string | null }>('SELECT to_regclass($1)::text AS found', [PROGRESS_TABLE]);
    return rows[0]?.found != null;
  }

  /** Creates the progress table with a row per table, nothing copied yet. */
  async startCopy(tables: readonly string[]): Promise<void> {
    await this.inTransaction(async () => {
      await this.client.query(`CREATE TABLE ${PROGRESS_TABLE} (
        table_name TEXT PRIMARY KEY, last_key TEXT, rows BIGINT NOT NULL, done BOOLEAN NOT NULL)`);
      for (const table of tables) {
        await this.client.query(`INSERT INTO ${PROGRESS_TABLE} (table_name, last_key, rows, done) VALUES ($1, NULL, 0, false)`, [table]);
      }
    });
  }

  async progress(): Promise<Map<string, TableProgress>> {
    const { rows } = await this.client.query<{ table_name: string; last_key: string | null; rows: string; done: boolean }>(
      `SELECT table_name, last_key, rows, done FROM ${PROGRESS_TABLE}`);
    return new Map(rows.map((r) => [r.table_name, { lastKey: r.last_key, rows: Number(r.rows), done: r.done }]));
  }

  /** Inserts a batch and records the table's progress, in one transaction: a copy killed meanwhile stored neither. */
  async write(table: TargetTable, batch: Batch): Promise<void> {
    const name = quoted(table.name);
    const columns = table.columns.map((c) => quoted(c.name)).join(', ');
    const head = `INSERT INTO ${name} (${columns})${table.identity ? ' OVERRIDING SYSTEM VALUE' : ''} VALUES `;
    const width = table.columns.length;
    const perStatement = Math.max(1, Math.floor(INSERT_PARAMETERS / width));
    await this.inTransaction(async () => {
      // ALTER TABLE is transactional: the triggers are back on at COMMIT, or never were off after a ROLLBACK.
      for (const trigger of table.insertTriggers) await this.client.query(`ALTER TABLE ${name} DISABLE TRIGGER ${quoted(trigger)}`);
      if (batch.clearSeed) await this.client.query(`DELETE FROM ${name}`);
      for (let i = 0; i < batch.rows.length; i += perStatement) {
        const chunk = batch.rows.slice(i, i + perStatement);
        let n = 0;
        const values = chunk.map(() => `(${table.columns.map(() => `$${++n}`).join(', ')})`).join(', ');
        const params = chunk.flatMap((row) => table.columns.map((c, at) => toPostgres(row[at], c.kind)));
        await this.client.query(head + values, params);
      }
      for (const trigger of table.insertTriggers) await this.client.query(`ALTER TABLE ${name} ENABLE TRIGGER ${quoted(trigger)}`);
      const { lastKey, rows, done } = batch.progress;
      await this.client.query(`UPDATE ${PROGRESS_TABLE} SET last_key = $2, rows = $3, done = $4 WHERE table_name = $1`, [
        table.name, lastKey, rows, done,
      ]);
    });
  }

  /** Sets each sequence of the table past its largest copied value: the next row the service adds takes a new id. */
  async advanceSequences(table: TargetTable): Promise<void> {
    for (const { column, sequence } of table.sequences) {
      await this.client.query(`SELECT setval($1, COALESCE(MAX(${quoted(column)}), 0) + 1, false) FROM ${quoted(table.name)}`, [sequence]);
    }
  }

  async finishCopy(): Promise<void> {
    await this.client.query(`DROP TABLE IF EXISTS ${PROGRESS_TABLE}`);
  }

  async close(): Promise<void> {
    await this.client.end();
  }

  private async inTransaction(work: () => Promise<void>): Promise<void> {
    await this.client.query('BEGIN');
    try {
      await work();
      await this.client.query('COMMIT');
    } catch (error) {
      await this.client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  }
}
