// Rows as CSV (RFC 4180): a header of every column any row has, in order of first appearance; nested values as JSON.

/** A cell as text: quoted when it holds a comma, quote or line break; a leading =, +, - or @ is escaped with a quote
 * mark so that a spreadsheet opening the file does not run it as a formula. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'object' ? JSON.stringify(value) : String(value);
  if (/^[=+\-@\t\r]/.test(text) && typeof value === 'string') text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** @example toCsv([{ a: 1, b: 'x,y' }]) === 'a,b\r\n1,"x,y"\r\n' */
export function toCsv(rows: readonly Record<string, unknown>[]): string {
  const columns: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        columns.push(key);
      }
    }
  }
  const lines = [columns.map(cell).join(',')];
  for (const row of rows) lines.push(columns.map((c) => cell(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}
