import type { Migration } from '../migrations.js';
import { openPostgresStorage } from '../postgres/postgres-storage.js';
import { openSqliteStorage } from '../sqlite/sqlite-storage.js';
import { decodeKey, encodeKey } from './batch-key.js';
import type { Column } from './column-values.js';
import { PostgresTarget, type TargetTable } from './postgres-target.js';
import { SqliteSource } from './sqlite-source.js';
import type { TableSummary } from './table-checksum.js';

/** Rows per batch: one multi-row INSERT (split under PostgreSQL's parameter limit) and one transaction each. */
export const BATCH_ROWS = 5000;

export interface CopyOptions {
  /** The SQLite file (the service must not be running on it: what it writes after the copy starts is not copied). */
  from: string;
  /** postgres://… of an empty database (created when missing and the credentials may), migrated to `schema` first. */
  to: string;
  /** The service's migrations: both databases are brought to them. */
  schema: readonly Migration[];
  batchRows?: number;
  /** Called after each batch's commit (a test's way to stop a copy midway, as a kill would). */
  onBatch?: (table: string, copied: number) => void;
  /** Progress lines for the operator. */
  log?: (line: string) => void;
}

export interface CopiedTable extends TableSummary {
  table: string;
}

export interface CopyReport {
  /** Whether an earlier copy's progress was found and continued. */
  resumed: boolean;
  /** Every table, with the count and checksum found equal on both sides. */
  tables: CopiedTable[];
}

/**
 * Copies every table of a SQLite database into an empty PostgreSQL one, in batches of rows in primary key order,
 * each committed with the table's progress (so a copy stopped anywhere continues where it stopped when run again),
 * then checks that each table has the same count and checksum on both sides, moves the target's sequences past the
 * copied ids, and drops the progress. Refuses a target holding any row the migrations did not write there.
 * @example await copySqliteToPostgres({ from: './data/svc.db', to: 'postgres://postgres@127.0.0.1/svc', schema: SCHEMA });
 */
export async function copySqliteToPostgres(options: CopyOptions): Promise<CopyReport> {
  const log = options.log ?? (() => undefined);
  const source = await openSource(options.from, options.schema, log);
  let target: PostgresTarget | undefined;
  try {
    await (await openPostgresStorage(options.to, options.schema)).close();
    target = await PostgresTarget.connect(options.to);
    const tables = await matchTables(source, target, options.schema);
    const seeded = seededTables(options.schema, tables);
    const resumed = await target.copyStarted();
    if (resumed) log('continuing the copy that was started into this database');
    else {
      await refuseRows(target, tables, seeded);
      await target.startCopy([...tables.keys()]);
    }
    source.begin();
    const progress = await target.progress();
    for (const table of tables.values()) {
      const done = progress.get(table.name) ?? { lastKey: null, rows: 0, done: false };
      if (!done.done) await copyTable(source, target, table, done, seeded.has(table.name), options, log);
    }
    const copied = await verify(source, target, tables);
    for (const table of tables.values()) await target.advanceSequences(table);
    await target.finishCopy();
    return { resumed, tables: copied };
  } finally {
    source.close();
    await target?.close();
  }
}

/** The source at the schema's version: an older file is migrated first (as the service would on start). */
async function openSource(file: string, schema: readonly Migration[], log: (line: string) => void): Promise<SqliteSource> {
  const wanted = new Set(schema.map((m) => m.version));
  let source = SqliteSource.open(file);
  const applied = source.versions();
  const unknown = applied.filter((v) => !wanted.has(v));
  if (unknown.length > 0) {
    source.close();
    throw new Error(`${file} was migrated by a newer svc (versions ${unknown.join(', ')}): copy it with that version`);
  }
  if (applied.length < wanted.size) {
    source.close();
    log(`migrating ${file} to the current schema first`);
    await (await openSqliteStorage(file, schema)).close();
    source = SqliteSource.open(file);
  }
  return source;
}

