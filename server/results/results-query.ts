import type { MetricConfig } from '../config/config-types.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';

/** What a results request asks for, checked. */
export interface ResultsQuery {
  metrics: MetricConfig[];
  from?: number;
  to?: number;
  dimension?: 'device';
}

// A date (`2026-11-24`, midnight UTC) or a date-time with its zone.
const ISO_8601 = /^(\d{4})-(\d{2})-(\d{2})(T(\d{2}):(\d{2})(:(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** Whether the calendar fields name a real day and time (Date.parse rolls 2026-02-31 over into March). */
function realDate(match: RegExpExecArray): boolean {
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const hours = Number(match[5] ?? 0);
  const minutes = Number(match[6] ?? 0);
  const seconds = Number(match[8] ?? 0);
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
    && hours < 24 && minutes < 60 && seconds < 60;
}

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

function dateOf(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const match = typeof value === 'string' ? ISO_8601.exec(value) : null;
  const time = match !== null && realDate(match) ? Date.parse(match[0]) : Number.NaN;
  if (Number.isNaN(time)) invalid(field, 'must be an ISO 8601 date or date-time (2026-11-24 or 2026-11-24T10:00:00Z)');
  return time;
}

/**
 * Checks the query of `GET …/experiences/{name}/results`: `metrics=a,b` (names of the project's metrics; default all),
 * `from`/`to` (ISO 8601), `dimension=device`. Other parameters (the apiKey) are not its business.
 * @throws ServiceError `invalid_request` naming the parameter.
 * @example parseResultsQuery({ metrics: 'purchase' }, project.metrics) // → { metrics: [purchase] }
 */
export function parseResultsQuery(query: Record<string, unknown>, projectMetrics: readonly MetricConfig[]): ResultsQuery {
  for (const field of ['metrics', 'from', 'to', 'dimension']) {
    if (Array.isArray(query[field])) invalid(field, 'must be given once');
  }
  let metrics = [...projectMetrics];
  // `metrics=` with nothing in it is the default: every metric.
  if (query.metrics !== undefined && String(query.metrics).trim() !== '') {
    const names = String(query.metrics).split(',').map((n) => n.trim()).filter((n) => n !== '');
    metrics = names.map((name) => {
      const metric = projectMetrics.find((m) => m.name === name);
      if (!metric) invalid('metrics', `the project has no metric ${quoted(name)}`);
      return metric;
    });
  }
  const parsed: ResultsQuery = { metrics };
  const from = dateOf(query.from, 'from');
  const to = dateOf(query.to, 'to');
  if (from !== undefined) parsed.from = from;
  if (to !== undefined) parsed.to = to;
  if (query.dimension !== undefined) {
    if (query.dimension !== 'device') invalid('dimension', 'must be "device"');
    parsed.dimension = 'device';
  }
  return parsed;
}
