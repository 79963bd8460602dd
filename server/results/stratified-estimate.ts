import type { AbsoluteDifference } from '../../wire/results-answer.js';
import { bayesian, twoSidedFixed, twoSidedSequential, type Estimate, type Frequentist } from './inference.js';
import { DEFAULT_ALPHA, guardrailHarm, noComparison, type CompareOptions, type Comparison } from './statistics.js';
import { combinePairs, type PairSummary } from './unit-statistics.js';

// A bandit's arms estimated under moving weights: post-stratification by the periods between its reweights (Cochran,
// "Sampling Techniques", 3rd ed. 1977, §5A.9; gbstats' bandits weight by period the same way). A period's units were
// split by that period's weights alone, so within a period the arms are comparable; across periods they are not (an arm
// given more traffic later, when the metric was higher, would win by the calendar: Simpson's paradox). Each arm's mean
// is therefore taken per stratum and averaged with the same weights for every arm, the stratum's share of all units:
//   w_s = N_s / N,   M_k = Σ_s w_s m_sk,   Var(M_k) = Σ_s w_s² s²_sk / n_sk,
// with s²_sk the sample variance (n − 1) of arm k's units in stratum s. Effects against the control follow from M and
// Var by the delta method and are tested with the normal. Pure: no I/O, no module state, inputs never mutated.

/** A stratum needs this many units of each arm: fewer leave its variance unknown. */
export const MIN_STRATUM_UNITS = 2;

/** An estimate whose tests use the normal distribution: a df past inference.ts' limit selects it. */
const NORMAL = Number.MAX_VALUE;

/** One arm's stratified estimate of its per-unit mean (for a ratio: of Σ numerator / Σ denominator). */
export interface StratifiedEstimate {
  units: number;
  /** M_k; null without units (or a ratio whose denominator's estimate is 0). */
  mean: number | null;
  /** Var(M_k), the squared standard error; null when some stratum has fewer than 2 of the arm's units. */
  variance: number | null;
}

/**
 * Strata from periods: `cells[period][arm]` (oldest period first) summarized by consecutive periods merged until every
 * arm that has at least `minUnits` units in all has `minUnits` in the stratum; periods left over at the end, too few
 * for a stratum of their own, join the last one. Arms with fewer units in all do not hold the others back (their
 * variance stays unknown). No periods: no strata.
 * @example mergeStrata([[a0, b0], [a1, b1]]) // [[a0, b0], [a1, b1]] when every cell has 2 units or more
 */
export function mergeStrata(cells: readonly (readonly PairSummary[])[], minUnits = MIN_STRATUM_UNITS): PairSummary[][] {
  const arms = cells[0]?.length ?? 0;
  const totals = new Array<number>(arms).fill(0);
  for (const period of cells) period.forEach((cell, k) => { totals[k] = (totals[k] as number) + cell.x.n; });
  const required = totals.map((n) => n >= minUnits);
  const strata: PairSummary[][] = [];
  let open: PairSummary[] | null = null;
  for (const period of cells) {
    open = open === null ? [...period] : open.map((cell, k) => combinePairs(cell, period[k] as PairSummary));
    if (open.every((cell, k) => !required[k] || cell.x.n >= minUnits)) {
      strata.push(open);
      open = null;
    }
  }
  if (open !== null) {
    const last = strata.pop();
    strata.push(last === undefined ? open : last.map((cell, k) => combinePairs(cell, (open as PairSummary[])[k] as PairSummary)));
  }
  return strata;
}

/** The weights of the strata: each one's share of all units, w_s = N_s / N (all zero without units). */
export function stratumWeights(strata: readonly (readonly PairSummary[])[]): number[] {
  const sizes = strata.map((cells) => cells.reduce((sum, cell) => sum + cell.x.n, 0));
  const total = sizes.reduce((sum, n) => sum + n, 0);
  return sizes.map((n) => (total > 0 ? n / total : 0));
}

/**
 * Each arm's post-stratified mean and its variance over `strata` (from mergeStrata). `ratio`: x is a ratio's numerator
 * and y its denominator, and the estimate is M_x / M_y with the delta method's variance (ratioVariance).
 */
