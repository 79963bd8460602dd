import jStatModule from 'jstat';
import type { MetricType } from '../config/config-types.js';

// The statistics of experiment results, as GrowthBook's gbstats computes them: its two-sided frequentist t-test
// (relative uplift, delta-method variance, Welch–Satterthwaite degrees of freedom) and its Gaussian Bayesian test
// with a flat prior (chance to win, risk). Pure: no I/O, no module state, inputs are never mutated.
// Every statistic that is undefined is null, never NaN or Infinity: the results are sent as JSON.

// jstat is CommonJS: Node's ESM loader (tsx in tests, dist/server.mjs where esbuild leaves packages external) hands
// its module.exports over as the default export only.
const { jStat } = jStatModule;

export type { MetricType };

/** One variation's per-unit values summarized. */
export interface Moments {
  units: number;
  total: number;
  mean: number | null;
  stddev: number | null;
}

/** Treatment against control: relative uplift with its 95% confidence interval, p-value, chance to win and risk. */
export interface Comparison {
  uplift: number | null;
  ci: [number, number] | null;
  pValue: number | null;
  chanceToWin: number | null;
  risk: number | null;
}

/** The sample ratio mismatch check of units per variation against the configured weights. */
export interface SampleRatio {
  pValue: number | null;
  mismatch: boolean;
}

/** CUPED's regression coefficient and the adjusted values, one array per variation in the order given. */
export interface CupedAdjustment {
  theta: number;
  adjusted: Float64Array[];
}

/** Two-sided 95% intervals, as gbstats' default alpha of 0.05. */
const CONFIDENCE = 0.95;

/** gbstats' default SRM threshold: a p-value this small is taken as a broken assignment, not as chance. */
const SRM_THRESHOLD = 0.001;

/** Moments of a variation whose mean and stddev are known, the only kind a comparison is defined on. */
interface KnownMoments {
  units: number;
  mean: number;
  stddev: number;
}

/**
 * Summarizes per-unit values (one number per unit; units without events are 0). `binomial` values are 0/1 (a unit
 * counts as converted when its value is positive) and the stddev is the Bernoulli one, sqrt(m(1 - m)); `count` and
 * `sum` take the sample standard deviation (n - 1), null below 2 units. No units: mean and stddev are null.
 * @example moments('count', [2, 4, 4, 4, 5, 5, 7, 9]) // { units: 8, total: 40, mean: 5, stddev: 2.138… }
 */
export function moments(type: MetricType, values: ArrayLike<number>): Moments {
  const units = values.length;
  const total = type === 'binomial' ? conversions(values) : sum(values);
  if (units === 0) return { units, total: 0, mean: null, stddev: null };
  const mean = total / units;
  if (type === 'binomial') return { units, total, mean, stddev: Math.sqrt(mean * (1 - mean)) };
  return { units, total, mean, stddev: units < 2 ? null : sampleStddev(values, mean) };
}

function sum(values: ArrayLike<number>): number {
  let total = 0;
  for (let i = 0; i < values.length; i++) total += values[i] as number;
  return total;
}

function conversions(values: ArrayLike<number>): number {
  let converted = 0;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) > 0) converted++;
  return converted;
}

/**
 * Two passes (deviations from a known mean) rather than sum and sum of squares: revenue-like values with a large
 * mean and a small spread would lose every significant digit of the variance to cancellation in one pass.
 */
function sampleStddev(values: ArrayLike<number>, mean: number): number {
  let squares = 0;
  for (let i = 0; i < values.length; i++) {
    const d = (values[i] as number) - mean;
    squares += d * d;
  }
  return Math.sqrt(squares / (values.length - 1));
}

