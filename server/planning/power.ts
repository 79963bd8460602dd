import jStatModule from 'jstat';
import { sequentialIntervalHalfwidth, sequentialRho } from '../results/inference.js';
import { deltaMethodVariance } from '../results/statistics.js';

// The power of the two-sided tests results run on a relative change (server/results/statistics.ts): the relative
// uplift (mB − mA) / |mA| against its delta-method standard error, fixed-horizon (normal approximation of Welch's t) or
// sequentially (the normal-mixture confidence sequence of Waudby-Smith et al. 2023, arXiv 2103.06476, eq. 9 and 161,
// as results use it). As in Fleiss' formula for two rates, the threshold is scaled by one standard deviation (here
// the test's own, the delta method's) and the estimate varies by another (that of the difference of the means):
// relativeVariances. docs/planning.md has the formulas. Pure: no I/O, no module state.

// jstat is CommonJS: Node's ESM loader hands its module.exports over as the default export only.
const { jStat } = jStatModule;

/** A metric's value per unit in the control: its mean and unit variance, and whether it is a 0/1 conversion. */
export interface UnitBaseline {
  mean: number;
  variance: number;
  binomial: boolean;
}

/** The two variations compared, as shares of all the experiment's units (each > 0). */
export interface ArmShares {
  control: number;
  treatment: number;
}

/** How a comparison is tested: its significance level, the power wanted, and for the sequential test its tuning. */
export interface TestSettings {
  alpha: number;
  power: number;
  tuning: number;
}

/** The two tests a plan compares. */
export type PlannedTest = 'fixed-horizon' | 'sequential';

const normalCdf = (x: number): number => jStat.normal.cdf(x, 0, 1);
const normalQuantile = (p: number): number => jStat.normal.inv(p, 0, 1);

/**
 * The treatment's mean and unit variance under a relative change `effect` (signed: −0.03 is a 3 % fall): mean mA +
 * effect·|mA|. A conversion rate p becomes p' with variance p'(1 − p'); any other metric keeps its coefficient of
 * variation (the spread scales with the mean, as a multiplicative change of every unit's value does).
 */
export function treatedBaseline(b: UnitBaseline, effect: number): { mean: number; variance: number } {
  const mean = b.mean + effect * Math.abs(b.mean);
  if (b.binomial) return { mean, variance: mean * (1 - mean) };
  const scale = mean / b.mean;
  return { mean, variance: b.variance * scale * scale };
}

/** Whether a relative change keeps a conversion rate within [0, 1] (any change of another metric is possible). */
export function effectInRange(b: UnitBaseline, effect: number): boolean {
  const mean = b.mean + effect * Math.abs(b.mean);
  return !b.binomial || (mean >= 0 && mean <= 1);
}

/**
 * The two variances of a relative comparison when the experiment has one unit in all, spread as `shares` say (with N
 * units each is this over N), in units of the control mean squared:
 * - `yardstick`: the delta-method variance results compute for the uplift, vB/(nB mA²) + mB² vA/(nA mA⁴)
 *   (deltaMethodVariance), which scales the test's threshold: the uplift is significant when
 *   (mB − mA)/|mA| > z·sqrt(yardstick), i.e. mB − mA > z·sqrt(vB/nB + (mB/mA)² vA/nA);
 * - `spread`: the variance of what is compared with it, the difference of the means over |mA|, (vB/nB + vA/nA)/mA².
 * They differ by (mB/mA)² on the control's term: a rise makes the yardstick longer than the spread it measures.
 */
export function relativeVariances(b: UnitBaseline, effect: number, shares: ArmShares): { yardstick: number; spread: number } {
  const t = treatedBaseline(b, effect);
  const yardstick = deltaMethodVariance(
    { n: shares.control, mean: b.mean, variance: b.variance, unadjustedMean: b.mean },
    { n: shares.treatment, mean: t.mean, variance: t.variance, unadjustedMean: t.mean },
  );
  const spread = (t.variance / shares.treatment + b.variance / shares.control) / (b.mean * b.mean);
  return { yardstick, spread };
}

/**
 * The fixed-horizon test's units in all, in closed form: N = (z(1 − α/2)·sqrt(Y) + z(power)·sqrt(S))² / effect², with
 * Y and S the yardstick and the spread of relativeVariances (the normal approximation of Welch's t; the far tail's
 * chance of a significant result the wrong way, below 1e-6 at 80 % power, is left out).
 */
