// Per-variation statistics of unit values as gbstats' tests take them: a sample mean, a proportion, a ratio of two
// per-unit metrics, and the regression-adjusted (CUPED) statistic of a metric and its pre-exposure value. Values are
// kept as centred sums (mean and Σ of squared or crossed deviations), which combine across variations exactly and do
// not lose the variance of large values with a small spread to cancellation, as sums of squares would.

/**
 * `proportion`: 0/1 values, whose variance is m(1 − m) and whose covariances divide by n (gbstats'
 * ProportionStatistic); `mean`: any values, sample variance and covariance with n − 1 (its SampleMeanStatistic).
 */
export type UnitKind = 'proportion' | 'mean';

/** n values summarized: their mean and m2 = Σ(x − mean)². */
export interface Summary {
  n: number;
  mean: number;
  m2: number;
}

/** Two values per unit (post and pre, numerator and denominator) summarized, with c2 = Σ(x − x̄)(y − ȳ). */
export interface PairSummary {
  x: Summary;
  y: Summary;
  c2: number;
}

/**
 * Summarizes values in two passes (mean, then deviations); constant values exactly (their mean and m2 0).
 * @example summarize([1, 2, 3]) // { n: 3, mean: 2, m2: 2 }
 */
export function summarize(values: ArrayLike<number>): Summary {
  const n = values.length;
  if (n === 0) return { n, mean: 0, m2: 0 };
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const x = values[i] as number;
    sum += x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  // Values that are all the same have no spread, though their rounded mean leaves deviations of ~1e-17.
  if (min === max) return { n, mean: min, m2: 0 };
  const mean = sum / n;
  let m2 = 0;
  for (let i = 0; i < n; i++) {
    const d = (values[i] as number) - mean;
    m2 += d * d;
  }
  return { n, mean, m2 };
}

/** Summarizes unit j's pair (x[j], y[j]). */
export function summarizePairs(x: ArrayLike<number>, y: ArrayLike<number>): PairSummary {
  if (x.length !== y.length) throw new RangeError(`summarizePairs: ${x.length} x values for ${y.length} y values`);
  const sx = summarize(x);
  const sy = summarize(y);
  let c2 = 0;
  for (let i = 0; i < x.length; i++) c2 += ((x[i] as number) - sx.mean) * ((y[i] as number) - sy.mean);
  return { x: sx, y: sy, c2 };
}

/**
 * A summary from the sums a query or a published test case states (gbstats' `sum`, `sum_squares`, `n`).
 * @example fromSums(10, 100, 1002.25) // { n: 10, mean: 10, m2: 2.25 }
 */
export function fromSums(n: number, sum: number, sumSquares: number): Summary {
  if (n === 0) return { n, mean: 0, m2: 0 };
  // Not clamped at 0: sums that contradict each other give what gbstats computes from them.
  return { n, mean: sum / n, m2: sumSquares - (sum * sum) / n };
}

/** A pair summary from sums: Σx, Σx², Σy, Σy², Σxy over n units. */
export function pairFromSums(
  n: number, sumX: number, sumSquaresX: number, sumY: number, sumSquaresY: number, sumProducts: number,
): PairSummary {
  return { x: fromSums(n, sumX, sumSquaresX), y: fromSums(n, sumY, sumSquaresY), c2: n === 0 ? 0 : sumProducts - (sumX * sumY) / n };
}

/** The unit variance: m(1 − m) for a proportion, the sample variance (0 below 2 units) otherwise. */
export function unitVariance(kind: UnitKind, s: Summary): number {
  if (kind === 'proportion') return s.mean * (1 - s.mean);
  return s.n <= 1 ? 0 : s.m2 / (s.n - 1);
}

/** The covariance of a pair: over n when both are proportions, over n − 1 otherwise; 0 below 2 units. */
export function unitCovariance(kinds: readonly [UnitKind, UnitKind], p: PairSummary): number {
  const n = p.x.n;
  if (n <= 1) return 0;
  return kinds[0] === 'proportion' && kinds[1] === 'proportion' ? p.c2 / n : p.c2 / (n - 1);
}

/** Two variations' summaries as one (the parallel-axis rule: exact, whatever the means). */
export function combine(a: Summary, b: Summary): Summary {
  const n = a.n + b.n;
  if (n === 0) return { n, mean: 0, m2: 0 };
  const d = b.mean - a.mean;
  return { n, mean: a.mean + (d * b.n) / n, m2: a.m2 + b.m2 + (d * d * a.n * b.n) / n };
}

/** Two variations' pair summaries as one. */
export function combinePairs(a: PairSummary, b: PairSummary): PairSummary {
  const n = a.x.n + b.x.n;
  const cross = n === 0 ? 0 : ((b.x.mean - a.x.mean) * (b.y.mean - a.y.mean) * a.x.n * b.x.n) / n;
  return { x: combine(a.x, b.x), y: combine(a.y, b.y), c2: a.c2 + b.c2 + cross };
}

