// Storage logic is written once as generators that yield SQL operations (`?` placeholders); each driver
// runs them its own way: better-sqlite3 synchronously inside `db.transaction` (so no other request can
// interleave with an open transaction on the single connection), pg asynchronously on one pooled client.

export type SqlValue = string | number | null;

export interface SqlOp {
  sql: string;
  params: SqlValue[];
  /** Rows as arrays of column values (`SqlResult.values`), for reads of many rows: no object per row. */
  values?: boolean;
}

export type SqlRow = Record<string, unknown>;

export interface SqlResult {
  /** Rows changed by an INSERT/UPDATE/DELETE without RETURNING. */
  changes: number;
  rows: SqlRow[];
  /** The rows of a `values` read (valuesOp): each an array of its columns, in the SELECT's order. */
  values?: unknown[][];
}

export type SqlProgram<T> = Generator<SqlOp, T, SqlResult>;

export function op(sql: string, ...params: SqlValue[]): SqlOp {
  return { sql, params };
}

/**
 * A read whose rows come back as arrays (`result.values`), for reads of many rows: no object is built per row.
 * @example const { values } = yield valuesOp('SELECT profile_id, ts FROM exposures WHERE project = ?', project);
 */
export function valuesOp(sql: string, ...params: SqlValue[]): SqlOp {
  return { sql, params, values: true };
}

/**
 * Makes the transactions that take the same `key` run one at a time, until each commits: a PostgreSQL advisory lock,
 * for a check-then-write that no unique key guards (what a row lock cannot cover: rows that do not exist yet, or
 * several rows read together). SQLite runs one write transaction at a time already.
 * @example yield* oneAtATime(storage.dialect, `aliases:${project}`);
 */
export function* oneAtATime(dialect: 'sqlite' | 'postgres', key: string): SqlProgram<void> {
  if (dialect === 'postgres') yield op('SELECT pg_advisory_xact_lock(hashtext(?))', key);
}
