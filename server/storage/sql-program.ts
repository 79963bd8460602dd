// Storage logic is written once as generators that yield SQL operations (`?` placeholders); each driver
// runs them its own way: better-sqlite3 synchronously inside `db.transaction` (so no other request can
// interleave with an open transaction on the single connection), pg asynchronously on one pooled client.

export type SqlValue = string | number | null;

export interface SqlOp {
  sql: string;
  params: SqlValue[];
}

export type SqlRow = Record<string, unknown>;

export interface SqlResult {
  /** Rows changed by an INSERT/UPDATE/DELETE without RETURNING. */
  changes: number;
  rows: SqlRow[];
}

export type SqlProgram<T> = Generator<SqlOp, T, SqlResult>;

export function op(sql: string, ...params: SqlValue[]): SqlOp {
  return { sql, params };
}