export function fixedHorizonUnits(b: UnitBaseline, effect: number, shares: ArmShares, test: TestSettings): number {
  const { yardstick, spread } = relativeVariances(b, effect, shares);
  const root = normalQuantile(1 - test.alpha / 2) * Math.sqrt(yardstick) + normalQuantile(test.power) * Math.sqrt(spread);
  return (root * root) / (effect * effect);
}

/** The chance that |effect| ± its spread passes a threshold `half` either way: Φ((|e| − h)/s) + Φ((−|e| − h)/s). */
function passes(effect: number, half: number, spread: number): number {
  const e = Math.abs(effect);
  const sd = Math.sqrt(spread);
  return normalCdf((e - half) / sd) + normalCdf((-e - half) / sd);
}

/** The fixed-horizon test's power with N units in all: the threshold z(1 − α/2)·sqrt(Y/N), the spread S/N. */
export function fixedHorizonPower(b: UnitBaseline, effect: number, shares: ArmShares, units: number, alpha: number): number {
  const { yardstick, spread } = relativeVariances(b, effect, shares);
  return passes(effect, normalQuantile(1 - alpha / 2) * Math.sqrt(yardstick / units), spread / units);
}

/**
 * The sequential test's power with N units in all, read at N: the chance that its confidence sequence excludes 0 there.
 * The threshold is the half-width results compute (eq. 9) from the yardstick Y/N over the units of the two variations
 * compared, n = N·(shares), with s² = (Y/N)·n; the spread is S/N.
 */
export function sequentialPower(b: UnitBaseline, effect: number, shares: ArmShares, units: number, test: Omit<TestSettings, 'power'>): number {
  const { yardstick, spread } = relativeVariances(b, effect, shares);
  const n = units * (shares.control + shares.treatment);
  const half = sequentialIntervalHalfwidth((yardstick / units) * n, n, sequentialRho(test.alpha, test.tuning, true), test.alpha);
  return passes(effect, half, spread / units);
}

/** A test's power with N units in all. */
export function powerOf(kind: PlannedTest, b: UnitBaseline, effect: number, shares: ArmShares, units: number, test: TestSettings): number {
  return kind === 'fixed-horizon' ? fixedHorizonPower(b, effect, shares, units, test.alpha) : sequentialPower(b, effect, shares, units, test);
}

/**
 * The sequential test's units in all for `test.power`: no closed form (the half-width grows with n), so the smallest N
 * whose sequentialPower reaches it, found by doubling from the fixed-horizon figure (the sequential interval is wider
 * at every n) and then bisecting to a relative 1e-9. Its power rises with N: the effect over its standard error grows
 * as √N, the half-width over it as √(log N) at most.
 */
export function sequentialUnits(b: UnitBaseline, effect: number, shares: ArmShares, test: TestSettings): number {
  const reaches = (units: number): boolean => sequentialPower(b, effect, shares, units, test) >= test.power;
  let low = fixedHorizonUnits(b, effect, shares, test);
  // No spread (or no change): nothing to search for.
  if (!(low > 0) || !Number.isFinite(low)) return low;
  let high = 2 * low;
  while (!reaches(high) && Number.isFinite(high)) {
    low = high;
    high *= 2;
  }
  while ((high - low) / high > 1e-9) {
    const mid = (low + high) / 2;
    if (reaches(mid)) high = mid;
    else low = mid;
  }
  return high;
}

/** The largest relative change searched for an MDE of a metric that is not a conversion rate: 10,000 %. */
const MAX_EFFECT = 100;

/**
 * The minimum detectable effect with N units in all: the smallest relative change in the direction `sign` (1 up, −1
 * down) with `test.power`, by bisection on its size (power rises with it). Null when no change within reach has that
 * power (a conversion rate cannot pass 100 % nor fall below 0; a metric whose spread scales with its mean cannot be
 * told from its own scaling with too few units).
 */
export function detectableEffect(
  kind: PlannedTest, b: UnitBaseline, sign: 1 | -1, shares: ArmShares, units: number, test: TestSettings,
): number | null {
  if (!(units > 0)) return null;
  const reach = b.binomial ? (sign > 0 ? 1 / b.mean - 1 : 1) : sign > 0 ? MAX_EFFECT : 1;
  const enough = (size: number): boolean => powerOf(kind, b, sign * size, shares, units, test) >= test.power;
  if (!enough(reach)) return null;
  let low = 0;
  let high = reach;
  while ((high - low) / high > 1e-9) {
    const mid = (low + high) / 2;
    if (enough(mid)) high = mid;
    else low = mid;
  }
  return high;
}