/** What a comparison needs of one variation: units, the (possibly adjusted) mean and the unit variance. */
export interface UnitStatistic {
  n: number;
  mean: number;
  variance: number;
  /** The mean a relative effect divides by (the raw mean when `mean` is adjusted). */
  unadjustedMean: number;
}

/** A metric's values as a sample mean or proportion. */
export function plainStatistic(kind: UnitKind, s: Summary): UnitStatistic {
  return { n: s.n, mean: s.mean, variance: unitVariance(kind, s), unadjustedMean: s.mean };
}

/**
 * A ratio metric: Σ numerator / Σ denominator, with its unit variance by the delta method (gbstats' RatioStatistic):
 * var(M)/d² + var(D) m²/d⁴ − 2 cov(M, D) m/d³ over the per-unit means m, d. A denominator mean of 0 leaves the ratio
 * and its variance 0, as gbstats does; the caller treats such a variation as having no ratio.
 */
export function ratioStatistic(kinds: readonly [UnitKind, UnitKind], p: PairSummary): UnitStatistic {
  const m = p.x.mean;
  const d = p.y.mean;
  if (d === 0) return { n: p.x.n, mean: 0, variance: 0, unadjustedMean: 0 };
  const mean = m / d;
  const variance = p.x.n <= 1 ? 0 : varianceOfRatio(m, unitVariance(kinds[0], p.x), d, unitVariance(kinds[1], p.y), unitCovariance(kinds, p));
  return { n: p.x.n, mean, variance, unadjustedMean: mean };
}

/**
 * The variance of M / D for random M (mean m, variance vm) and D (mean d, variance vd) with covariance c, by the
 * delta method: vm/d² + vd m²/d⁴ − 2 c m/d³.
 */
export function varianceOfRatio(m: number, vm: number, d: number, vd: number, c: number): number {
  const d2 = d * d;
  return vm / d2 + (vd * m * m) / (d2 * d2) - (2 * c * m) / (d2 * d);
}

/** One variation's metric (x: post-exposure value) with its pre-exposure value (y), as CUPED takes it. */
export type CupedSide = PairSummary;

/** One side of a CUPED comparison: the adjusted statistic and the raw figures it came from. */
export interface CupedStatistic extends UnitStatistic {
  pre: number;
  postVariance: number;
  preVariance: number;
  covariance: number;
}

/** CUPED's result for one comparison: θ, and both sides adjusted by it. */
export interface CupedComparison {
  theta: number;
  control: CupedStatistic;
  treatment: CupedStatistic;
  /** The two variations' pooled pre mean, around which the reported adjusted means are centred. */
  pooledPre: number;
}

/**
 * gbstats' regression adjustment of one comparison: θ = cov(post, pre) / var(pre) over the units of the two
 * variations compared (0 when either does not vary there), each side's mean post − θ·pre and unit variance
 * var(post) + θ² var(pre) − 2θ cov(post, pre); `unadjustedMean` stays the raw post mean.
 */
export function cupedComparison(kind: UnitKind, control: CupedSide, treatment: CupedSide): CupedComparison {
  const joint = combinePairs(control, treatment);
  const preVariance = unitVariance(kind, joint.y);
  const postVariance = unitVariance(kind, joint.x);
  const theta = preVariance === 0 || postVariance === 0 ? 0 : unitCovariance([kind, kind], joint) / preVariance;
  const side = (s: CupedSide): CupedStatistic => {
    const vPost = unitVariance(kind, s.x);
    const vPre = unitVariance(kind, s.y);
    const cov = unitCovariance([kind, kind], s);
    const variance = s.x.n <= 1 ? 0 : vPost + theta * theta * vPre - 2 * theta * cov;
    return {
      n: s.x.n, mean: s.x.mean - theta * s.y.mean, variance, unadjustedMean: s.x.mean,
      pre: s.y.mean, postVariance: vPost, preVariance: vPre, covariance: cov,
    };
  };
  return { theta, control: side(control), treatment: side(treatment), pooledPre: joint.y.mean };
}

/**
 * The variance of the relative CUPED effect (adjB − adjA) / |uA| over the raw control mean uA, as gbstats computes
 * it (its frequentist_variance_relative_cuped): the treatment's adjusted variance over nB uA², plus the control's
 * delta-method term (vPost mB²/uA² − 2θ cov mB/uA + θ² vPre) / (nA uA²), with mB the treatment's raw mean.
 */
export function cupedRelativeVariance(c: CupedComparison): number {
  const { control: a, treatment: b, theta } = c;
  const u = a.unadjustedMean;
  if (u === 0) return 0;
  const vTreatment = b.variance / (b.n * u * u);
  const k = -b.unadjustedMean;
  const vControl = ((a.postVariance * k * k) / (u * u) + (2 * theta * a.covariance * k) / u + theta * theta * a.preVariance) / (a.n * u * u);
  return vTreatment + vControl;
}
