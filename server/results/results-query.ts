import type { MetricConfig } from '../config/config-types.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';

/** What a results request asks for, checked. */
export interface ResultsQuery {
  /** The metrics asked for, in the answer's order. */
  metrics: MetricConfig[];
  /** The metrics whose events are read: those asked for that count events, and both parts of each ratio asked for. */
  counted: MetricConfig[];
  from?: number;
  to?: number;
  dimension?: 'device';
}

/** Where the values of a CUPED ratio's part are kept (a metric name has no comma, so no metric can take it). */
export function ratioPartKey(ratio: string, role: 'numerator' | 'denominator'): string {
  return `${ratio},${role}`;
}

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

function dateOf(value: unknown, field: string): number | undefined {
  if (value === undefined) return undefined;
  const time = isoTime(value, { dateOnly: true });
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
    // A name given twice is answered once (twice would also count it twice in a correction's family).
    const names = [...new Set(String(query.metrics).split(',').map((n) => n.trim()).filter((n) => n !== ''))];
    metrics = names.map((name) => {
      const metric = projectMetrics.find((m) => m.name === name);
      if (!metric) invalid('metrics', `the project has no metric ${quoted(name)}`);
      return metric;
    });
  }
  const counted = new Map<string, MetricConfig>();
  for (const metric of metrics) {
    if (metric.type !== 'ratio') {
      counted.set(metric.name, metric);
      continue;
    }
    for (const role of ['numerator', 'denominator'] as const) {
      const part = projectMetrics.find((m) => m.name === metric[role]);
      if (part === undefined) continue;
      // A CUPED ratio reads its parts with their values before exposure, in the ratio's own window, under a key no
      // metric name can take (names have no comma): the part asked for by itself keeps its own settings.
      if (metric.cuped === true) {
        const key = ratioPartKey(metric.name, role);
        const read: MetricConfig = { ...part, name: key, cuped: true };
        if (metric.cupedDays !== undefined) read.cupedDays = metric.cupedDays;
        else delete read.cupedDays;
        counted.set(key, read);
      } else counted.set(part.name, part);
    }
  }
  const parsed: ResultsQuery = { metrics, counted: [...counted.values()] };
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