/** The target's tables, after checking that the source has the same ones with the same columns. */
async function matchTables(source: SqliteSource, target: PostgresTarget, schema: readonly Migration[]): Promise<Map<string, TargetTable>> {
  const wanted = new Set(schema.map((m) => m.version));
  const versions = await target.versions();
  if (versions.some((v) => !wanted.has(v))) throw new Error('the target database was migrated by a newer svc');
  const tables = await target.tables();
  const sourceTables = source.tables();
  const differ = [...new Set([...sourceTables, ...tables.keys()])]
    .filter((name) => !sourceTables.includes(name) || !tables.has(name)
      || source.columns(name).sort().join() !== tables.get(name)!.columns.map((c) => c.name).sort().join());
  if (differ.length > 0) throw new Error(`the two databases' tables differ: ${differ.join(', ')}`);
  for (const table of tables.values()) {
    if (table.key.join() !== source.primaryKey(table.name).join()) throw new Error(`the primary keys of ${table.name} differ`);
  }
  return tables;
}

/** Tables the migrations write rows into (a fresh database holds them): name → what they hold. */
function seededTables(schema: readonly Migration[], tables: Map<string, TargetTable>): Map<string, TableSummary> {
  const pristine = SqliteSource.pristine(schema);
  try {
    const seeded = new Map<string, TableSummary>();
    for (const table of tables.values()) {
      const summary = pristine.summarize(table.name, table.columns, table.key);
      if (summary.rows > 0) seeded.set(table.name, summary);
    }
    return seeded;
  } finally {
    pristine.close();
  }
}

/** A target with any row the migrations did not write is someone's data: nothing is written into it. */
async function refuseRows(target: PostgresTarget, tables: Map<string, TargetTable>, seeded: Map<string, TableSummary>): Promise<void> {
  const used: string[] = [];
  for (const table of tables.values()) {
    const found = await target.summarize(table);
    const fresh = seeded.get(table.name);
    const untouched = fresh ? found.rows === fresh.rows && found.checksum === fresh.checksum : found.rows === 0;
    if (!untouched) used.push(`${table.name} (${found.rows} rows)`);
  }
  if (used.length > 0) {
    throw new Error(`the target database is not empty: ${used.join(', ')}; copy only into a new database (nothing was written)`);
  }
}

async function copyTable(
  source: SqliteSource, target: PostgresTarget, table: TargetTable, progress: { lastKey: string | null; rows: number },
  seeded: boolean, options: CopyOptions, log: (line: string) => void,
): Promise<void> {
  const limit = options.batchRows ?? BATCH_ROWS;
  const keyColumns: Column[] = table.key.map((k) => table.columns.find((c) => c.name === k)!);
  const keyAt = table.key.map((k) => table.columns.findIndex((c) => c.name === k));
  let { lastKey, rows } = progress;
  for (;;) {
    const batch = source.batch(table.name, table.columns, table.key, lastKey === null ? null : decodeKey(lastKey, keyColumns), limit);
    const first = lastKey === null && rows === 0;
    const last = batch.at(-1);
    if (last !== undefined) lastKey = encodeKey(keyAt.map((at) => last[at]));
    rows += batch.length;
    const done = batch.length < limit;
    await target.write(table, { rows: batch, clearSeed: first && seeded, progress: { lastKey, rows, done } });
    options.onBatch?.(table.name, rows);
    if (done) break;
  }
  if (rows > 0) log(`${table.name}: ${rows} rows copied`);
}

/** Each table's count and checksum on both sides; a difference stops the copy before its progress is dropped. */
async function verify(source: SqliteSource, target: PostgresTarget, tables: Map<string, TargetTable>): Promise<CopiedTable[]> {
  const copied: CopiedTable[] = [];
  const differ: string[] = [];
  for (const table of tables.values()) {
    const from = source.summarize(table.name, table.columns, table.key);
    const to = await target.summarize(table);
    if (from.rows !== to.rows || from.checksum !== to.checksum) differ.push(`${table.name} (${from.rows} rows read, ${to.rows} found)`);
    copied.push({ table: table.name, ...from });
  }
  if (differ.length > 0) {
    throw new Error(`the copy differs from the source in ${differ.join(', ')}: was the service running on the source?`);
  }
  return copied;
}
