// One CSV cell's text, safe in a spreadsheet: the service's exports and the results element's download both write
// their cells so. Pure, and it imports nothing.

/**
 * Where a careless spreadsheet may start a new cell: at either separator (`,`, or `;` where the decimal mark is a
 * comma), even inside quotes, and at a line break. Captured, so that splitting on it keeps the separators.
 */
const CELL_BREAK = /([,;\r\n])/;
/** A start a spreadsheet reads as a formula: =, +, - or @ after spaces or quotes, or a tab (OWASP's list; CR is a
 * cell break above). The two classes share no character, so a long run of spaces is scanned once. */
const FORMULA_START = /^(?:[^\S\t\r\n]|")*[=+\-@\t]/;
/** What makes a cell need quotes: both separators too, so that a file read with either keeps the cell whole. */
const NEEDS_QUOTES = /[",;\r\n]/;

/**
 * The text with a quote mark before every piece that would start a formula, wherever a spreadsheet might split it —
 * the mark spreadsheets take for "this is text". Quoting alone is not enough: a file opened with the other separator
 * splits inside the quotes.
 * @example defusedCsvText('x;=cmd') // "x;'=cmd"
 */
export function defusedCsvText(text: string): string {
  const pieces = text.split(CELL_BREAK);
  for (let i = 0; i < pieces.length; i += 2) {
    if (FORMULA_START.test(pieces[i]!)) pieces[i] = `'${pieces[i]!}`;
  }
  // A cell that starts with a line break starts with a control character OWASP lists (CR); the piece before it is empty.
  return /^[\r\n]/.test(text) ? `'${pieces.join('')}` : pieces.join('');
}

/** The text as one cell (RFC 4180): quoted, its quotes doubled, when it holds a separator, a quote or a line break. */
export function quotedCsvCell(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
