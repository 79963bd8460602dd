// What the console asks a feed report for (`GET …/feeds/{id}/report`): its range and what its rows are by, as a query.
import type { ReportBy } from '../wire/feed-report.js';

/** A feed report's range: UTC days `YYYY-MM-DD`, both included; and what its rows are by. */
export interface FeedReportQuery {
  from: string;
  to: string;
  by?: ReportBy;
}

/** The report's query string, with `extra` parameters (`format: 'csv'`). */
export function reportQuery(q: FeedReportQuery, extra: Record<string, string> = {}): URLSearchParams {
  return new URLSearchParams({ from: q.from, to: q.to, ...(q.by ? { by: q.by } : {}), ...extra });
}
