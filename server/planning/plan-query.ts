import type { ExperienceConfig, MetricConfig } from '../config/config-types.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import type { PlannedMetric } from './baseline-program.js';

/** The largest relative change a plan takes: 10 (1,000 %); past it the question is not one a test answers. */
const MAX_MDE = 10;
/** The longest planned run `days=` takes: ten years. */
const MAX_DAYS = 3650;
/** A plain decimal number (`0.03`, `.5`, `3e-2`): the parameter's whole text. */
const DECIMAL = /^(?:\d{1,12}(?:\.\d{0,20})?|\.\d{1,20})(?:e-?\d{1,3})?$/i;

/** What a plan request asks for, checked. */
export interface PlanQuery extends PlannedMetric {
  /** The relative change to detect (0.03 = 3 %), > 0. */
  mde: number;
  /** The planned run in days from the start of the experiment's current phase (a draft: from now). */
  days?: number;
  /** The planned end (epoch ms). */
  endAt?: number;
}

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

/** The metric asked for (default: the experiment's primary goal), with the metrics a ratio divides. */
function metricOf(value: unknown, projectMetrics: readonly MetricConfig[], experience: ExperienceConfig): PlannedMetric {
  const asked = value === undefined || String(value).trim() === '' ? experience.goals?.[0] : String(value).trim();
  if (asked === undefined) invalid('metric', 'the experiment has no goals: name the metric to plan for (metric=purchase)');
  const metric = projectMetrics.find((m) => m.name === asked);
  if (metric === undefined) invalid('metric', `the project has no metric ${quoted(asked)}`);
  if (metric.type !== 'ratio') return { metric, parts: [] };
  const parts = [metric.numerator, metric.denominator].map((name) => projectMetrics.find((m) => m.name === name));
  if (parts.some((p) => p === undefined)) invalid('metric', `the ratio ${quoted(asked)} divides a metric the project does not have`);
  return { metric, parts: parts as MetricConfig[] };
}

/**
 * Checks the query of `GET …/experiences/{name}/plan`: `metric` (a project metric; default the experiment's first
 * goal), `mde` (required: a relative change, 0 < mde ≤ 10), and for the effect a run can detect, `days` (1–3650) or
 * `endAt` (ISO 8601), not both. Other parameters (the apiKey) are not its business.
 * @throws ServiceError `invalid_request` naming the parameter.
 * @example parsePlanQuery({ mde: '0.03' }, project.metrics, hero) // → { metric: purchase, parts: [], mde: 0.03 }
 */
export function parsePlanQuery(
  query: Record<string, unknown>, projectMetrics: readonly MetricConfig[], experience: ExperienceConfig,
): PlanQuery {
  for (const field of ['metric', 'mde', 'days', 'endAt']) {
    if (Array.isArray(query[field])) invalid(field, 'must be given once');
  }
  const planned = metricOf(query.metric, projectMetrics, experience);
  if (query.mde === undefined || String(query.mde).trim() === '') {
    invalid('mde', 'is required: the relative change to detect, e.g. mde=0.03 for 3 %');
  }
  const text = String(query.mde).trim();
  const mde = DECIMAL.test(text) ? Number(text) : Number.NaN;
  if (!(mde > 0) || mde > MAX_MDE) {
    invalid('mde', `must be a relative change greater than 0 and at most ${MAX_MDE} (0.03 for 3 %), not ${quoted(text)}`);
  }
  const parsed: PlanQuery = { ...planned, mde };
  if (query.days !== undefined && query.endAt !== undefined) invalid('endAt', 'give days or endAt, not both');
  if (query.days !== undefined) {
    const days = String(query.days);
    if (!/^[1-9]\d{0,3}$/.test(days) || Number(days) > MAX_DAYS) invalid('days', `must be a whole number of days from 1 to ${MAX_DAYS}`);
    parsed.days = Number(days);
  }
  if (query.endAt !== undefined) {
    const endAt = isoTime(query.endAt, { dateOnly: true });
    if (Number.isNaN(endAt)) invalid('endAt', 'must be an ISO 8601 date or date-time (2026-12-24 or 2026-12-24T10:00:00Z)');
    parsed.endAt = endAt;
  }
  return parsed;
}
