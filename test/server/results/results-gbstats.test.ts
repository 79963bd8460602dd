// Parity with GrowthBook's stats engine: the inputs and expected numbers of gbstats' own unit tests (its
// tests/frequentist/test_tests.py, tests/bayesian/test_tests.py, tests/test_gbstats.py and tests/test_utils.py, and
// the p-value corrections' cases of GrowthBook's shared package), fed to our engine. gbstats states its inputs as
// sums (n, Σx, Σx², Σxy); our engine takes them through fromSums/pairFromSums. gbstats rounds its expectations to 5
// or 9 decimals: each check allows half a unit of that last decimal, or 1e-6 where that is wider.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { benjaminiHochberg, holmBonferroni } from '../../../server/results/corrections.js';
import {
  bayesian, oneSidedFixed, oneSidedSequential, type Estimate,
} from '../../../server/results/inference.js';
import { compare, compareStatistics, moments, sampleRatioMismatch, type Comparison } from '../../../server/results/statistics.js';
import {
  cupedComparison, cupedRelativeVariance, fromSums, pairFromSums, plainStatistic, quadFromSums, ratioCupedComparison,
  ratioCupedRelativeVariance, ratioStatistic, type UnitStatistic,
} from '../../../server/results/unit-statistics.js';

function close(actual: number | null | undefined, expected: number, tolerance: number, what: string): void {
  assert.ok(typeof actual === 'number' && Number.isFinite(actual), `${what}: expected a finite number, got ${actual}`);
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not within ${tolerance} of ${expected}`);
}

/** gbstats' expectation rounded to 5 decimals. */
const D5 = 5e-6;
/** gbstats' expectation rounded to 9 decimals, or a p-value of a t distribution (within 1e-6). */
const D9 = 1e-6;

const mean = (n: number, sum: number, sumSquares: number): UnitStatistic => plainStatistic('mean', fromSums(n, sum, sumSquares));
const proportion = (n: number, sum: number): UnitStatistic => plainStatistic('proportion', fromSums(n, sum, sum));

/** An effect as gbstats' tests see it: relative or absolute, with Welch's degrees of freedom. */
function estimateOf(a: UnitStatistic, b: UnitStatistic, relative: boolean): Estimate {
  const va = a.variance / a.n;
  const vb = b.variance / b.n;
  const dof = (va + vb) ** 2 / ((va * va) / (a.n - 1) + (vb * vb) / (b.n - 1));
  return relative
    ? { point: (b.mean - a.mean) / Math.abs(a.mean), variance: vb / a.mean ** 2 + (b.mean ** 2 * va) / a.mean ** 4, dof, units: a.n + b.n }
    : { point: b.mean - a.mean, variance: va + vb, dof, units: a.n + b.n };
}

function expectInterval(ci: [number, number] | null, low: number, high: number, tolerance: number, what: string): void {
  assert.ok(ci !== null, `${what}: no interval`);
  if (Number.isFinite(low)) close(ci[0], low, tolerance, `${what} low`);
  else assert.equal(ci[0], low, `${what} low`);
  if (Number.isFinite(high)) close(ci[1], high, tolerance, `${what} high`);
  else assert.equal(ci[1], high, `${what} high`);
}

describe('gbstats TestTwoSidedTTest', () => {
  const a = mean(3407, 1396.87, 52377.9767);
  const b = mean(3461, 2422.7, 134698.29);

  it('relative: expected 0.70732, ci (-0.03526, 1.44989), se 0.37879, p 0.06191', () => {
    const r = compareStatistics(a, b);
    close(r.uplift, 0.70732, D5, 'uplift');
    expectInterval(r.ci, -0.03526, 1.44989, D5, 'ci');
    close(Math.sqrt(estimateOf(a, b, true).variance), 0.37879, D5, 'se');
    close(r.pValue, 0.06191, D5, 'pValue');
  });

  it('absolute: expected 0.29, ci (0.04538, 0.53462), se 0.12478, p 0.02016', () => {
    const r = compareStatistics(a, b);
    close(r.absolute.effect, 0.29, 1e-12, 'effect');
    expectInterval(r.absolute.ci, 0.04538, 0.53462, D5, 'ci');
    close(Math.sqrt(estimateOf(a, b, false).variance), 0.12478, D5, 'se');
    close(r.absolute.pValue, 0.02016, D5, 'pValue');
  });

  it('binomial 14/28 against 16/30: ci (-0.47767, 0.61101), se 0.2717, p 0.80707', () => {
    const r = compareStatistics(proportion(28, 14), proportion(30, 16));
    close(r.uplift, (16 / 30 - 0.5) / 0.5, 1e-12, 'uplift');
    expectInterval(r.ci, -0.47767, 0.61101, D5, 'ci');
    close(r.pValue, 0.80707, D5, 'pValue');
  });

  it('missing variance (2 units whose sums give a negative variance): no interval, no p-value', () => {
    const r = compareStatistics(mean(2, 1396.87, 52377.9767), b);
    assert.equal(r.ci, null);
    assert.equal(r.pValue, null);
  });
});

describe('gbstats TestSequentialTTest', () => {
  const a = mean(3000, 1396.87, 52377.9767);
  const b = mean(3461, 2422.7, 134698.29);

  it('tuning 1000: expected 0.50336, ci (-0.55844, 1.56516), p 1', () => {
    const r = compareStatistics(a, b, { sequential: true, sequentialTuning: 1000 });
    close(r.uplift, 0.50336, D5, 'uplift');
    expectInterval(r.ci, -0.55844, 1.56516, D5, 'ci');
    close(r.pValue, 1, 1e-12, 'pValue');
  });

  it('proportions 1396/3000 against 2422/3461, tuning 5000 (the default): ci (0.40098, 0.60675), p 0', () => {
    const r = compareStatistics(proportion(3000, 1396), proportion(3461, 2422), { sequential: true });
    close(r.uplift, 0.50386, D5, 'uplift');
    expectInterval(r.ci, 0.40098, 0.60675, D5, 'ci');
    close(r.pValue, 0, D5, 'pValue');
  });

  it('regression adjusted (Σxy 1 on both sides): expected 0.50338, ci (-0.50969, 1.51646), p 1', () => {
    const c = cupedComparison('mean', pairFromSums(3000, 1396.87, 52377.9767, 16.87, 527.9767, 1), pairFromSums(3461, 2422.7, 134698.29, 22.7, 1348.29, 1));
    const r = compareStatistics(c.control, c.treatment, { sequential: true }, cupedRelativeVariance(c));
    close(r.uplift, 0.50338, D5, 'uplift');
    expectInterval(r.ci, -0.50969, 1.51646, D5, 'ci');
    close(r.pValue, 1, 1e-12, 'pValue');
  });

  it('the interval is tightest with the tuning parameter near the units (10 < 10,000 < 6,461)', () => {
    const width = (tuning: number): [number, number] => compareStatistics(a, b, { sequential: true, sequentialTuning: tuning }).ci!;
    const below = width(10);
    const near = width(6461);
    const above = width(10000);
    assert.ok(below[0] < above[0] && below[1] > above[1], 'a far too small tuning is the widest');
    assert.ok(below[0] < near[0] && below[1] > near[1]);
    assert.ok(above[0] < near[0] && above[1] > near[1], 'near the units is the tightest');
  });

  it('analyze_metric_df, count metric, tuning 600: p 0.892332229, ci low -0.233322085; tuning 1 is wider', () => {
    const control = mean(100, 270, 848.79);
    const treatment = mean(120, 300, 869);
    const r = compareStatistics(control, treatment, { sequential: true, sequentialTuning: 600 });
    close(r.uplift, -0.074074074, 1e-9, 'uplift');
    close(r.pValue, 0.892332229, D9, 'pValue');
    close(r.ci?.[0], -0.233322085, D9, 'ci low');
    const bad = compareStatistics(control, treatment, { sequential: true, sequentialTuning: 1 });
    assert.ok(r.ci![0] > bad.ci![0]);
  });
});

describe('gbstats one-sided tests (relative and absolute; 3000 / 3461 units)', () => {
  const a = mean(3000, 1396.87, 52377.9767);
  const b = mean(3461, 2422.7, 134698.29);
  const rel = estimateOf(a, b, true);
  const abs = estimateOf(a, b, false);
  const cases = [
    { name: 'TestOneSidedGreaterTTest', got: () => oneSidedFixed(rel, 0.05, 'greater'), ci: [-0.045136675850396046, Infinity], p: 0.06558262868467746 },
    { name: 'TestOneSidedGreaterTTest absolute', got: () => oneSidedFixed(abs, 0.05, 'greater'), ci: [0.020791480063255735, Infinity], p: 0.03554272489873023 },
    { name: 'TestOneSidedLesserTTest', got: () => oneSidedFixed(rel, 0.05, 'lesser'), ci: [-Infinity, 1.0518588475628676], p: 0.9344173713153225 },
    { name: 'TestOneSidedLesserTTest absolute', got: () => oneSidedFixed(abs, 0.05, 'lesser'), ci: [-Infinity, 0.44796185327007765], p: 0.9644572751012698 },
    { name: 'TestSequentialOneSidedGreaterTTest', got: () => oneSidedSequential(rel, 0.05, 'greater'), ci: [-0.42356454602790883, Infinity], p: 0.4999 },
    // gbstats bisects for this p-value (to 1e-6 on the bound); ours is the closed form: within the distributions' 1e-3.
    { name: 'TestSequentialOneSidedGreaterTTest absolute', got: () => oneSidedSequential(abs, 0.05, 'greater'), ci: [-0.12656844172804982, Infinity], p: 0.46316491943359384, pTolerance: 1e-3 },
    { name: 'TestSequentialOneSidedLesserTTest', got: () => oneSidedSequential(rel, 0.05, 'lesser'), ci: [-Infinity, 1.4302867177403806], p: 0.4999 },
    { name: 'TestSequentialOneSidedLesserTTest absolute', got: () => oneSidedSequential(abs, 0.05, 'lesser'), ci: [-Infinity, 0.5953217750613832], p: 0.4999 },
  ];
  for (const { name, got, ci, p, pTolerance } of cases) {
    it(`${name}: bound ${ci.find(Number.isFinite)}, p ${p}`, () => {
      const r = got();
      expectInterval(r.ci, ci[0] as number, ci[1] as number, D9, 'ci');
      close(r.pValue, p, pTolerance ?? D9, 'pValue');
    });
  }
});

describe('gbstats Bayesian tests (flat prior)', () => {
  it('TestBinom 49/100 against 51/100: expected 0.04082, ci (-0.24779, 0.32943), chance 0.60918, risk 0.04058', () => {
    const r = compareStatistics(proportion(100, 49), proportion(100, 51));
    close(r.uplift, 0.04082, D5, 'uplift');
    expectInterval(r.credibleInterval, -0.24779, 0.32943, D5, 'credible interval');
    close(r.chanceToWin, 0.60918, D5, 'chanceToWin');
    close(r.risk, 0.04058, D5, 'risk (of the treatment)');
  });

  it('TestNorm: expected 0.05, ci (-0.02, 0.12), se 0.03572, chance 0.91923, risk 0.00131 (control 0.05131)', () => {
    const r = compareStatistics(mean(10, 100, 1002.25), mean(10, 105, 1111.5));
    close(r.uplift, 0.05, D5, 'uplift');
    expectInterval(r.credibleInterval, -0.02, 0.12, D5, 'credible interval');
    close(r.chanceToWin, 0.91923, D5, 'chanceToWin');
    close(r.risk, 0.00131, D5, 'risk');
    // gbstats' risk of the control is the risk of the treatment of an inverse metric.
    close(compareStatistics(mean(10, 100, 1002.25), mean(10, 105, 1111.5), { inverse: true }).risk, 0.05131, D5, 'control risk');
  });

  it('TestGetRiskNumericalStability: |mu/sigma| > 37 gives the limits, normal inputs the bit-exact values', () => {
    const risk = (mu: number, sigma: number, inverse: boolean): number => bayesian({ point: mu, variance: sigma * sigma, dof: 1e9, units: 2 }, 0.05, inverse).risk;
    assert.equal(risk(0.01, 4.5e-9, false), 0);
    close(risk(0.01, 4.5e-9, true), 0.01, 1e-15, 'control risk');
    close(risk(-0.01, 4.5e-9, false), 0.01, 1e-15, 'treatment risk');
    close(risk(0.1, 0.05, true), 0.1004245351308, 1e-10, 'control risk');
    close(risk(0.1, 0.05, false), 0.0004245351308414, 1e-10, 'treatment risk');
  });
});

describe('gbstats analyze_metric_df cases', () => {
  // MULTI_DIMENSION_STATISTICS_DF, dimension "one": control 100 units Σ 270 Σ² 848.79; treatment 120, 300, 869.
  const control = mean(100, 270, 848.79);
  const treatment = mean(120, 300, 869);

  it('frequentist count: means 2.7 / 2.5, expected -0.074074074, p 0.145219005', () => {
    close(control.mean, 2.7, 1e-12, 'control mean');
    close(treatment.mean, 2.5, 1e-12, 'treatment mean');
    const r = compareStatistics(control, treatment);
    close(r.uplift, -0.074074074, 1e-9, 'uplift');
    close(r.pValue, 0.145219005, D9, 'pValue');
  });

  it('Bayesian count: chance to win 0.071834168, risk 0.075691131', () => {
    const r = compareStatistics(control, treatment);
    close(r.chanceToWin, 0.071834168, D9, 'chanceToWin');
    close(r.risk, 0.075691131, D9, 'risk');
  });

  it('inverse: chance to win 1 - 0.071834168, risk 0.001617057, the same uplift', () => {
    const r = compareStatistics(control, treatment, { inverse: true });
    close(r.uplift, -0.074074074, 1e-9, 'uplift');
    close(r.chanceToWin, 1 - 0.071834168, D9, 'chanceToWin');
    close(r.risk, 0.001617057, D9, 'risk');
  });

  // RATIO_STATISTICS_DF: numerator Σ, Σ²; denominator Σ, Σ²; Σ numerator·denominator.
  const ratioA = ratioStatistic(['mean', 'mean'], pairFromSums(100, 270, 848.79, 510, 810, -900));
  const ratioB = ratioStatistic(['mean', 'mean'], pairFromSums(120, 300, 869, 500, 800, -905));

  it('ratio: means 0.529411765 / 0.6, expected 0.133333333, p 0.610663339', () => {
    close(ratioA.mean, 0.529411765, 1e-9, 'control ratio');
    close(ratioB.mean, 0.6, 1e-12, 'treatment ratio');
    const r = compareStatistics(ratioA, ratioB);
    close(r.uplift, 0.133333333, 1e-9, 'uplift');
    close(r.pValue, 0.610663339, D9, 'pValue');
  });

  it('Bayesian ratio: chance to win 0.694926359, risk 0.050934045', () => {
    const r = compareStatistics(ratioA, ratioB);
    close(r.chanceToWin, 0.694926359, D9, 'chanceToWin');
    close(r.risk, 0.050934045, D9, 'risk');
  });

  it('a ratio whose denominator sums to 0 has no ratio to compare (gbstats: the uninformative default)', () => {
    const zero = ratioStatistic(['mean', 'mean'], pairFromSums(100, 270, 848.79, 0, 0, 0));
    assert.equal(zero.mean, 0);
    assert.equal(compareStatistics(zero, ratioB).uplift, null);
  });

  // RA_STATISTICS_DF: post Σ, Σ²; pre (covariate) Σ, Σ²; Σ post·pre.
  const raControl = pairFromSums(3001, 300, 600, 210, 415, -20);
  const raTreatment = pairFromSums(3000, 222, 555, 120, 405, -10);

  it('CUPED (count): raw means 0.099966678 / 0.074, expected -0.281707154, p 0.003732549', () => {
    const c = cupedComparison('mean', raControl, raTreatment);
    close(c.control.unadjustedMean, 0.099966678, 1e-9, 'control mean');
    close(c.treatment.unadjustedMean, 0.074, 1e-12, 'treatment mean');
    const r = compareStatistics(c.control, c.treatment, {}, cupedRelativeVariance(c));
    close(r.uplift, -0.281707154, 1e-9, 'uplift');
    close(r.pValue, 0.003732549, D9, 'pValue');
    // Not the difference of adjusted means over the adjusted control mean, as it used to be.
    assert.notEqual(Math.round(r.uplift! * 1000) / 1000, Math.round(((0.074 - 0.110963012) / 0.110963012) * 1000) / 1000);
  });

  it('CUPED (binomial): expected -0.31620216, p 0.000000353', () => {
    const c = cupedComparison('proportion', pairFromSums(3001, 300, 300, 210, 210, -20), pairFromSums(3000, 222, 222, 120, 120, -10));
    const r = compareStatistics(c.control, c.treatment, {}, cupedRelativeVariance(c));
    close(r.uplift, -0.31620216, 1e-8, 'uplift');
    close(r.pValue, 0.000000353, 5e-10, 'pValue');
  });

  describe('TestThreeArmedCuped: θ per comparison', () => {
    const zero = pairFromSums(3001, 300, 600, 210, 415, -20);
    const one = pairFromSums(3000, 222, 555, 120, 405, -10);
    const two = pairFromSums(4000, 450, 900, 300, 600, -30);
    const c01 = cupedComparison('mean', zero, one);
    const c02 = cupedComparison('mean', zero, two);

    it('adjusted stddevs 0.423529598 (one) and 0.458953951 (two), control 0.434288923 (its θ against two)', () => {
      close(Math.sqrt(c01.treatment.variance), 0.423529598, 1e-9, 'one');
      close(Math.sqrt(c02.treatment.variance), 0.458953951, 1e-9, 'two');
      close(Math.sqrt(c02.control.variance), 0.434288923, 1e-9, 'control');
    });

    it('the raw means stay 0.099966678, 0.074 and 0.1125', () => {
      close(c01.control.unadjustedMean, 0.099966678, 1e-9, 'control');
      close(c01.treatment.unadjustedMean, 0.074, 1e-12, 'one');
      close(c02.treatment.unadjustedMean, 0.1125, 1e-12, 'two');
    });

    it('each comparison has its own θ, and the control against two is the same as in a two-armed test', () => {
      assert.notEqual(c01.theta, c02.theta);
      const twoArmed = cupedComparison('mean', zero, two);
      assert.equal(twoArmed.theta, c02.theta);
      assert.equal(twoArmed.control.variance, c02.control.variance);
    });
  });
});

describe('gbstats RegressionAdjustedRatioStatistic (a ratio metric with CUPED)', () => {
  // Values in order: numerator post, denominator post, numerator pre, denominator pre; products keyed by the pair.
  const control = quadFromSums(100, [485.112236689623, 679.9093275844917, 192.59138069991536, 290.1398399750233],
    [2715.484666118136, 4939.424001640236, 460.076026390857, 920.9461385038898],
    { '01': 3602.146836776702, '02': 1113.6215759318352, '03': 1559.2878434944676, '12': 1460.3181079276983, '13': 2130.9404074446747, '23': 634.239482353647 });
  const treatment = quadFromSums(100, [514.7757826608777, 705.4090874383759, 206.94157227402536, 302.54389139107326],
    [2994.897482705013, 5291.36604146392, 514.2903702246757, 994.4506208125663],
    { '01': 3918.1561431600717, '02': 1237.0953021125997, '03': 1701.0287270040265, '12': 1604.0759503266522, '13': 2292.081739775257, '23': 698.4173425817908 });
  const c = ratioCupedComparison(['mean', 'mean'], control, treatment);
  const variance = ratioCupedRelativeVariance(c);

  it('test_analyze_metric_df_ratio_ra: raw ratios 0.713495487 / 0.729754963, expected -0.000701483, p 0.857710405', () => {
    close(c.control.unadjustedMean, 0.713495487, 1e-9, 'control ratio');
    close(c.treatment.unadjustedMean, 0.729754963, 1e-9, 'treatment ratio');
    const r = compareStatistics(c.control, c.treatment, {}, variance);
    close(r.uplift, -0.000701483, 1e-9, 'uplift');
    close(r.pValue, 0.857710405, D9, 'pValue');
  });

  it('test_two_sided_ttest_test_runs_ratio_ra: ci (-0.00841, 0.00700), se 0.00391, p 0.85771', () => {
    const r = compareStatistics(c.control, c.treatment, {}, variance);
    expectInterval(r.ci, -0.00841, 0.007, D5, 'ci');
    close(Math.sqrt(variance), 0.00391, D5, 'se');
    close(r.pValue, 0.85771, D5, 'pValue');
  });

  it('test_sequential_test_runs_ratio_ra: ci (-0.02063, 0.01923), p 1', () => {
    const r = compareStatistics(c.control, c.treatment, { sequential: true }, variance);
    expectInterval(r.ci, -0.02063, 0.01923, D5, 'ci');
    close(r.pValue, 1, 1e-12, 'pValue');
  });
});

describe('gbstats test_utils frequentist_diff: relative effects divide by |control mean|', () => {
  const relative = (a: number, b: number, unadjusted = a): number | null =>
    compareStatistics({ n: 10, mean: a, variance: 1, unadjustedMean: unadjusted }, { n: 10, mean: b, variance: 1, unadjustedMean: b }).uplift;
  it('positive baseline: 10 → 15 is +0.5, 10 → 5 is -0.5', () => {
    close(relative(10, 15), 0.5, 1e-12, 'up');
    close(relative(10, 5), -0.5, 1e-12, 'down');
  });
  it('negative baseline keeps the direction: -10 → -5 is +0.5, -10 → -15 is -0.5, -2 → 3 is +2.5', () => {
    close(relative(-10, -5), 0.5, 1e-12, 'up');
    close(relative(-10, -15), -0.5, 1e-12, 'down');
    close(relative(-2, 3), 2.5, 1e-12, 'crossing zero');
  });
  it('CUPED-adjusted means over the unadjusted negative baseline: -9 → -4 over |-10| is +0.5', () => {
    close(relative(-9, -4, -10), 0.5, 1e-12, 'adjusted');
  });
  it('absolute differences are plain: -10 → -5 is +5', () => {
    const r = compareStatistics({ n: 10, mean: -10, variance: 1, unadjustedMean: -10 }, { n: 10, mean: -5, variance: 1, unadjustedMean: -5 });
    assert.equal(r.absolute.effect, 5);
  });
});

describe('a refunds-like metric with a negative control mean (per unit −10 against −5)', () => {
  const r: Comparison = compare(moments('sum', [-11, -9, -11, -9, -10, -10]), moments('sum', [-6, -4, -6, -4, -5, -5]));
  it('reports uplift +0.5 and a chance to win near 1: the treatment is better', () => {
    close(r.uplift, 0.5, 1e-12, 'uplift');
    assert.ok(r.chanceToWin !== null && r.chanceToWin > 0.99, `chanceToWin ${r.chanceToWin}`);
    assert.ok(r.ci !== null && r.ci[0] > 0, 'the interval lies above 0');
  });
  it('the absolute effect is +5 with the same sign', () => close(r.absolute.effect, 5, 1e-12, 'effect'));
});

describe('GrowthBook p-value corrections', () => {
  it('Holm–Bonferroni: [0.01, 0.04, 0.03, 0.005, 0.55, 0.6] → [0.05, 0.12, 0.12, 0.03, 1, 1]', () => {
    const adjusted = holmBonferroni([0.01, 0.04, 0.03, 0.005, 0.55, 0.6]);
    [0.05, 0.12, 0.12, 0.03, 1, 1].forEach((want, i) => close(adjusted[i], want, 1e-12, `p${i}`));
  });
  it('Benjamini–Hochberg: [0.898, 0.138, 0.007, 0.964, 0.538, 0.006, 0.138] → [0.964, 0.2415, 0.0245, 0.964, 0.7532, 0.0245, 0.2415]', () => {
    const adjusted = benjaminiHochberg([0.898, 0.138, 0.007, 0.964, 0.538, 0.006, 0.138]);
    [0.964, 0.2415, 0.0245, 0.964, 0.7532, 0.0245, 0.2415].forEach((want, i) => close(adjusted[i], want, 1e-8, `p${i}`));
  });
  it('two metrics at 0.025 and 0.03: Holm 0.05 and 0.05, Benjamini–Hochberg 0.03 and 0.03', () => {
    assert.deepEqual(holmBonferroni([0.025, 0.03]), [0.05, 0.05]);
    assert.deepEqual(benjaminiHochberg([0.025, 0.03]).map((p) => Math.round(p * 1e12) / 1e12), [0.03, 0.03]);
  });
});

describe('SRM leaves out variations of weight 0 (GrowthBook)', () => {
  it('a variation ramped down to weight 0 with the units it had raises no alarm', () => {
    assert.deepEqual(sampleRatioMismatch([5000, 5030, 4970], [50, 50, 0]), sampleRatioMismatch([5000, 5030], [50, 50]));
    assert.equal(sampleRatioMismatch([5000, 5030, 4970], [50, 50, 0]).mismatch, false);
  });
});
