import jStatModule from 'jstat';

// Inference on one estimated effect (relative or absolute) of a treatment against the control, as gbstats' tests
// compute it: the fixed-horizon t-test (two- and one-sided), the sequential tests of Waudby-Smith et al. 2023
// ("Time-uniform central limit theory and asymptotic confidence sequences", arXiv 2103.06476: eq. 9, 134, 155, 161),
// and the Gaussian Bayesian test with a flat prior. Pure: no I/O, no module state.

// jstat is CommonJS: Node's ESM loader hands its module.exports over as the default export only.
const { jStat } = jStatModule;

/** An effect's point estimate with its variance (the squared standard error) and what its tests need. */
export interface Estimate {
  point: number;
  variance: number;
  /** Welch–Satterthwaite degrees of freedom; not finite or ≤ 0: no t-test. */
  dof: number;
  /** Units of both variations: the sequential tests' sample size. */
  units: number;
}

export interface Frequentist {
  ci: [number, number] | null;
  pValue: number | null;
}

/** gbstats' default tuning parameter: the confidence sequence is tightest around this many units. */
export const DEFAULT_SEQUENTIAL_TUNING = 5000;

/**
 * Past this many degrees of freedom the t distribution is the standard normal to within 3e-7 on the 97.5% quantile
 * and 2e-8 on tails, while jstat's t functions, which work in df/2, lose their precision (its quantile is off by
 * 3e-3 from 1e8 on): the normal is used there.
 */
const NORMAL_DF = 1e7;

function hasTTest(e: Estimate): boolean {
  return e.dof > 0 && Number.isFinite(e.dof);
}

/**
 * gbstats' TwoSidedTTest: point ± t(1 − α/2, dof)·se, and the two-sided p-value of point/se. No degrees of freedom
 * (a side with variance and one unit): neither.
 */
export function twoSidedFixed(e: Estimate, alpha: number): Frequentist {
  if (!hasTTest(e)) return { ci: null, pValue: null };
  const se = Math.sqrt(e.variance);
  const half = studentTQuantile(1 - alpha / 2, e.dof) * se;
  return { ci: finiteInterval(e.point - half, e.point + half), pValue: twoSidedPValue(e.point / se, e.dof) };
}

/**
 * gbstats' one-sided t-tests. `greater` (H1: the effect is above 0; OneSidedTreatmentGreaterTTest): the interval
 * [point − t(1 − α)·se, +∞) and p = 1 − T(point/se); `lesser`: (−∞, point + t(1 − α)·se] and p = T(point/se). The
 * open end is ±Infinity (not JSON: for the service's own decisions, as guardrails will make).
 */
export function oneSidedFixed(e: Estimate, alpha: number, direction: 'greater' | 'lesser'): Frequentist {
  if (!hasTTest(e)) return { ci: null, pValue: null };
  const se = Math.sqrt(e.variance);
  const half = studentTQuantile(1 - alpha, e.dof) * se;
  const upperTail = upperTailProbability(e.point / se, e.dof);
  return direction === 'greater'
    ? { ci: [e.point - half, Infinity], pValue: upperTail }
    : { ci: [-Infinity, e.point + half], pValue: clamp01(1 - upperTail) };
}

/**
 * ρ of the normal mixture from the tuning parameter N (eq. 161): sqrt((−2 ln α + ln(−2 ln α + 1)) / N), with 2α in
 * place of α for a one-sided sequence.
 */
export function sequentialRho(alpha: number, tuning: number, twoSided = true): number {
  const a = twoSided ? alpha : 2 * alpha;
  const l = -2 * Math.log(a);
  return Math.sqrt((l + Math.log(l + 1)) / tuning);
}

/**
 * gbstats' SequentialTwoSidedTTest: the asymptotic confidence sequence point ± sqrt(s²) sqrt(2(nρ² + 1) ln(sqrt(nρ²
 * + 1)/α) / (nρ)²) with s² = se²·n over the n units of both variations (eq. 9), and its always-valid p-value
 * min(1, 1/E) with E = exp(ρ² S / (2(nρ² + 1))) / sqrt(nρ² + 1), S = n·point²/se² (eq. 155). Valid at every look.
 */
export function twoSidedSequential(e: Estimate, alpha: number, tuning = DEFAULT_SEQUENTIAL_TUNING): Frequentist {
  const n = e.units;
  const rho = sequentialRho(alpha, tuning, true);
  const nr2 = n * rho * rho;
  const half = sequentialIntervalHalfwidth(e.variance * n, n, rho, alpha);
  const t2 = (e.point * e.point * n) / e.variance; // gbstats' st2: n·(point/se)²
  const logE = (rho * rho * t2) / (2 * (nr2 + 1)) - 0.5 * Math.log(nr2 + 1);
  return { ci: finiteInterval(e.point - half, e.point + half), pValue: clamp01(Math.exp(-logE)) };
}

/**
 * gbstats' sequential_interval_halfwidth (eq. 9): sqrt(s²) · sqrt(2(nρ² + 1) ln(sqrt(nρ² + 1)/α) / (nρ)²), with s² the
 * variance of one unit (se²·n) over n units.
 */
export function sequentialIntervalHalfwidth(s2: number, n: number, rho: number, alpha: number): number {
  const nr2 = n * rho * rho;
  return Math.sqrt(s2) * Math.sqrt((2 * (nr2 + 1) * Math.log(Math.sqrt(nr2 + 1) / alpha)) / (nr2 * n)); // (nρ)² = nρ²·n
}