/**
 * Treatment B against control A, as gbstats' TwoSidedTTest (uplift, ci, pValue) and its Gaussian Bayesian test with
 * a flat prior (chanceToWin, risk), all on the relative uplift (mB - mA) / mA. Every field is null when either side
 * has no units or no stddev, or the control mean is 0. When the uplift has no variance (both sides constant: everyone
 * converted, or nobody in one of them), the formulas' limits: `ci` [uplift, uplift], and for a non-zero uplift a
 * certain answer (pValue 0, chanceToWin 1 or 0, risk 0 or -uplift); for a zero uplift 0/0 leaves those null.
 * @example
 * compare({ units: 3407, total: 1396.87, mean: 0.41, stddev: 3.9 }, { units: 3461, total: 2422.7, mean: 0.7, stddev: 6.2 })
 * // { uplift: 0.70732, ci: [-0.03526, 1.44989], pValue: 0.06191, chanceToWin: 0.96907, risk: 0.00456 } (rounded)
 */
export function compare(control: Moments, treatment: Moments): Comparison {
  const a = known(control);
  const b = known(treatment);
  if (a === null || b === null || a.mean === 0) return noComparison();
  const uplift = relativeUplift(a.mean, b.mean);
  const variance = deltaMethodVariance(a, b);
  if (!Number.isFinite(uplift)) return noComparison();
  if (variance === 0) return certainComparison(uplift);
  if (!(variance > 0) || !Number.isFinite(variance)) return { ...noComparison(), uplift };
  const sigma = Math.sqrt(variance);
  const df = welchDegreesOfFreedom(a, b);
  const frequentist = df > 0 && Number.isFinite(df)
    ? { ci: confidenceInterval(uplift, sigma, df), pValue: twoSidedPValue(uplift / sigma, df) }
    : { ci: null, pValue: null };
  return { uplift, ...frequentist, chanceToWin: chanceToWin(uplift, sigma), risk: gaussianRisk(uplift, sigma) };
}

function known(m: Moments): KnownMoments | null {
  if (m.units === 0 || m.mean === null || m.stddev === null) return null;
  return { units: m.units, mean: m.mean, stddev: m.stddev };
}

/** The limits of the formulas as the variance goes to 0 around `uplift`. */
function certainComparison(uplift: number): Comparison {
  if (uplift === 0) return { uplift, ci: [0, 0], pValue: null, chanceToWin: null, risk: null };
  return { uplift, ci: [uplift, uplift], pValue: 0, chanceToWin: uplift > 0 ? 1 : 0, risk: uplift > 0 ? 0 : -uplift };
}

function noComparison(): Comparison {
  return { uplift: null, ci: null, pValue: null, chanceToWin: null, risk: null };
}

function relativeUplift(controlMean: number, treatmentMean: number): number {
  return (treatmentMean - controlMean) / controlMean;
}

/** Delta-method variance of the ratio mB / mA: sB²/(nB mA²) + mB² sA²/(nA mA⁴). */
function deltaMethodVariance(a: KnownMoments, b: KnownMoments): number {
  const a2 = a.mean * a.mean;
  return (b.stddev * b.stddev) / (b.units * a2) + (b.mean * b.mean * a.stddev * a.stddev) / (a.units * a2 * a2);
}

/**
 * Welch–Satterthwaite: (vA + vB)² / (vA²/(nA - 1) + vB²/(nB - 1)) with v = s²/n. A side without variance adds
 * nothing to the denominator (its limit as s → 0), which is what keeps a one-unit binomial side (s = 0, n - 1 = 0)
 * from turning the sum into 0/0; a side with variance and one unit gives 0 degrees of freedom, i.e. no t-test.
 */
function welchDegreesOfFreedom(a: KnownMoments, b: KnownMoments): number {
  const va = (a.stddev * a.stddev) / a.units;
  const vb = (b.stddev * b.stddev) / b.units;
  const term = (v: number, n: number): number => (v === 0 ? 0 : (v * v) / (n - 1));
  return ((va + vb) * (va + vb)) / (term(va, a.units) + term(vb, b.units));
}

