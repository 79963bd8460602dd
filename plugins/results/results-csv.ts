// The results as CSV (RFC 4180), for a spreadsheet: one row per metric × variation of the overall results, of each
// dimension value's and of each day of the series. Numbers are the answer's, exact (never rounded, never cut at
// −100%); the relative comparison's, as the column names say.
import { defusedCsvText, quotedCsvCell } from '../../wire/csv-cell.js';
import type { MetricResult, ResultsAnswer } from './results-answer.js';

export const CSV_COLUMNS = [
  'section', 'dimension', 'value', 'date', 'metric', 'role', 'variation', 'units', 'total', 'mean', 'stddev', 'uplift',
  'ci_low', 'ci_high', 'p_value', 'p_value_adjusted', 'chance_to_win', 'risk', 'significant',
] as const;

type Cell = string | number | boolean | null | undefined;

/** A number as JavaScript writes it exactly (shortest round trip); a string already is a number written. */
const PLAIN_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * One cell: empty for a missing number, a number as written by JavaScript, a string from the service (a variation's,
 * a metric's, a visitor's utm_source) guarded against formula injection whichever separator a spreadsheet splits on
 * (a `'` before each piece that would start one, unless it is a plain number such as `-5`: the section column comes
 * first in every row, so a number never starts one) and quoted when it holds a separator, a quote or a line break.
 */
export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  return quotedCsvCell(PLAIN_NUMBER.test(value) ? value : defusedCsvText(value));
}

/** The rows of one section's metrics: every variation, the control's comparison cells empty. */
function rows(place: [section: string, dimension: string, value: string, date: string], metrics: readonly MetricResult[]): Cell[][] {
  return metrics.flatMap((m) => m.variations.map((v) => [
    ...place, m.name, m.role ?? '', v.name, v.units, v.total, v.mean, v.stddev, v.uplift, v.ci?.[0], v.ci?.[1], v.pValue,
    v.pValueAdjusted, v.chanceToWin, v.risk, v.significant,
  ]));
}

/** The answer as CSV text, its header first, lines ended by CRLF (RFC 4180). */
export function resultsCsv(r: ResultsAnswer | undefined): string {
  const table: Cell[][] = [[...CSV_COLUMNS]];
  if (r) {
    table.push(...rows(['all', '', '', ''], r.metrics));
    for (const d of r.dimensions ?? []) table.push(...rows(['dimension', d.name, d.value, ''], d.metrics));
    for (const p of r.series ?? []) table.push(...rows(['series', '', '', p.date], p.metrics));
  }
  return table.map((row) => `${row.map(csvCell).join(',')}\r\n`).join('');
}

/** `hero-banner-phase2.csv`: the experiment and the phase shown. */
export function csvFileName(r: Pick<ResultsAnswer, 'experience' | 'phase'>): string {
  return `${r.experience}-phase${Number.isInteger(r.phase) ? r.phase : 1}.csv`;
}

/**
 * Saves `text` as the file `name` through a Blob URL and an `<a download>` in `host` (a shadow root: the link never
 * shows). A byte order mark first, so a spreadsheet reads the names as UTF-8.
 */
export function downloadCsv(host: ShadowRoot | HTMLElement, text: string, name: string): void {
  const url = URL.createObjectURL(new Blob(['\uFEFF', text], { type: 'text/csv;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  host.append(link);
  link.click();
  link.remove();
  // Revoked once the browser has started the download (revoking at once may cancel it).
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}
