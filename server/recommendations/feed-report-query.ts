import { MAX_ATTRIBUTION_HOURS } from '../config/config-types.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import type { ReportBy } from '../../wire/feed-report.js';

const DAY_MS = 86_400_000;
/** Without `from`: this many days before `to`. */
export const DEFAULT_REPORT_DAYS = 30;
/** The longest range one report reads: a year and a day. */
export const MAX_REPORT_DAYS = 366;
const BY: readonly ReportBy[] = ['position', 'day', 'strategy'];

/** The report's query after validation. */
export interface FeedReportQuery {
  /** Epoch ms: the range is [from, to). */
  from: number;
  to: number;
  by?: ReportBy;
  format: 'json' | 'csv';
  /** Overrides the feed's window for this report only. */
  attributionHours?: number;
}

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

/** A date alone (`2026-11-24`) is that day's midnight UTC; as `to`, the midnight after it, so the day is in the range. */
function timeOf(value: unknown, field: 'from' | 'to'): number {
  const time = isoTime(value, { dateOnly: true });
  if (Number.isNaN(time)) invalid(field, 'must be an ISO 8601 date or date-time (2026-11-24 or 2026-11-24T10:00:00Z)');
  return field === 'to' && String(value).length === 10 ? time + DAY_MS : time;
}

/**
 * Checks the query of `GET …/feeds/{id}/report`: `from`, `to` (ISO 8601; default the last DEFAULT_REPORT_DAYS days up
 * to `now`), `by=position|day|strategy`, `format=json|csv`, `attributionHours=1…720`. Other parameters are not its
 * business.
 * @throws ServiceError `invalid_request` naming the parameter.
 * @example parseFeedReportQuery({ from: '2026-11-01', to: '2026-11-30', by: 'position' }, Date.now())
 */
export function parseFeedReportQuery(query: Record<string, unknown>, now: number): FeedReportQuery {
  for (const field of ['from', 'to', 'by', 'format', 'attributionHours']) {
    if (Array.isArray(query[field])) invalid(field, 'must be given once');
  }
  const to = query.to === undefined ? now : timeOf(query.to, 'to');
  const from = query.from === undefined ? to - DEFAULT_REPORT_DAYS * DAY_MS : timeOf(query.from, 'from');
  if (from >= to) invalid('from', 'must be before to');
  if (to - from > MAX_REPORT_DAYS * DAY_MS) invalid('from', `must be at most ${MAX_REPORT_DAYS} days before to`);
  const parsed: FeedReportQuery = { from, to, format: 'json' };
  if (query.by !== undefined) {
    if (!(BY as readonly unknown[]).includes(query.by)) invalid('by', `must be one of ${BY.join(', ')}, not ${quoted(String(query.by))}`);
    parsed.by = query.by as ReportBy;
  }
  if (query.format !== undefined) {
    if (query.format !== 'json' && query.format !== 'csv') invalid('format', 'must be json or csv');
    parsed.format = query.format;
  }
  if (query.attributionHours !== undefined) {
    const hours = Number(query.attributionHours);
    if (String(query.attributionHours).trim() === '' || !Number.isInteger(hours) || hours < 1 || hours > MAX_ATTRIBUTION_HOURS) {
      invalid('attributionHours', `must be a whole number of hours from 1 to ${MAX_ATTRIBUTION_HOURS}`);
    }
    parsed.attributionHours = hours;
  }
  return parsed;
}