/**
 * Past this many degrees of freedom the t distribution is the standard normal to within 3e-7 on the 97.5% quantile
 * and 2e-8 on tails, while jstat's t functions, which work in df/2, lose their precision (its quantile is off by
 * 3e-3 from 1e8 on): the normal is used there.
 */
const NORMAL_DF = 1e7;

function confidenceInterval(uplift: number, sigma: number, df: number): [number, number] | null {
  const half = studentTQuantile(1 - (1 - CONFIDENCE) / 2, df) * sigma;
  const ci: [number, number] = [uplift - half, uplift + half];
  return Number.isFinite(ci[0]) && Number.isFinite(ci[1]) ? ci : null;
}

/**
 * 2 (1 - T_df(|t|)), written as the incomplete beta I_{df/(df+t²)}(df/2, 1/2) (Numerical Recipes' A(t|ν)) rather
 * than through jStat.studentt.cdf: that one evaluates I at a point near 1/2 with both parameters df/2, where
 * jstat's continued fraction stops short for the degrees of freedom of 100,000-unit variations (off by 6e-4 at
 * df = 300,000, by 2e-2 at a million). This form stays within 3e-8 up to NORMAL_DF, and has no 1 - cdf
 * cancellation either.
 */
function twoSidedPValue(t: number, df: number): number {
  if (df > NORMAL_DF) return clamp01(2 * jStat.normal.cdf(-Math.abs(t), 0, 1));
  return clamp01(jStat.ibeta(df / (df + t * t), df / 2, 0.5));
}

function studentTQuantile(p: number, df: number): number {
  return df > NORMAL_DF ? jStat.normal.inv(p, 0, 1) : jStat.studentt.inv(p, df);
}

/** P(X > 0) for X ~ N(uplift, σ²): the flat-prior posterior of the uplift. */
function chanceToWin(uplift: number, sigma: number): number {
  return clamp01(jStat.normal.cdf(uplift / sigma, 0, 1));
}

/** E[max(0, -X)] for X ~ N(μ, σ²) = σφ(μ/σ) - μΦ(-μ/σ): the expected relative loss of shipping the treatment. */
function gaussianRisk(mu: number, sigma: number): number {
  const z = mu / sigma;
  return Math.max(0, sigma * jStat.normal.pdf(z, 0, 1) - mu * jStat.normal.cdf(-z, 0, 1));
}

function clamp01(p: number): number {
  return Math.min(1, Math.max(0, p));
}

/**
 * Chi-square goodness of fit of units per variation against the weights (shares of 100, or any positive scale),
 * with k - 1 degrees of freedom over the k variations of positive weight; a mismatch below p = 0.001. A variation
 * of weight 0 is left out of the test, but units in it are a mismatch (p = 0) by themselves. No units at all, or
 * fewer than 2 variations of positive weight: no test (p null, no mismatch).
 * @example sampleRatioMismatch([1000, 1100], [50, 50]) // { pValue: 0.029096…, mismatch: false }
 */
export function sampleRatioMismatch(units: readonly number[], weights: readonly number[]): SampleRatio {
  if (units.length !== weights.length) {
    throw new RangeError(`sampleRatioMismatch: ${units.length} unit counts for ${weights.length} weights`);
  }
  let tested = 0;
  let testedUnits = 0;
  let totalWeight = 0;
  let strayUnits = 0;
  for (let i = 0; i < units.length; i++) {
    const w = weights[i] as number;
    if (w > 0) {
      tested++;
      testedUnits += units[i] as number;
      totalWeight += w;
    } else {
      strayUnits += units[i] as number;
    }
  }
  // Stray units are checked before the count of variations: a variation paused at weight 0 beside a single live
  // one still must not receive anyone.
  if (testedUnits + strayUnits === 0) return { pValue: null, mismatch: false };
  if (strayUnits > 0) return { pValue: 0, mismatch: true };
  if (tested < 2) return { pValue: null, mismatch: false };
  let chi2 = 0;
  for (let i = 0; i < units.length; i++) {
    const w = weights[i] as number;
    if (w > 0) chi2 += chiSquareTerm(units[i] as number, (testedUnits * w) / totalWeight);
  }
  const pValue = clamp01(1 - jStat.chisquare.cdf(chi2, tested - 1));
  return { pValue, mismatch: pValue < SRM_THRESHOLD };
}

