import type { BanditAnalysis, ResultsReweight } from '../../wire/results-answer.js';
import type { StoredReweight } from '../phases/reweight-store.js';
import { sampleRatioMismatch, type SampleRatio } from './statistics.js';
import { mergeStrata } from './stratified-estimate.js';
import { summarizePairs, type PairSummary } from './unit-statistics.js';

// A bandit's phase cut into the periods between its reweights: before the first, between each two, after the last. A
// unit belongs to the period of its first exposure in the phase, where the weights that split it were that period's.
// Results stratify by these periods (stratified-estimate.ts) and test the split against each period's weights. Pure.

/** The periods of one bandit phase and where each of its units fell. */
export interface BanditPeriods {
  /** The decision metric. */
  metric: string;
  /** Per unit (index of the report's units): its period, 0 before the first reweight. */
  period: Int32Array;
  /** Per period: the weights that split its units, by variation index (percent; 0 for a variation not named). */
  weights: number[][];
  /** The phase's reweights as the answer lists them, oldest first. */
  reweights: ResultsReweight[];
}

/**
 * The periods of a bandit's phase from its units' first exposures (epoch ms), the weights the phase began with
 * (`start`), and the reweights recorded during it, oldest first. A unit first exposed at a reweight's time or later is
 * in that reweight's period.
 * @example banditPeriods('purchase', Float64Array.of(10, 30), ['a', 'b'], { a: 50, b: 50 }, [{ at: 20, weights: { a: 10, b: 90 }, … }])
 *   // → period [0, 1], weights [[50, 50], [10, 90]]
 */
export function banditPeriods(
  metric: string, first: Float64Array, variations: readonly string[], start: Readonly<Record<string, number>>,
  reweights: readonly StoredReweight[],
): BanditPeriods {
  const times = reweights.map((r) => r.at);
  const period = new Int32Array(first.length);
  for (let u = 0; u < first.length; u++) period[u] = periodOf(times, first[u] as number);
  const byIndex = (weights: Readonly<Record<string, number>>): number[] => variations.map((v) => weights[v] ?? 0);
  return {
    metric,
    period,
    weights: [byIndex(start), ...reweights.map((r) => byIndex(r.weights))],
    reweights: reweights.map((r) => ({ at: new Date(r.at).toISOString(), weights: r.weights, arms: r.arms, reason: r.reason })),
  };
}

/** How many of the (ascending) reweight times are at or before `time`: binary search. */
function periodOf(times: readonly number[], time: number): number {
  let low = 0;
  let high = times.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((times[mid] as number) <= time) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** The weights of the last period: the bandit's weights now, by variation name. */
export function currentWeights(periods: BanditPeriods, variations: readonly string[]): Record<string, number> {
  const last = periods.weights[periods.weights.length - 1] as number[];
  return Object.fromEntries(variations.map((v, i) => [v, last[i] as number]));
}

/**
 * `cells[period][arm]` of the units `byVariation` (unit indexes per variation): each period's units of each arm
 * summarized as (x, y) pairs, y 0 when there is none. `binary`: x counts as 1 when positive (a binomial metric).
 */
export function periodCells(
  periods: BanditPeriods, byVariation: readonly Int32Array[], x: Float64Array, y: Float64Array | null, binary: boolean,
): PairSummary[][] {
  const count = periods.weights.length;
  const columns = byVariation.map((members) => {
    const xs = Array.from({ length: count }, () => [] as number[]);
    const ys = Array.from({ length: count }, () => [] as number[]);
    for (const unit of members) {
      const p = periods.period[unit] as number;
      const value = x[unit] as number;
      (xs[p] as number[]).push(binary ? (value > 0 ? 1 : 0) : value);
      (ys[p] as number[]).push(y === null ? 0 : (y[unit] as number));
    }
    return xs.map((values, p) => summarizePairs(values, ys[p] as number[]));
  });
  return Array.from({ length: count }, (_, p) => columns.map((cells) => cells[p] as PairSummary));
}

/**
 * The units each variation should have, by the weights of each unit's period: Σ_p N_p × w_pk / Σ_j w_pj over the
 * periods' units N_p among `members`.
 */
export function expectedUnits(periods: BanditPeriods, members: Int32Array): number[] {
  const perPeriod = new Array<number>(periods.weights.length).fill(0);
  for (const unit of members) {
    const p = periods.period[unit] as number;
    perPeriod[p] = (perPeriod[p] as number) + 1;
  }
  const arms = periods.weights[0]?.length ?? 0;
  const expected = new Array<number>(arms).fill(0);
  periods.weights.forEach((weights, p) => {
    const total = weights.reduce((sum, w) => sum + w, 0);
    if (!(total > 0)) return;
    weights.forEach((w, k) => { expected[k] = (expected[k] as number) + ((perPeriod[p] as number) * w) / total; });
  });
  return expected;
}

/**
 * What a bandit adds to its phase's answer: the split tested against each period's weights (Pearson's χ² of the
 * units per variation against Σ_p N_p w_pk, k − 1 degrees of freedom, as gbstats' bandits test it), the reweights, and
 * how the phase was analysed. `members` are the answer's units, `variationOf` each unit's variation index, `units`
 * the units per variation.
 */
export function banditParts(
  periods: BanditPeriods, variations: readonly string[], members: Int32Array, variationOf: Int32Array, units: readonly number[],
): { srm: SampleRatio & { expected: 'per-period' }; reweights: ResultsReweight[]; bandit: BanditAnalysis } {
  const expected = expectedUnits(periods, members);
  // The strata depend on the units per period and arm alone, not on a metric's values: the same for every metric.
  const counts = periods.weights.map(() => variations.map(() => 0));
  for (const unit of members) {
    const row = counts[periods.period[unit] as number] as number[];
    row[variationOf[unit] as number] = (row[variationOf[unit] as number] as number) + 1;
  }
  const strata = mergeStrata(counts.map((row) => row.map(countOnly)));
  return {
    srm: { ...sampleRatioMismatch(units, expected), expected: 'per-period' },
    reweights: periods.reweights,
    bandit: {
      metric: periods.metric,
      periods: periods.weights.length,
      strata: strata.length,
      expectedUnits: Object.fromEntries(variations.map((v, k) => [v, expected[k] as number])),
    },
  };
}

function countOnly(n: number): PairSummary {
  return { x: { n, mean: 0, m2: 0 }, y: { n, mean: 0, m2: 0 }, c2: 0 };
}
