// A column's values as each database hands them back, brought to one form: what a copy binds on PostgreSQL, and what
// the checksum of a table hashes on both sides (better-sqlite3 reads INTEGER as bigint here, pg reads BIGINT as a
// string and INTEGER as a number, JSON as parsed values, BYTEA as a Buffer).

/** What a column holds, from its PostgreSQL type: the target's columns say how the source's values are read. */
export type ColumnKind = 'integer' | 'real' | 'boolean' | 'json' | 'bytes' | 'text';

export interface Column {
  name: string;
  kind: ColumnKind;
}

const KINDS: Record<string, ColumnKind> = {
  smallint: 'integer', integer: 'integer', bigint: 'integer',
  real: 'real', 'double precision': 'real', numeric: 'real',
  boolean: 'boolean', json: 'json', jsonb: 'json', bytea: 'bytes',
};

/** The kind of a column of `information_schema.columns.data_type` (anything else is compared as text). */
export function kindOf(dataType: string): ColumnKind {
  return KINDS[dataType] ?? 'text';
}

/** A value read from SQLite, as pg binds it into a column of this kind (bigints as decimal strings: no rounding). */
export function toPostgres(value: unknown, kind: ColumnKind): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') return kind === 'boolean' ? value !== 0n : value.toString();
  if (kind === 'boolean' && typeof value === 'number') return value !== 0;
  return value;
}

/** JSON with object keys in sorted order: two documents equal as values are equal as text. */
function sortedJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${sortedJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * The one form a value takes in a checksum, whichever database it came from: integers as decimal strings, reals as
 * numbers, booleans as booleans, JSON as its sorted text, bytes as hex; null stays null.
 */
export function canonical(value: unknown, kind: ColumnKind): string | number | boolean | null {
  if (value === null || value === undefined) return null;
  switch (kind) {
    case 'integer': return typeof value === 'number' && !Number.isInteger(value) ? value : BigInt(value as string | number | bigint).toString();
    case 'real': return Number(value);
    case 'boolean': return typeof value === 'boolean' ? value : Number(value) !== 0;
    case 'json': return `json:${sortedJson(typeof value === 'string' ? JSON.parse(value) : value)}`;
    case 'bytes': return `bytes:${Buffer.from(value as Uint8Array).toString('hex')}`;
    default: return typeof value === 'bigint' ? value.toString() : String(value);
  }
}
