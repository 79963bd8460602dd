// Rows as CSV (RFC 4180): a header of every column any row has, in order of first appearance; nested values as JSON.

/**
 * Where a careless spreadsheet may start a new cell: at either separator (`,`, or `;` where the decimal mark is a
 * comma), even inside quotes, and at a line break. Captured, so that splitting on it keeps the separators.
 */
const CELL_BREAK = /([,;\r\n])/;
/** A start a spreadsheet reads as a formula: =, +, - or @ after spaces or quotes, or a tab (OWASP's list; CR is a
 * cell break above). The two classes share no character, so a long run of spaces is scanned once. */
export const FORMULA_START = /^(?:[^\S\t\r\n]|")*[=+\-@\t]/;
/** What makes a cell need quotes: both separators too, so that a file read with either keeps the cell whole. */
const NEEDS_QUOTES = /[",;\r\n]/;

/**
 * The text with a quote mark before every piece that would start a formula, wherever a spreadsheet might split it —
 * the mark spreadsheets take for "this is text". Quoting alone is not enough: a file opened with the other separator
 * splits inside the quotes. Negative numbers are marked too (-1 is written '-1, which still reads as -1): opened with
 * `;`, a row's first cell runs on into the next ones (`-1,2+cmd|' /C calc'!A0`, with a decimal comma), so a sign
 * at the start of a cell is a formula's start whatever follows it in this cell.
 */
function defused(text: string): string {
  const pieces = text.split(CELL_BREAK);
  for (let i = 0; i < pieces.length; i += 2) {
    if (FORMULA_START.test(pieces[i]!)) pieces[i] = `'${pieces[i]!}`;
  }
  // A cell that starts with a line break starts with a control character OWASP lists (CR); the piece before it is empty.
  return /^[\r\n]/.test(text) ? `'${pieces.join('')}` : pieces.join('');
}

/** A cell as text, safe to open in a spreadsheet with either separator; quoted when it holds a separator, a quote or
 * a line break. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = defused(typeof value === 'object' ? JSON.stringify(value) : String(value));
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
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
