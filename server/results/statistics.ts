import jStatModule from 'jstat';
import type { AbsoluteDifference, GuardrailHarm } from '../../wire/results-answer.js';
import type { MetricType } from '../config/config-types.js';
import {
  bayesian, clamp01, DEFAULT_SEQUENTIAL_TUNING, oneSidedSequential, twoSidedFixed, twoSidedSequential, type Estimate,
  type Frequentist,
} from './inference.js';
import { unitVariance, summarize, type UnitStatistic } from './unit-statistics.js';

// The statistics of experiment results, as GrowthBook's gbstats computes them: its two-sided frequentist t-test
// (relative uplift over |control mean|, delta-method variance, Welch–Satterthwaite degrees of freedom) or its
// sequential test, beside the absolute difference, and its Gaussian Bayesian test with a flat prior (chance to win,
// risk, credible interval). Pure: no I/O, no module state, inputs are never mutated. Every statistic that is
// undefined is null, never NaN or Infinity: the results are sent as JSON.

// jstat is CommonJS: Node's ESM loader hands its module.exports over as the default export only.
const { jStat } = jStatModule;

export type { MetricType };

/** One variation's per-unit values summarized. */
export interface Moments {
  units: number;
  total: number;
  mean: number | null;
  stddev: number | null;
}

/**
 * Treatment against control: the relative uplift with its interval, p-value, chance to win, risk and credible
 * interval, and the absolute difference with its own interval and p-value.
 */
export interface Comparison {
  uplift: number | null;
  ci: [number, number] | null;
  pValue: number | null;
  chanceToWin: number | null;
  risk: number | null;
  credibleInterval: [number, number] | null;
  absolute: AbsoluteDifference;
  /** With `guardrail`: the test that the treatment harms the metric. */
  harm?: GuardrailHarm;
}

/** How a comparison is tested: the experiment's analysis settings and the metric's direction. */
export interface CompareOptions {
  /** Significance level: (1 − alpha) intervals; default 0.05. */
  alpha?: number;
  /** Always-valid sequential intervals and p-values instead of fixed-horizon ones. */
  sequential?: boolean;
  /**
   * The sequential tests' tuning parameter; default 5,000. The guardrails' harm test is sequential whatever
   * `sequential` says, and uses it too.
   */
  sequentialTuning?: number;
  /** Lower is better: chance to win and risk point that way. */
  inverse?: boolean;
  /** The metric is a guardrail: the comparison also tests for harm (guardrailHarm). */
  guardrail?: boolean;
}

/** The sample ratio mismatch check of units per variation against the configured weights. */
export interface SampleRatio {
  pValue: number | null;
  mismatch: boolean;
}

/** gbstats' default alpha. */
export const DEFAULT_ALPHA = 0.05;

/** gbstats' default SRM threshold: a p-value this small is taken as a broken assignment, not as chance. */
const SRM_THRESHOLD = 0.001;

/**
 * Summarizes per-unit values (one number per unit; units without events are 0). `binomial` values are 0/1 (a unit
 * counts as converted when its value is positive) and the stddev is the Bernoulli one, sqrt(m(1 - m)); `count` and
 * `sum` take the sample standard deviation (n - 1), null below 2 units. No units: mean and stddev are null.
 * @example moments('count', [2, 4, 4, 4, 5, 5, 7, 9]) // { units: 8, total: 40, mean: 5, stddev: 2.138… }
 */