/** Pearson's (observed - expected)² / expected. */
function chiSquareTerm(observed: number, expected: number): number {
  return ((observed - expected) * (observed - expected)) / expected;
}

/**
 * CUPED (Deng, Xu, Kohavi and Walker, "Improving the Sensitivity of Online Controlled Experiments by Utilizing
 * Pre-Experiment Data"): `pre[i][j]` is unit j's value of the metric in the window before its first exposure in
 * variation i, `post[i][j]` its value after. theta = cov(pre, post) / var(pre), pooled over all units of all
 * variations; adjusted[i][j] = post[i][j] - theta (pre[i][j] - mean of pre over all units). Subtracting the pooled
 * pre mean keeps the mean over all units unchanged; theta is 0 when pre does not vary or there are under 2 units.
 * @example cupedAdjust([[1, 2], [3, 4]], [[2, 4], [6, 8]]) // { theta: 2, adjusted: [[5, 5], [5, 5]] }
 */
export function cupedAdjust(pre: readonly ArrayLike<number>[], post: readonly ArrayLike<number>[]): CupedAdjustment {
  if (pre.length !== post.length || pre.some((p, i) => p.length !== (post[i] as ArrayLike<number>).length)) {
    throw new RangeError('cupedAdjust: pre and post must hold one value per unit of the same variations');
  }
  const { units, preMean, postMean, constantPre } = pooledMeans(pre, post);
  const theta = units < 2 || constantPre ? 0 : regressionSlope(pre, post, preMean, postMean);
  const adjusted = pre.map((p, i) => {
    const q = post[i] as ArrayLike<number>;
    const out = new Float64Array(p.length);
    for (let j = 0; j < p.length; j++) out[j] = (q[j] as number) - theta * ((p[j] as number) - preMean);
    return out;
  });
  return { theta, adjusted };
}

interface PooledMeans {
  units: number;
  preMean: number;
  postMean: number;
  /** Every pre value is the same: its variance is 0 exactly, though a rounded mean leaves deviations of ~1e-17. */
  constantPre: boolean;
}

function pooledMeans(pre: readonly ArrayLike<number>[], post: readonly ArrayLike<number>[]): PooledMeans {
  let units = 0;
  let preSum = 0;
  let postSum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < pre.length; i++) {
    const p = pre[i] as ArrayLike<number>;
    const q = post[i] as ArrayLike<number>;
    units += p.length;
    for (let j = 0; j < p.length; j++) {
      const x = p[j] as number;
      preSum += x;
      postSum += q[j] as number;
      if (x < min) min = x;
      if (x > max) max = x;
    }
  }
  return { units, preMean: units ? preSum / units : 0, postMean: units ? postSum / units : 0, constantPre: !(min < max) };
}

/** Least-squares slope of post on pre: Σ(x - x̄)(y - ȳ) / Σ(x - x̄)², around the pooled means (two passes, as above). */
function regressionSlope(
  pre: readonly ArrayLike<number>[], post: readonly ArrayLike<number>[], preMean: number, postMean: number,
): number {
  let cross = 0;
  let squares = 0;
  for (let i = 0; i < pre.length; i++) {
    const p = pre[i] as ArrayLike<number>;
    const q = post[i] as ArrayLike<number>;
    for (let j = 0; j < p.length; j++) {
      const dx = (p[j] as number) - preMean;
      cross += dx * ((q[j] as number) - postMean);
      squares += dx * dx;
    }
  }
  return squares > 0 ? cross / squares : 0;
}
