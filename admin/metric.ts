// A metric as the management API stores and answers it: the shapes are the API's own (wire/api/item-schema.ts, their
// types the schemas'), imported as types only, so the console's bundle carries no service code and no schema.

import type { MetricAnswer, MetricCap, MetricItem as ApiMetricItem } from '../wire/api/item-schema.js';
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
export type { MetricCap };

/**
 * One metric as `PUT …/metrics/{name}` takes it. Fields the console does not know are carried through unchanged,
 * hence the index signature.
 */
export type MetricItem = ApiMetricItem & { [field: string]: unknown };

/** A metric as the API answers it: the item plus its version (the ETag) and where it comes from. */
export type Metric = MetricAnswer & { [field: string]: unknown };

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
