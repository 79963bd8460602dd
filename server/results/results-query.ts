import type { ExperienceConfig, MetricConfig } from '../config/config-types.js';
import { METRIC_ROLES, experimentMetricNames } from '../config/validate-experiment-settings.js';
import type { MetricRole } from '../../wire/results-answer.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import { MAX_ID_LENGTH } from '../../wire/event.js';
import { DIMENSIONS, type ResultsDimension } from './unit-dimensions.js';

/** What a results request asks for, checked. */
export interface ResultsQuery {
  /** The metrics asked for, in the answer's order. */
  metrics: MetricConfig[];
  /** The metrics whose events are read: those asked for that count events, and both parts of each ratio asked for. */
  counted: MetricConfig[];
  /** The part each metric plays in the experiment, for those it names. */
  roles: ReadonlyMap<string, MetricRole>;
  from?: number;
  to?: number;
  dimension?: ResultsDimension;
  /** `?phase=N`, or `all` (every phase, stratified: phase-pooling.ts); absent: the current (last) phase. */
  phase?: number | 'all';
  /** `?series=day`: the results as they stood at the end of each day of first exposures (cumulative). */
  series?: 'day';
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

/** `dimension=`: a dimension results know, or `attribute:<key>` for a profile attribute. */
function dimensionOf(value: string): ResultsDimension {
  if ((DIMENSIONS as readonly string[]).includes(value)) return value as ResultsDimension;
  const key = value.startsWith('attribute:') ? value.slice('attribute:'.length) : '';
  if (key !== '' && key.length <= MAX_ID_LENGTH) return value as ResultsDimension;
  return invalid('dimension', `must be one of ${DIMENSIONS.join(', ')} or attribute:<key> (a profile attribute)`);
}

/** The experiment's metrics by the part each plays: goals, secondary, guardrails. */
function rolesOf(experience: ExperienceConfig): Map<string, MetricRole> {
  return new Map(METRIC_ROLES.flatMap(({ field, role }) => (experience[field] ?? []).map((name) => [name, role] as const)));
}

/**
 * Checks the query of `GET …/experiences/{name}/results`: `metrics=a,b` (names of the project's metrics; default the
 * experiment's goals, secondary and guardrails, or every metric when it names none), `from`/`to` (ISO 8601),
 * `dimension=` (unit-dimensions.ts), `series=day`, `phase=N` (a whole number from 1, or `all`; whether the experiment has it is the service's check). Other
 * parameters (the apiKey) are not its business.
 * @throws ServiceError `invalid_request` naming the parameter.
 * @example parseResultsQuery({ metrics: 'purchase' }, project.metrics, hero) // → { metrics: [purchase], … }
 */
export function parseResultsQuery(
  query: Record<string, unknown>, projectMetrics: readonly MetricConfig[], experience: ExperienceConfig,
): ResultsQuery {
  for (const field of ['metrics', 'from', 'to', 'dimension', 'phase', 'series']) {
    if (Array.isArray(query[field])) invalid(field, 'must be given once');
  }
  const named = experimentMetricNames(experience);
  let metrics = named.length === 0
    ? [...projectMetrics]
    : named.map((name) => projectMetrics.find((m) => m.name === name)).filter((m): m is MetricConfig => m !== undefined);
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
  const parsed: ResultsQuery = { metrics, counted: [...counted.values()], roles: rolesOf(experience) };
  const from = dateOf(query.from, 'from');
  const to = dateOf(query.to, 'to');
  if (from !== undefined) parsed.from = from;
  if (to !== undefined) parsed.to = to;
  if (query.dimension !== undefined) parsed.dimension = dimensionOf(String(query.dimension));
  if (query.phase !== undefined) {
    const phase = String(query.phase);
    if (phase === 'all') parsed.phase = 'all';
    else if (!/^[1-9]\d{0,8}$/.test(phase)) invalid('phase', 'must be a phase number (1, 2, …) or all');
    else parsed.phase = Number(phase);
  }
  if (query.series !== undefined) {
    if (query.series !== 'day') invalid('series', 'must be "day"');
    parsed.series = 'day';
  }
  return parsed;
}
