// Values as the drivers return them, read the same way on both: pg returns BIGINT and COUNT as strings.

export function num(value: unknown): number {
  // pg returns BIGINT and COUNT as strings; SQLite returns numbers.
  return typeof value === 'number' ? value : Number(value);
}

export function str(value: unknown): string {
  return String(value);
}
