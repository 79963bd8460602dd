// Storage logic is written once as generators that yield SQL operations (`?` placeholders); each driver
// runs them its own way: better-sqlite3 synchronously inside `db.transaction` (so no other request can
// interleave with an open transaction on the single connection), pg asynchronously on one pooled client.
// What the two databases do differently is said by the operation, never by the program: an insert of many rows
// (insertRows), a lock that only concurrent writers need (lockKeys, lockingRows), a notification at commit (notify).

export type SqlValue = string | number | null;

export interface SqlOp {
  sql: string;
  params: SqlValue[];
  /** Rows as arrays of column values (`SqlResult.values`), for reads of many rows: no object per row. */
  values?: boolean;
  /** insertRows: `sql` is the INSERT's head, these its rows. */
  rows?: RowsInsert;
  /**
   * lockingRows: the rows a read returns are locked until the transaction ends (`skip`: rows locked by others are
   * skipped).
   */
  lockRows?: 'wait' | 'skip';
  /** lockKeys: `sql` is empty; these keys are locked until the transaction ends. */
  locks?: { keys: readonly string[]; shared: boolean };
  /** notify: `sql` is empty; listeners of this channel are told once the transaction commits (Storage.listen). */
  notify?: string;
  /** throughIndex: the index a read of `table` goes through, where the driver's planner must be told. */
  index?: { table: string; name: string };
}

/** The rows of an insertRows operation. */
export interface RowsInsert {
  values: readonly (readonly SqlValue[])[];
  /** What follows VALUES, e.g. `ON CONFLICT (project, event_id) DO NOTHING`. */
  conflict: string;
  /** The unique key's columns and their places in a row: `SqlResult.inserted` then says which rows were inserted. */
  key?: { columns: string; at: readonly number[] };
}

export type SqlRow = Record<string, unknown>;

export interface SqlResult {
  /** Rows changed by an INSERT/UPDATE/DELETE without RETURNING. */
  changes: number;
  rows: SqlRow[];
  /** The rows of a `values` read (valuesOp): each an array of its columns, in the SELECT's order. */
  values?: unknown[][];
  /** insertRows with a `key`: per row, whether this operation inserted it (the first of rows with equal keys). */
  inserted?: boolean[];
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
 * An insert of many rows of one shape, run the driver's way: on SQLite one single-row statement per row (prepared
 * once: in process, cheaper than binding a statement per row count), on PostgreSQL one multi-row statement per
 * chunk (a round trip each). With `key`, `result.inserted` tells which rows this insert stored (a conflict skipped the
 * others); `result.changes` counts them.
 * @example const { inserted } = yield insertRows('INSERT INTO t (project, id, v)', rows, 'ON CONFLICT (project, id) DO NOTHING',
 *            { columns: 'project, id', at: [0, 1] });
 */
export function insertRows(
  head: string, values: readonly (readonly SqlValue[])[], conflict = '', key?: RowsInsert['key'],
): SqlOp {
  return { sql: head, params: [], rows: { values, conflict, ...(key ? { key } : {}) } };
}

/**
 * A read whose rows stay locked until the transaction ends, for a read-then-write that concurrent writers of the
 * same rows must not interleave with (`skip`: each transaction takes rows nobody has locked, as a queue's consumers
 * do). Where writers run one at a time (SQLite), a plain read.
 * @example yield lockingRows(op('SELECT id FROM model_inbox WHERE id > ? ORDER BY id LIMIT ?', after, n), 'skip');
 */
export function lockingRows(read: SqlOp, mode: 'wait' | 'skip'): SqlOp {
  return { ...read, lockRows: mode };
}

/**
 * Makes the transactions that lock the same key run one at a time until each ends (`shared`: those that share it run
 * together, and wait for one that holds it alone): for a check-then-write that no unique key guards (rows that do not
 * exist yet, or several rows read together). Keys are locked in the order given: give them in one order everywhere.
 * Where writers run one at a time (SQLite), nothing.
 * @example yield lockKeys([`aliases:${project}`]);
 */
export function lockKeys(keys: readonly string[], mode: 'alone' | 'shared' = 'alone'): SqlOp {
  return { sql: '', params: [], locks: { keys, shared: mode === 'shared' } };
}

/**
 * A read of `table` through the index `name`, for a driver whose planner would pick another one (SQLite, without
 * statistics, between two indexes that both match); PostgreSQL plans by its statistics and is told nothing.
 * @example yield throughIndex(valuesOp('SELECT … FROM events WHERE …', project), 'events', 'events_viewed');
 */
export function throughIndex(read: SqlOp, table: string, name: string): SqlOp {
  return { ...read, index: { table, name } };
}

/** Tells the listeners of `channel` (Storage.listen) once the transaction commits; nothing where nobody can listen. */
export function notify(channel: string): SqlOp {
  return { sql: '', params: [], notify: channel };
}