export function stratifiedEstimates(strata: readonly (readonly PairSummary[])[], ratio: boolean): StratifiedEstimate[] {
  const weights = stratumWeights(strata);
  const arms = strata[0]?.length ?? 0;
  return Array.from({ length: arms }, (_, k): StratifiedEstimate => {
    let units = 0;
    let mx = 0;
    let my = 0;
    let vx = 0;
    let vy = 0;
    let cxy = 0;
    let known = true;
    strata.forEach((cells, s) => {
      const cell = cells[k] as PairSummary;
      const n = cell.x.n;
      const w = weights[s] as number;
      units += n;
      if (n < MIN_STRATUM_UNITS) {
        known = false;
        return;
      }
      mx += w * cell.x.mean;
      my += w * cell.y.mean;
      // The sample variance (n − 1) for 0/1 values too: with the few units a floor leaves an arm per stratum, m(1 − m)
      // would understate each stratum's variance by (n − 1)/n, and the sum adds those understatements up.
      const scale = (w * w) / (n * (n - 1));
      vx += scale * cell.x.m2;
      vy += scale * cell.y.m2;
      cxy += scale * cell.c2;
    });
    if (units === 0) return { units, mean: null, variance: null };
    if (!known) return { units, mean: pooledMean(strata, k, ratio), variance: null };
    if (!ratio) return { units, mean: mx, variance: vx };
    if (my === 0) return { units, mean: null, variance: null };
    return { units, mean: mx / my, variance: ratioVariance(mx, my, vx, vy, cxy) };
  });
}

/** An arm's plain mean over every stratum, for an arm with too few units to stratify. */
function pooledMean(strata: readonly (readonly PairSummary[])[], k: number, ratio: boolean): number | null {
  let n = 0;
  let sx = 0;
  let sy = 0;
  for (const cells of strata) {
    const cell = cells[k] as PairSummary;
    n += cell.x.n;
    sx += cell.x.n * cell.x.mean;
    sy += cell.x.n * cell.y.mean;
  }
  if (n === 0) return null;
  if (!ratio) return sx / n;
  return sy === 0 ? null : sx / sy;
}

/** The delta method's variance of M_x / M_y: Var(x)/M_y² − 2 M_x Cov(x, y)/M_y³ + M_x² Var(y)/M_y⁴. */
export function ratioVariance(mx: number, my: number, vx: number, vy: number, cxy: number): number {
  const my2 = my * my;
  return vx / my2 - (2 * mx * cxy) / (my2 * my) + (mx * mx * vy) / (my2 * my2);
}

/**
 * The delta method's variance of the relative effect (M_B − M_A) / |M_A| from two independent estimates:
 * V_B / M_A² + M_B² V_A / M_A⁴ (statistics.ts' deltaMethodVariance, with each side's Var(M) for s²/n).
 */
export function relativeEffectVariance(a: { mean: number; variance: number }, b: { mean: number; variance: number }): number {
  const a2 = a.mean * a.mean;
  return b.variance / a2 + (b.mean * b.mean * a.variance) / (a2 * a2);
}

/**
 * Arm B against the control A from their stratified estimates, with what compare() answers: the relative effect
 * (M_B − M_A)/|M_A| with its interval, p-value, chance to win, risk and credible interval, and the absolute one
 * M_B − M_A with variance V_A + V_B, tested with the normal, or sequentially (over the units of both arms) when the
 * experiment is. An effect whose variance is unknown or 0 has its point and no test.
 */
export function stratifiedComparison(a: StratifiedEstimate, b: StratifiedEstimate, options: CompareOptions = {}): Comparison {
  if (a.mean === null || b.mean === null) return noComparison();
  const units = a.units + b.units;
  const known = a.variance !== null && b.variance !== null;
  const difference: Estimate = { point: b.mean - a.mean, variance: known ? (a.variance as number) + (b.variance as number) : NaN, dof: NORMAL, units };
  const absolute = absoluteOf(difference, options);
  const harm = options.guardrail && known ? { harm: guardrailHarm(difference, options, false) } : {};
  if (a.mean === 0) return { ...noComparison(), absolute, ...harm };
  const uplift = difference.point / Math.abs(a.mean);
  if (!known) return { ...noComparison(), uplift, absolute, ...harm };
  const variance = relativeEffectVariance(a as { mean: number; variance: number }, b as { mean: number; variance: number });
  if (!(variance > 0) || !Number.isFinite(variance)) return { ...noComparison(), uplift, absolute, ...harm };
  const relative: Estimate = { point: uplift, variance, dof: NORMAL, units };
  const { ci, pValue } = tested(relative, options);
  const { chanceToWin, risk, credibleInterval } = bayesian(relative, options.alpha ?? DEFAULT_ALPHA, options.inverse === true);
  return { uplift, ci, pValue, chanceToWin, risk, credibleInterval, absolute, ...harm };
}

function absoluteOf(e: Estimate, options: CompareOptions): AbsoluteDifference {
  if (!(e.variance > 0) || !Number.isFinite(e.variance)) return { effect: e.point, ci: null, pValue: null };
  return { effect: e.point, ...tested(e, options) };
}

function tested(e: Estimate, options: CompareOptions): Frequentist {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  return options.sequential ? twoSidedSequential(e, alpha, options.sequentialTuning) : twoSidedFixed(e, alpha);
}