/**
 * How many times as wide the two-sided sequential interval tuned for `tuning` units is, at n units, as the
 * fixed-horizon one: sequentialIntervalHalfwidth(s², n, ρ, α) / (z(1 − α/2)·σ/√n). The unit variance cancels (σ = 1
 * here); the fixed-horizon test's t quantile is its large-sample z. Null without units.
 */
export function sequentialWidthRatio(n: number, alpha: number, tuning = DEFAULT_SEQUENTIAL_TUNING): number | null {
  if (!(n > 0)) return null;
  const fixedHalfwidth = jStat.normal.inv(1 - alpha / 2, 0, 1) / Math.sqrt(n);
  return sequentialIntervalHalfwidth(1, n, sequentialRho(alpha, tuning, true), alpha) / fixedHalfwidth;
}

/** gbstats' bounds on a one-sided sequential p-value (it searches for it between these). */
const MIN_ONE_SIDED_P = 1e-5;
const MAX_ONE_SIDED_P = 0.4999;

/**
 * gbstats' sequential one-sided tests (eq. 134): the half-width sqrt(s² · 2(nρ² + 1)/(nρ)² · ln(1 + sqrt(nρ² +
 * 1)/(2α))) with ρ from 2α. `greater`: [point − half, +∞); `lesser`: (−∞, point + half]. The p-value is the α at which
 * the bound reaches 0 with ρ kept, solved in closed form (gbstats bisects for it), within gbstats' bounds [1e-5,
 * 0.4999].
 */
export function oneSidedSequential(
  e: Estimate, alpha: number, direction: 'greater' | 'lesser', tuning = DEFAULT_SEQUENTIAL_TUNING,
): Frequentist {
  const n = e.units;
  const rho = sequentialRho(alpha, tuning, false);
  const s2 = e.variance * n;
  const nr2 = n * rho * rho;
  const k = (2 * (nr2 + 1)) / (nr2 * n); // 2(nρ² + 1) / (nρ)²
  const root = Math.sqrt(nr2 + 1);
  const half = Math.sqrt(s2 * k * Math.log(1 + root / (2 * alpha)));
  // The bound is at 0 when half(α') = |point| on the side tested: ln(1 + root/(2α')) = point² / (s² k).
  const towards = direction === 'greater' ? e.point : -e.point;
  let pValue = MAX_ONE_SIDED_P;
  if (towards > 0) {
    const l = (e.point * e.point) / (s2 * k);
    const solved = root / (2 * Math.expm1(l));
    pValue = Math.min(MAX_ONE_SIDED_P, Math.max(MIN_ONE_SIDED_P, solved));
  }
  return direction === 'greater' ? { ci: [e.point - half, Infinity], pValue } : { ci: [-Infinity, e.point + half], pValue };
}

/** The Gaussian Bayesian test's figures with a flat prior: the posterior of the effect is N(point, se²). */
export interface Bayesian {
  chanceToWin: number;
  risk: number;
  credibleInterval: [number, number] | null;
}

/**
 * Chance to win P(X > 0) (for an inverse metric, P(X < 0)), the risk of choosing the treatment E[max(0, −X)] (inverse:
 * E[max(0, X)]), and the (1 − α) credible interval, with X ~ N(point, se²) (gbstats' EffectBayesianABTest, flat prior).
 */
export function bayesian(e: Estimate, alpha: number, inverse: boolean): Bayesian {
  const mu = inverse ? -e.point : e.point;
  const sigma = Math.sqrt(e.variance);
  const z = mu / sigma;
  const half = jStat.normal.inv(1 - alpha / 2, 0, 1) * sigma;
  return {
    chanceToWin: clamp01(jStat.normal.cdf(z, 0, 1)),
    // E[max(0, −Y)] for Y ~ N(μ, σ²) = σφ(μ/σ) − μΦ(−μ/σ); past |z| = 37 the normal's tails are 0 in doubles.
    risk: Math.abs(z) > 37 ? Math.max(0, -mu) : Math.max(0, sigma * jStat.normal.pdf(z, 0, 1) - mu * jStat.normal.cdf(-z, 0, 1)),
    credibleInterval: finiteInterval(e.point - half, e.point + half),
  };
}

/**
 * 2 (1 − T_df(|t|)), written as the incomplete beta I_{df/(df+t²)}(df/2, 1/2) (Numerical Recipes' A(t|ν)) rather
 * than through jStat.studentt.cdf: that one evaluates I at a point near 1/2 with both parameters df/2, where
 * jstat's continued fraction stops short for the degrees of freedom of 100,000-unit variations (off by 6e-4 at
 * df = 300,000, by 2e-2 at a million). This form stays within 3e-8 up to NORMAL_DF, and has no 1 - cdf
 * cancellation either.
 */
function twoSidedPValue(t: number, df: number): number {
  if (df > NORMAL_DF) return clamp01(2 * jStat.normal.cdf(-Math.abs(t), 0, 1));
  return clamp01(jStat.ibeta(df / (df + t * t), df / 2, 0.5));
}

/** 1 − T_df(t), from the same incomplete beta: half the two-sided tail on t's side. */
function upperTailProbability(t: number, df: number): number {
  const tail = twoSidedPValue(t, df) / 2;
  return clamp01(t >= 0 ? tail : 1 - tail);
}

function studentTQuantile(p: number, df: number): number {
  return df > NORMAL_DF ? jStat.normal.inv(p, 0, 1) : jStat.studentt.inv(p, df);
}

function finiteInterval(low: number, high: number): [number, number] | null {
  return Number.isFinite(low) && Number.isFinite(high) ? [low, high] : null;
}

export function clamp01(p: number): number {
  return Math.min(1, Math.max(0, p));
}
