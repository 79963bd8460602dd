import type { Column } from './column-values.js';

// The last key a batch copied, kept as text in the target's progress table and read back as SQLite compares it: an
// integer key column as a bigint (JSON has no bigint, and a decimal string would sort as text).

export function encodeKey(values: readonly unknown[]): string {
  return JSON.stringify(values.map((v) => (typeof v === 'bigint' ? v.toString() : v)));
}

export function decodeKey(text: string, key: readonly Column[]): unknown[] {
  const values = JSON.parse(text) as unknown[];
  return values.map((v, i) => (key[i]?.kind === 'integer' && v !== null ? BigInt(v as string) : v));
}