export function moments(type: Exclude<MetricType, 'ratio'>, values: ArrayLike<number>): Moments {
  const units = values.length;
  if (units === 0) return { units, total: 0, mean: null, stddev: null };
  if (type === 'binomial') {
    const total = conversions(values);
    const mean = total / units;
    return { units, total, mean, stddev: Math.sqrt(mean * (1 - mean)) };
  }
  // Two passes (deviations from a known mean) rather than sum and sum of squares: revenue-like values with a large
  // mean and a small spread would lose every significant digit of the variance to cancellation in one pass.
  const s = summarize(values);
  return { units, total: sum(values), mean: s.mean, stddev: units < 2 ? null : Math.sqrt(unitVariance('mean', s)) };
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
 * Treatment B against control A from their moments, as gbstats' TwoSidedTTest (or SequentialTwoSidedTTest) and its
 * Gaussian Bayesian test with a flat prior: the relative uplift (mB − mA) / |mA| and the absolute difference mB − mA.
 * Every field is null when either side has no units or no stddev; the relative ones also when the control mean is 0.
 * @example
 * compare({ units: 3407, total: 1396.87, mean: 0.41, stddev: 3.9 }, { units: 3461, total: 2422.7, mean: 0.7, stddev:
 * 6.2 }) // { uplift: 0.70732, ci: [-0.03526, 1.44989], pValue: 0.06191, chanceToWin: 0.96907, risk: 0.00456, … }
 * (rounded)
 */
export function compare(control: Moments, treatment: Moments, options: CompareOptions = {}): Comparison {
  const a = statisticOf(control);
  const b = statisticOf(treatment);
  if (a === null || b === null) return noComparison();
  return compareStatistics(a, b, options);
}

function statisticOf(m: Moments): UnitStatistic | null {
  if (m.units === 0 || m.mean === null || m.stddev === null) return null;
  return { n: m.units, mean: m.mean, variance: m.stddev * m.stddev, unadjustedMean: m.mean };
}

/**
 * Treatment B against control A from their unit statistics (plain, ratio or CUPED-adjusted). The relative effect is
 * (mB − mA) / |A's unadjusted mean| with the delta-method variance vB/(nB mA²) + mB² vA/(nA mA⁴), or
 * `relativeVariance` when the statistic has its own (CUPED's). When neither side varies (each with 2 units or more:
 * everyone converted in one, nobody in the other), the formulas' limits: intervals [effect, effect], and for a
 * non-zero effect a certain answer (p 0, chance to win 1 or 0, risk 0 or the whole loss); for a zero effect 0/0
 * leaves those null. An effect without variance otherwise (one side varies but the delta method's terms vanish, or
 * one unit on a side) has its point and no test.
 */
export function compareStatistics(
  a: UnitStatistic, b: UnitStatistic, options: CompareOptions = {}, relativeVariance?: number,
): Comparison {
  const dof = welchDegreesOfFreedom(a, b);
  const units = a.n + b.n;
  // Only two sides that both have units and both do not vary make a certain answer; one side without variance
  // beside one that varies (a treatment nobody converted in yet) is not certain of anything, and neither is one
  // unit against one unit.
  const certain = a.variance === 0 && b.variance === 0 && a.n >= 2 && b.n >= 2;
  const absolutePoint = b.mean - a.mean;
  const difference: Estimate = { point: absolutePoint, variance: b.variance / b.n + a.variance / a.n, dof, units };
  const absolute = frequentistOf(difference, options, certain);
  const harm = options.guardrail ? { harm: guardrailHarm(difference, options, certain) } : {};
  const base = a.unadjustedMean;
  if (base === 0) return { ...noComparison(), absolute, ...harm };
  const uplift = absolutePoint / Math.abs(base);
  const variance = relativeVariance ?? deltaMethodVariance(a, b);
  if (!Number.isFinite(uplift)) return { ...noComparison(), absolute, ...harm };
  if (variance === 0 && certain) return { ...certainComparison(uplift, options.inverse === true), absolute, ...harm };
  if (!(variance > 0) || !Number.isFinite(variance)) return { ...noComparison(), uplift, absolute, ...harm };
  const estimate: Estimate = { point: uplift, variance, dof, units };
  const { ci, pValue } = test(estimate, options);
  const { chanceToWin, risk, credibleInterval } = bayesian(estimate, options.alpha ?? DEFAULT_ALPHA, options.inverse === true);
  return { uplift, ci, pValue, chanceToWin, risk, credibleInterval, absolute, ...harm };
}

/**
 * A guardrail's test of harm on the absolute difference (defined where the relative one is not: a control that never
 * erred): gbstats' one-sided sequential test, whatever the experiment's own intervals, so that the service may look
 * every day and stop at the first harm without inflating its false alarms; tuned by `sequentialTuning` whether or not
 * the experiment's intervals are sequential. H1: the treatment moves the metric the bad way (down; up for an inverse
 * metric). Neither side varying: harmed exactly when the difference is the bad way. `harmed` is this test alone: the
 * automatic stop corrects across all of an experiment's guardrails × challengers (server/guardrails/).
 */
export function guardrailHarm(e: Estimate, options: CompareOptions, certain: boolean): GuardrailHarm {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  const bad = options.inverse === true ? e.point > 0 : e.point < 0;
  if (!Number.isFinite(e.point)) return { pValue: null, harmed: false };
  if (e.variance === 0 && certain) return { pValue: bad ? 0 : null, harmed: bad };
  if (!(e.variance > 0) || !Number.isFinite(e.variance)) return { pValue: null, harmed: false };
  const direction = options.inverse === true ? 'greater' : 'lesser';
  const { pValue } = oneSidedSequential(e, alpha, direction, options.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING);
  return { pValue, harmed: pValue !== null && pValue < alpha };
}

/** The fixed-horizon or sequential two-sided test of an estimate with a positive, finite variance. */
function test(e: Estimate, options: CompareOptions): Frequentist {
  const alpha = options.alpha ?? DEFAULT_ALPHA;
  if (options.sequential) return twoSidedSequential(e, alpha, options.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING);
  return twoSidedFixed(e, alpha);
}

/** An absolute difference with its test, or its limits when neither side varies (`certain`). */
function frequentistOf(e: Estimate, options: CompareOptions, certain: boolean): AbsoluteDifference {
  if (!Number.isFinite(e.point)) return { effect: null, ci: null, pValue: null };
  if (e.variance === 0 && certain) return { effect: e.point, ci: [e.point, e.point], pValue: e.point === 0 ? null : 0 };
  if (!(e.variance > 0) || !Number.isFinite(e.variance)) return { effect: e.point, ci: null, pValue: null };
  return { effect: e.point, ...test(e, options) };
}

/** The limits of the formulas as the variance goes to 0 around `uplift`. */
function certainComparison(uplift: number, inverse: boolean): Omit<Comparison, 'absolute'> {
  if (uplift === 0) return { uplift, ci: [0, 0], pValue: null, chanceToWin: null, risk: null, credibleInterval: [0, 0] };
  const wins = inverse ? uplift < 0 : uplift > 0;
  return {
    uplift, ci: [uplift, uplift], pValue: 0, chanceToWin: wins ? 1 : 0, risk: wins ? 0 : Math.abs(uplift), credibleInterval: [uplift, uplift],
  };
}

/** A comparison of which nothing is defined. */
export function noComparison(): Comparison {
  return {
    uplift: null, ci: null, pValue: null, chanceToWin: null, risk: null, credibleInterval: null,
    absolute: { effect: null, ci: null, pValue: null },
  };
}

/** Delta-method variance of the relative difference: vB/(nB mA²) + mB² vA/(nA mA⁴) (the control mean squared). */
export function deltaMethodVariance(a: UnitStatistic, b: UnitStatistic): number {
  const a2 = a.mean * a.mean;
  return b.variance / (b.n * a2) + (b.mean * b.mean * a.variance) / (a.n * a2 * a2);
}

/**
 * Welch–Satterthwaite: (vA + vB)² / (vA²/(nA - 1) + vB²/(nB - 1)) with v = s²/n. A side without variance adds
 * nothing to the denominator (its limit as s → 0), which is what keeps a one-unit binomial side (s = 0, n - 1 = 0)
 * from turning the sum into 0/0; a side with variance and one unit gives 0 degrees of freedom, i.e. no t-test.
 */
function welchDegreesOfFreedom(a: UnitStatistic, b: UnitStatistic): number {
  const va = a.variance / a.n;
  const vb = b.variance / b.n;
  const term = (v: number, n: number): number => (v === 0 ? 0 : (v * v) / (n - 1));
  return ((va + vb) * (va + vb)) / (term(va, a.n) + term(vb, b.n));
}

/**
 * Chi-square goodness of fit of units per variation against the weights (shares of 100, or any positive scale),
 * with k - 1 degrees of freedom over the k variations of positive weight; a mismatch below p = 0.001. Variations of
 * weight 0 are left out, units and all, as GrowthBook does: a variation ramped down to 0 keeps the units it had. No
 * units in the variations tested, or fewer than 2 of positive weight: no test (p null, no mismatch).
 * @example sampleRatioMismatch([1000, 1100], [50, 50]) // { pValue: 0.029096…, mismatch: false }
 */
export function sampleRatioMismatch(units: readonly number[], weights: readonly number[]): SampleRatio {
  if (units.length !== weights.length) {
    throw new RangeError(`sampleRatioMismatch: ${units.length} unit counts for ${weights.length} weights`);
  }
  const tested = units.map((u, i) => ({ units: u, weight: weights[i] as number })).filter((v) => v.weight > 0);
  const testedUnits = tested.reduce((sum, v) => sum + v.units, 0);
  const totalWeight = tested.reduce((sum, v) => sum + v.weight, 0);
  if (testedUnits === 0 || tested.length < 2) return { pValue: null, mismatch: false };
  let chi2 = 0;
  for (const v of tested) chi2 += chiSquareTerm(v.units, (testedUnits * v.weight) / totalWeight);
  const pValue = clamp01(1 - jStat.chisquare.cdf(chi2, tested.length - 1));
  return { pValue, mismatch: pValue < SRM_THRESHOLD };
}

/** Pearson's (observed - expected)² / expected. */
function chiSquareTerm(observed: number, expected: number): number {
  return ((observed - expected) * (observed - expected)) / expected;
}
