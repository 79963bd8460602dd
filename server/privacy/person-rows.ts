import { op, type SqlProgram, type SqlRow, type SqlValue } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { inList, type Person } from './person.js';

// Where a person's rows are, table by table: one description serves both the export (which reads them) and the
// erasure (which removes them), so that an export returns exactly the rows an erasure removes. The small tables are
// read by the person's ids at once; events and exposures, which have no index by person, are walked in chunks of their
// key (a chunk per transaction: resumable, and never holding the writer for long). docs/privacy.md lists every table.

/** Rows of one kind, as an export holds them: columns in camelCase, without the project, JSON columns parsed. */
export type ExportRow = Record<string, unknown>;

/** A table read by the person's ids: what the export key is, and what erasure does to its rows. */
interface PersonTable {
  key: string;
  table: string;
  where: (p: Person) => [string, SqlValue[]];
  order: string;
  /** Consent records stay as proof without the person's ids; every other row goes. */
  erase: 'delete' | 'anonymize';
}

const any = (column: string, ids: string[]): [string, SqlValue[]] => [`${column} IN ${inList(ids.length)}`, ids];
function or(...parts: [string, SqlValue[]][]): [string, SqlValue[]] {
  return [`(${parts.map(([sql]) => sql).join(' OR ')})`, parts.flatMap(([, params]) => params)];
}

export const PERSON_TABLES: readonly PersonTable[] = [
  { key: 'identities', table: 'identities', where: (p) => or(any('profile_id', p.profiles), any('user_id', p.users)), order: 'user_id', erase: 'delete' },
  { key: 'profileUsers', table: 'profile_users', where: (p) => or(any('profile_id', p.profiles), any('user_id', p.users)), order: 'profile_id', erase: 'delete' },
  {
    key: 'personLinks', table: 'person_links', order: 'profile_id, user_id, other_user_id', erase: 'delete',
    where: (p) => or(any('profile_id', p.profiles), any('user_id', p.users), any('other_user_id', p.users)),
  },
  { key: 'aliases', table: 'aliases', where: (p) => or(any('user_id', p.users), any('target_user_id', p.users)), order: 'user_id', erase: 'delete' },
  { key: 'accounts', table: 'profile_accounts', where: (p) => any('profile_id', p.profiles), order: 'profile_id, account_id', erase: 'delete' },
  {
    key: 'attributes', table: 'attributes', order: 'owner_id, key', erase: 'delete',
    where: (p) => { const [sql, params] = any('owner_id', p.profiles); return [`scope = 'profile' AND ${sql}`, params]; },
  },
  { key: 'assignments', table: 'assignments', where: (p) => any('unit', [...p.profiles, ...p.users]), order: 'unit, experience', erase: 'delete' },
  { key: 'recentlyViewed', table: 'profile_recent', where: (p) => any('profile_id', p.profiles), order: 'profile_id, product_id', erase: 'delete' },
  { key: 'cartsAndOrders', table: 'profile_products', where: (p) => any('profile_id', p.profiles), order: 'profile_id, product_id', erase: 'delete' },
  { key: 'recommendations', table: 'recommendations', where: (p) => any('profile_id', p.profiles), order: 'issued_at, recommendation_id', erase: 'delete' },
  { key: 'consents', table: 'consents', where: (p) => or(any('profile_id', p.profiles), any('email', p.emails)), order: 'id', erase: 'anonymize' },
];

const JSON_COLUMNS = new Set(['payload', 'choices', 'value', 'data']);

/** A stored row as an export holds it. */
export function exportRow(row: SqlRow): ExportRow {
  const out: ExportRow = {};
  for (const [column, value] of Object.entries(row)) {
    if (column === 'project') continue;
    const key = column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
    out[key] = JSON_COLUMNS.has(column) && typeof value === 'string' ? JSON.parse(value) : typeof value === 'bigint' ? Number(value) : value;
  }
  return out;
}

/** The person's rows of the small tables, by export key. */
export function* readPersonTables(project: string, person: Person): SqlProgram<Record<string, ExportRow[]>> {
  const out: Record<string, ExportRow[]> = {};
  for (const t of PERSON_TABLES) {
    const [where, params] = t.where(person);
    const { rows } = yield op(`SELECT * FROM ${t.table} WHERE project = ? AND ${where} ORDER BY ${t.order}`, project, ...params);
    out[t.key] = rows.map(exportRow);
  }
  return out;
}

/**
 * Removes the person's rows of the small tables (consent records: kept as proof, their ids replaced by `erased:<request
 * id>`, email, message and event id cleared), and answers how many of each.
 */
export function* erasePersonTables(project: string, person: Person, requestId: string): SqlProgram<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const t of PERSON_TABLES) {
    const [where, params] = t.where(person);
    const { changes } = t.erase === 'delete'
      ? yield op(`DELETE FROM ${t.table} WHERE project = ? AND ${where}`, project, ...params)
      : yield op(
        `UPDATE ${t.table} SET profile_id = ?, email = NULL, message = NULL, event_id = NULL WHERE project = ? AND ${where}`,
        `erased:${requestId}`, project, ...params,
      );
    counts[t.key] = changes;
  }
  return counts;
}

/** Keys per chunk of events or exposures. */
export const SCAN_CHUNK = 5000;

/** One chunk of a walk: the person's rows in it, and where the next chunk starts (null: the walk is over). */
export interface Chunk {
  rows: SqlRow[];
  next: string | null;
}

/** The person's events among the `SCAN_CHUNK` events after `after` (event ids in key order). */
export function* eventChunk(project: string, person: Person, after: string): SqlProgram<Chunk> {
  const { rows: keys } = yield op('SELECT event_id FROM events WHERE project = ? AND event_id > ? ORDER BY event_id LIMIT ?', project, after, SCAN_CHUNK);
  if (keys.length === 0) return { rows: [], next: null };
  const last = str(keys[keys.length - 1]!.event_id);
  const [where, params] = or(any('profile_id', person.profiles), any('user_id', person.users));
  const { rows } = yield op(
    `SELECT * FROM events WHERE project = ? AND event_id > ? AND event_id <= ? AND ${where} ORDER BY event_id`, project, after, last, ...params,
  );
  return { rows, next: keys.length < SCAN_CHUNK ? null : last };
}

/** The person's exposures among the `SCAN_CHUNK` exposure rows after id `after`. */
export function* exposureChunk(project: string, person: Person, after: number): SqlProgram<Chunk> {
  const { rows: keys } = yield op('SELECT id FROM exposures WHERE project = ? AND id > ? ORDER BY id LIMIT ?', project, after, SCAN_CHUNK);
  if (keys.length === 0) return { rows: [], next: null };
  const last = num(keys[keys.length - 1]!.id);
  const [where, params] = any('profile_id', person.profiles);
  const { rows } = yield op(`SELECT * FROM exposures WHERE project = ? AND id > ? AND id <= ? AND ${where} ORDER BY id`, project, after, last, ...params);
  return { rows, next: keys.length < SCAN_CHUNK ? null : String(last) };
}
