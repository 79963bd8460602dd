import type { MetricConfig } from '../config/config-types.js';
import type { MetricResult, VariationStats } from '../../wire/results-answer.js';
import { periodCells, type BanditPeriods } from './bandit-periods.js';
import { ratioPartKey } from './results-query.js';
import type { CompareOptions } from './statistics.js';
import { mergeStrata, stratifiedComparison, stratifiedEstimates } from './stratified-estimate.js';
import type { PairSummary } from './unit-statistics.js';

// A bandit's metric results: the raw moments of each variation as any experiment's, the comparisons with the control
// from the means stratified by the periods between reweights (docs/bandit-statistics.md). Pure.

/**
 * One metric of a bandit's answer, from the report's own `result` (its raw moments are kept; its comparisons, made as
 * if the units were one sample, are replaced): each variation's stratified mean and standard error, and each challenger
 * compared with the control from them. `post` gives the (capped) values per unit of a metric by name. CUPED is not
 * applied to a bandit's comparisons.
 */
export function banditMetricResult(
  result: MetricResult, metric: MetricConfig, periods: BanditPeriods, byVariation: readonly Int32Array[],
  post: (name: string) => Float64Array, options: CompareOptions,
): MetricResult {
  const cells = metric.type === 'ratio'
    ? periodCells(periods, byVariation, post(partName(metric, 'numerator')), post(partName(metric, 'denominator')), false)
    : periodCells(periods, byVariation, post(metric.name), null, metric.type === 'binomial');
  return stratifiedMetricResult(result, cells, options);
}

/** A ratio's part as the report reads it: under the ratio's own key when it asks for CUPED (results-query.ts). */
function partName(metric: MetricConfig, role: 'numerator' | 'denominator'): string {
  return metric.cuped === true ? ratioPartKey(metric.name, role) : metric[role] as string;
}

/**
 * `result` with its comparisons made from the cells of each period and variation (`cells[period][variation]`, the
 * control first): strata merged (mergeStrata), each variation's stratified estimate as `stratified`, each challenger's
 * comparison with the control from them.
 */
export function stratifiedMetricResult(result: MetricResult, cells: readonly (readonly PairSummary[])[], options: CompareOptions): MetricResult {
  const estimates = stratifiedEstimates(mergeStrata(cells), result.type === 'ratio');
  const control = estimates[0];
  const variations = result.variations.map((v, i): VariationStats => {
    const estimate = estimates[i];
    const { name, units, total, denominator, mean, stddev } = v;
    const entry: VariationStats = { name, units, total, ...(denominator !== undefined ? { denominator } : {}), mean, stddev };
    if (estimate === undefined || control === undefined) return entry;
    entry.stratified = {
      mean: estimate.mean,
      standardError: estimate.variance === null ? null : Math.sqrt(Math.max(0, estimate.variance)),
    };
    return i === 0 ? entry : { ...entry, ...stratifiedComparison(control, estimate, options) };
  });
  return { ...result, cupedApplied: false, variations };
}
