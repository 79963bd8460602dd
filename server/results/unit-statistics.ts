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

/**
 * Four values per unit summarized: a ratio's numerator and denominator after exposure and before it (in that
 * order), with their means and the 4 × 4 matrix of crossed deviations Σ(xᵢ − x̄ᵢ)(xⱼ − x̄ⱼ).
 */
export interface QuadSummary {
  n: number;
  means: [number, number, number, number];
  c: number[][];
}

/** Summarizes unit j's four values (mPost[j], dPost[j], mPre[j], dPre[j]). */
export function summarizeQuad(values: readonly [ArrayLike<number>, ArrayLike<number>, ArrayLike<number>, ArrayLike<number>]): QuadSummary {
  const n = values[0].length;
  if (values.some((v) => v.length !== n)) throw new RangeError('summarizeQuad: the four values must be given for every unit');
  const summaries = values.map((v) => summarize(v));
  const means = summaries.map((s) => s.mean) as QuadSummary['means'];
  const c = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => {
    if (i === j) return (summaries[i] as Summary).m2;
    let cross = 0;
    const x = values[i] as ArrayLike<number>;
    const y = values[j] as ArrayLike<number>;
    for (let u = 0; u < n; u++) cross += ((x[u] as number) - (means[i] as number)) * ((y[u] as number) - (means[j] as number));
    return cross;
  }));
  return { n, means, c };
}

/**
 * A four-value summary from sums, as gbstats' RegressionAdjustedRatioStatistic states them: Σ and Σ² of each value
 * (numerator post, denominator post, numerator pre, denominator pre) and the Σ of products of each pair, keyed `ij`.
 */
export function quadFromSums(n: number, sums: readonly number[], sumSquares: readonly number[], products: Readonly<Record<string, number>>): QuadSummary {
  const means = sums.map((s) => (n === 0 ? 0 : s / n)) as QuadSummary['means'];
  const c = [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => {
    const sumOfProducts = i === j ? (sumSquares[i] as number) : (products[`${Math.min(i, j)}${Math.max(i, j)}`] as number);
    return n === 0 ? 0 : sumOfProducts - ((sums[i] as number) * (sums[j] as number)) / n;
  }));
  return { n, means, c };
}

/** The 4 × 4 covariance matrix Λ of a quad: variances and covariances by each value's kind. */
function lambdaOf(kinds: readonly [UnitKind, UnitKind], q: QuadSummary): number[][] {
  const kindOf = (i: number): UnitKind => (kinds[i % 2] as UnitKind);
  return [0, 1, 2, 3].map((i) => [0, 1, 2, 3].map((j) => {
    if (i === j) return unitVariance(kindOf(i), { n: q.n, mean: q.means[i] as number, m2: (q.c[i] as number[])[i] as number });
    if (q.n <= 1) return 0;
    const cross = (q.c[i] as number[])[j] as number;
    return kindOf(i) === 'proportion' && kindOf(j) === 'proportion' ? cross / q.n : cross / (q.n - 1);
  }));
}

/** The gradient of (mPost/dPost − θ mPre/dPre) at the means (gbstats' nabla); zeros when a denominator mean is 0. */
function ratioNabla(means: QuadSummary['means'], theta: number): number[] {
  const [m, d, mPre, dPre] = means;
  if (d === 0 || dPre === 0) return [0, 0, 0, 0];
  return [1 / d, -m / (d * d), -theta / dPre, (theta * mPre) / (dPre * dPre)];
}

/** x' Λ[rows × cols] y over the index ranges given. */
function quadraticForm(lambda: number[][], x: number[], y: number[], rows: readonly number[], cols: readonly number[]): number {
  let total = 0;
  rows.forEach((i, a) => cols.forEach((j, b) => { total += (x[a] as number) * ((lambda[i] as number[])[j] as number) * (y[b] as number); }));
  return total;
}

/** One side of a ratio CUPED comparison. */
export interface RatioCupedStatistic extends UnitStatistic {
  means: QuadSummary['means'];
  nabla: number[];
  lambda: number[][];
}

/** CUPED on a ratio metric for one comparison: θ, both sides adjusted by it, and the pre-period ratios. */
export interface RatioCupedComparison {
  theta: number;
  control: RatioCupedStatistic;
  treatment: RatioCupedStatistic;
}

/**
 * gbstats' regression adjustment of a ratio metric (RegressionAdjustedRatioStatistic): each side's adjusted ratio
 * mPost/dPost − θ mPre/dPre with the delta-method variance ∇'Λ∇, and θ = −(covA + covB) / (varPreA + varPreB), the
 * pre-period ratio's covariance with the post-period one and its variance, from each side's own Λ (θ = 1 in ∇).
 */
export function ratioCupedComparison(kinds: readonly [UnitKind, UnitKind], control: QuadSummary, treatment: QuadSummary): RatioCupedComparison {
  const lambdas = [lambdaOf(kinds, control), lambdaOf(kinds, treatment)];
  const parts = [control, treatment].map((q, k) => {
    const nabla = ratioNabla(q.means, 1);
    const lambda = lambdas[k] as number[][];
    return {
      covariance: quadraticForm(lambda, nabla.slice(2), nabla.slice(0, 2), [2, 3], [0, 1]),
      preVariance: quadraticForm(lambda, nabla.slice(2), nabla.slice(2), [2, 3], [2, 3]),
    };
  });
  const preVariance = (parts[0]?.preVariance ?? 0) + (parts[1]?.preVariance ?? 0);
  const theta = preVariance === 0 ? 0 : -((parts[0]?.covariance ?? 0) + (parts[1]?.covariance ?? 0)) / preVariance;
  const side = (q: QuadSummary, lambda: number[][]): RatioCupedStatistic => {
    const [m, d, mPre, dPre] = q.means;
    const nabla = ratioNabla(q.means, theta);
    const unadjustedMean = d === 0 ? 0 : m / d;
    return {
      n: q.n, unadjustedMean, means: q.means, nabla, lambda,
      mean: d === 0 || dPre === 0 ? 0 : unadjustedMean - (theta * mPre) / dPre,
      variance: quadraticForm(lambda, nabla, nabla, [0, 1, 2, 3], [0, 1, 2, 3]),
    };
  };
  return { theta, control: side(control, lambdas[0] as number[][]), treatment: side(treatment, lambdas[1] as number[][]) };
}

/**
 * The variance of the relative ratio CUPED effect (adjB − adjA) / |uA| (gbstats'
 * frequentist_variance_relative_cuped_ratio): the control's gradient carries the sign of its raw ratio uA, so a
 * negative baseline keeps the variance right.
 */
export function ratioCupedRelativeVariance(c: RatioCupedComparison): number {
  const { control: a, treatment: b } = c;
  const u = a.unadjustedMean;
  const dPost = a.means[1];
  if (u === 0 || dPost === 0) return 0;
  const gAbs = (b.mean - a.mean) * Math.sign(u);
  const g = Math.abs(u);
  const mPost = a.means[0];
  const nablaA = [
    -(g + gAbs) / dPost / (g * g),
    ((mPost * g) / (dPost * dPost) + (mPost * gAbs) / (dPost * dPost)) / (g * g),
    -(a.nabla[2] as number) / g,
    -(a.nabla[3] as number) / g,
  ];
  const nablaB = b.nabla.map((x) => x / g);
  const all = [0, 1, 2, 3];
  return quadraticForm(a.lambda, nablaA, nablaA, all, all) / a.n + quadraticForm(b.lambda, nablaB, nablaB, all, all) / b.n;
}
