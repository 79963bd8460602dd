import { defusedCsvText, quotedCsvCell } from '../../wire/csv-cell.js';

// Rows as CSV (RFC 4180): a header of every column any row has, in order of first appearance; nested values as JSON.

/** A cell as text, safe to open in a spreadsheet with either separator; quoted when it holds a separator, a quote or
 * a line break. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  // Negative numbers are marked too (-1 is written '-1, which still reads as -1): opened with `;`, a row's first cell
  // runs on into the next ones (`-1,2+cmd|' /C calc'!A0`, with a decimal comma), so a sign at the start of a cell is a
  // formula's start whatever follows it in this cell.
  return quotedCsvCell(defusedCsvText(typeof value === 'object' ? JSON.stringify(value) : String(value)));
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
