// A metric as the management API stores and answers it (server/config/config-types.ts `MetricConfig` is the service's
// side of this contract; the console keeps its own copy rather than importing service code into a browser bundle).

import type { MetricType } from '../wire/results-answer.js';

/**
 * `binomial`: 1 if a unit has at least one such event, else 0; `count`: how many; `sum`: the sum of a numeric data
 * field over them; `ratio`: one metric's total over another's (revenue per order). One definition, in wire/.
 */
export type { MetricType };

export const METRIC_TYPES: readonly MetricType[] = ['binomial', 'count', 'sum', 'ratio'];

/** What each type measures per unit, as the form's choices say it. */
export const METRIC_TYPE_HINTS: Readonly<Record<MetricType, string>> = {
  binomial: 'converted or not: 1 if a unit has the event',
  count: 'how many such events a unit has',
  sum: 'a data field added up, e.g. revenue',
  ratio: 'one metric over another, e.g. revenue per order',
};

/** Winsorising a unit's value from above: at `value`, or at the `value` quantile (0 < value ≤ 1) of the units'. */
export interface MetricCap {
  type: 'absolute' | 'percentile';
  value: number;
  /** `percentile` only: the quantile is taken over the units whose value is not 0. */
  ignoreZeros?: boolean;
}

/**
 * One metric as `PUT …/metrics/{name}` takes it. Fields the console does not know are carried through unchanged,
 * hence the index signature.
 */
export interface MetricItem {
  name: string;
  type: MetricType;
  /** Every type but `ratio`: the event counted (an event's `name`, exactly). */
  event?: string;
  /** `sum` only: the numeric `data` field added up. */
  value?: string;
  /** A condition over the event's `data`, MongoDB-style as experience conditions are. */
  where?: Record<string, unknown>;
  /** Counts only the events within this many hours after a unit's first exposure. */
  windowHours?: number;
  /** Lower is better (refunds, load time). */
  inverse?: boolean;
  /** `count` and `sum` only. */
  cap?: MetricCap;
  /** Variance reduction by the same metric's value in the `cupedDays` (default 14) before first exposure. */
  cuped?: boolean;
  cupedDays?: number;
  /** `ratio` only: the names of two of the project's metrics that are not ratios. */
  numerator?: string;
  denominator?: string;
  [field: string]: unknown;
}

/** A metric as the API answers it: the item plus its version (the ETag) and where it comes from. */
export interface Metric extends MetricItem {
  version: number;
  source: 'file' | 'api';
}

/** The service's CUPED look-back when a metric names none. */
export const DEFAULT_CUPED_DAYS = 14;

/** The item to write back: what the API added to its answer (version, source) is not part of it. */
export function metricItemOf(m: Metric): MetricItem {
  const { version: _version, source: _source, ...item } = m;
  return item;
}

/** A cap as a table cell says it: `at 100`, `at p99`, `at p99, zeros ignored`. */
export function capText(cap: MetricCap | undefined): string {
  if (!cap) return '';
  if (cap.type === 'absolute') return `at ${cap.value}`;
  // 0.995 → p99.5: a quantile as people name percentiles, without float noise (0.29 * 100 = 28.999…).
  const percentile = Math.round(cap.value * 1e6) / 1e4;
  return `at p${percentile}${cap.ignoreZeros ? ', zeros ignored' : ''}`;
}
