// The statistics engine of experiment results against published numbers: gbstats' own test cases, Student t and
// chi-square table values, and formulas evaluated by hand here (never through the engine's helpers).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  compare, compareStatistics, moments, sampleRatioMismatch, type Comparison, type Moments,
} from '../../../server/results/statistics.js';
import { cupedComparison, cupedRelativeVariance, summarizePairs } from '../../../server/results/unit-statistics.js';

function close(actual: number | null | undefined, expected: number, tolerance: number, what = 'value'): void {
  assert.ok(typeof actual === 'number' && Number.isFinite(actual), `${what}: expected a finite number, got ${actual}`);
  assert.ok(Math.abs(actual - expected) <= tolerance, `${what}: ${actual} is not within ${tolerance} of ${expected}`);
}

/** Moments as given (a published case states n, mean and stddev, not the values). */
function given(units: number, mean: number, stddev: number): Moments {
  return { units, total: units * mean, mean, stddev };
}

/** Deterministic uniform numbers in [0, 1): mulberry32. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Standard normal draws by Box–Muller. */
function gaussian(random: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i] as number;
  return s / values.length;
}

const NO_COMPARISON: Comparison = {
  uplift: null, ci: null, pValue: null, chanceToWin: null, risk: null, credibleInterval: null,
  absolute: { effect: null, ci: null, pValue: null },
};

describe('moments', () => {
  it('count: mean and sample stddev (n - 1) equal direct arithmetic', () => {
    const m = moments('count', [2, 4, 4, 4, 5, 5, 7, 9]);
    assert.equal(m.units, 8);
    assert.equal(m.total, 40);
    close(m.mean, 5, 1e-9, 'mean');
    close(m.stddev, Math.sqrt(32 / 7), 1e-9, 'stddev');
  });

  it('sum: keeps the variance of values with a large mean and a small spread (no one-pass cancellation)', () => {
    // Deviations -6, -3, 3, 6 around 1e9 + 10: sample variance (36 + 9 + 9 + 36) / 3 = 30.
    const m = moments('sum', new Float64Array([1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16]));
    close(m.mean, 1e9 + 10, 1e-9, 'mean');
    close(m.stddev, Math.sqrt(30), 1e-9, 'stddev');
  });

  it('binomial: conversion rate and Bernoulli stddev sqrt(m(1 - m))', () => {
    const values = new Float64Array(1003);
    values.fill(1, 0, 100);
    const m = moments('binomial', values);
    assert.deepEqual([m.units, m.total], [1003, 100]);
    close(m.mean, 100 / 1003, 1e-12, 'mean');
    close(m.stddev, Math.sqrt((100 / 1003) * (903 / 1003)), 1e-12, 'stddev');
  });

  it('binomial: one unit has stddev 0, not null', () => {
    assert.deepEqual(moments('binomial', [1]), { units: 1, total: 1, mean: 1, stddev: 0 });
  });

  it('count and sum: one unit has no stddev', () => {
    assert.deepEqual(moments('count', [3]), { units: 1, total: 3, mean: 3, stddev: null });
    assert.deepEqual(moments('sum', [2.5]), { units: 1, total: 2.5, mean: 2.5, stddev: null });
  });

  for (const type of ['binomial', 'count', 'sum'] as const) {
    it(`${type}: no units gives total 0 and null mean and stddev`, () => {
      assert.deepEqual(moments(type, []), { units: 0, total: 0, mean: null, stddev: null });
    });
  }
});

describe('compare: published cases', () => {
  it("reproduces gbstats' two-sided t-test case (n 3407/3461, means 0.41/0.70, stddevs 3.9/6.2)", () => {
    const r = compare(given(3407, 0.41, 3.9), given(3461, 0.7, 6.2));
    close(r.uplift, 0.70732, 5e-6, 'uplift');
    close(r.ci?.[0], -0.03526, 5e-6, 'ci low');
    close(r.ci?.[1], 1.44989, 5e-6, 'ci high');
    close(r.pValue, 0.06191, 5e-6, 'pValue');
  });

  it('binomial: control 100/1003 against bold 130/997', () => {
    const control = new Float64Array(1003).fill(1, 0, 100);
    const bold = new Float64Array(997).fill(1, 0, 130);
    const a = moments('binomial', control);
    const b = moments('binomial', bold);
    close(a.mean, 0.0997008, 1e-7, 'control mean');
    close(b.mean, 0.1303911, 1e-7, 'bold mean');
    const r = compare(a, b);
    close(r.uplift, 0.3078, 5e-5, 'uplift');
    close(r.ci?.[0], -0.0135, 5e-5, 'ci low');
    close(r.ci?.[1], 0.6291, 5e-5, 'ci high');
    close(r.pValue, 0.0604, 5e-5, 'pValue');
    close(r.chanceToWin, 0.9699, 5e-5, 'chanceToWin');
    close(r.risk, 0.0019, 5e-5, 'risk');
  });
});

describe('compare: the formulas by hand', () => {
  // Equal n and stddev on both sides give Welch df = 2(n - 1): the interval's half width over sqrt(v) is then the
  // t quantile of a published table.
  const quantiles = [
    { n: 2, df: 2, t: 4.302653 },
    { n: 6, df: 10, t: 2.228139 },
    { n: 16, df: 30, t: 2.042272 },
    { n: 1e8, df: Infinity, t: 1.959964 },
  ];
  for (const { n, df, t } of quantiles) {
    it(`the interval uses t(0.975, ${df}) = ${t}`, () => {
      const r = compare(given(n, 1, 1), given(n, 1.5, 1));
      const v = 1 / n + (1.5 * 1.5) / n; // sB²/(nB mA²) + mB² sA²/(nA mA⁴) with mA = sA = sB = 1
      assert.ok(r.ci);
      close(r.uplift, 0.5, 1e-12, 'uplift');
      close((r.ci[1] - r.ci[0]) / 2 / Math.sqrt(v), t, 1e-6, 't quantile');
    });
  }

  it('Welch–Satterthwaite degrees of freedom with unequal n and variances', () => {
    // sA²/nA = 4/5 = 0.8, sB²/nB = 9/10 = 0.9: df = 1.7² / (0.64/4 + 0.81/9) = 2.89 / 0.25 = 11.56.
    const r = compare(given(5, 10, 2), given(10, 12, 3));
    assert.ok(r.ci);
    const v = 9 / (10 * 100) + (144 * 4) / (5 * 1e4);
    const t = (r.ci[1] - r.ci[0]) / 2 / Math.sqrt(v);
    // t(0.975, 11.56) lies between the table's t(0.975, 11) = 2.200985 and t(0.975, 12) = 2.178813.
    assert.ok(t < 2.200985 && t > 2.178813, `t quantile ${t}`);
  });

  it('pValue is 2(1 - T_df(|t|)): at df = 10 and t = 2.228139 it is 0.05', () => {
    // n = 6 on both sides (df = 10), stddev 1, control mean 1: choose the treatment mean so that uplift/sqrt(v) = t.
    const t = 2.228139;
    // uplift = d, v = (1 + (1 + d)²)/6; solve d = t sqrt((1 + (1 + d)²)/6) by fixed-point iteration.
    let d = 1;
    for (let i = 0; i < 200; i++) d = t * Math.sqrt((1 + (1 + d) ** 2) / 6);
    const r = compare(given(6, 1, 1), given(6, 1 + d, 1));
    close(r.pValue, 0.05, 1e-6, 'pValue');
  });

  it('chanceToWin is Φ(uplift/σ) and risk is σφ(μ/σ) - μΦ(-μ/σ): at μ = 0 they are 1/2 and σ/sqrt(2π)', () => {
    const r = compare(given(100, 1, 1), given(100, 1, 1));
    const sigma = Math.sqrt(1 / 100 + 1 / 100);
    assert.equal(r.uplift, 0);
    close(r.chanceToWin, 0.5, 1e-9, 'chanceToWin');
    close(r.risk, sigma / Math.sqrt(2 * Math.PI), 1e-9, 'risk');
    close(r.pValue, 1, 1e-9, 'pValue');
  });

  it('risk at μ = σ: σ(φ(1) - Φ(-1)) = 0.083315 σ', () => {
    // φ(1) = 0.2419707, Φ(-1) = 0.1586553 from the normal table. Equal n and stddev 1, control mean 1:
    // σ² = (1 + (1 + d)²)/n and d = σ; n = 1e4 and fixed-point iteration as above.
    let d = 0.01;
    for (let i = 0; i < 200; i++) d = Math.sqrt((1 + (1 + d) ** 2) / 1e4);
    const r = compare(given(1e4, 1, 1), given(1e4, 1 + d, 1));
    close(r.risk, d * (0.2419707 - 0.1586553), 1e-8, 'risk');
    close(r.chanceToWin, 0.8413447, 1e-7, 'chanceToWin');
  });

  it('a negative uplift has chance to win below 1/2 and risk above |uplift|', () => {
    const r = compare(given(1000, 1, 1), given(1000, 0.9, 1));
    assert.ok(r.uplift !== null && r.uplift < 0 && r.chanceToWin !== null && r.risk !== null);
    assert.ok(r.chanceToWin < 0.5);
    assert.ok(r.risk > -r.uplift);
  });

  it('stays accurate for 100,000-unit variations near no effect (the t tail at df ≈ 200,000)', () => {
    // At this df the t and normal tails differ by under 1e-6, so 2(1 - Φ(z)) is the reference; Φ(0.01) = 0.5039894.
    const n = 100_000;
    const sigma = Math.sqrt(2 / n); // v with mA = 1, sA = sB = 1 and mB ≈ 1
    const r = compare(given(n, 1, 1), given(n, 1 + 0.01 * sigma, 1));
    close(r.pValue, 2 * (1 - 0.5039894), 1e-5, 'pValue');
  });

  it('stays accurate for a billion units per variation (df ≈ 2e9, where the t is the normal)', () => {
    const n = 1e9;
    const sigma = Math.sqrt(2 / n);
    const r = compare(given(n, 1, 1), given(n, 1 + 0.01 * sigma, 1));
    close(r.pValue, 2 * (1 - 0.5039894), 1e-6, 'pValue');
    assert.ok(r.ci);
    close((r.ci[1] - r.ci[0]) / 2 / sigma, 1.959964, 1e-5, 't quantile');
  });
});

/**
 * The two-sided t interval and p-value of an effect with variance v and df degrees of freedom, from the table values
 * this file uses: t(0.975, 2) = 4.302653; at t = effect/sqrt(v) the p-value by the closed form for df = 2,
 * 1 − t/sqrt(2 + t²).
 */
function absoluteTest(effect: number, v: number, df: 2): { ci: [number, number]; pValue: number } {
  const half = 4.302653 * Math.sqrt(v);
  const t = effect / Math.sqrt(v);
  return { ci: [effect - half, effect + half], pValue: df === 2 ? 1 - t / Math.sqrt(2 + t * t) : NaN };
}

describe('compare: undefined statistics are null', () => {
  const cases: { name: string; control: Moments; treatment: Moments; expected: Comparison }[] = [
    { name: 'control without units', control: moments('count', []), treatment: given(10, 1, 1), expected: NO_COMPARISON },
    { name: 'treatment without units', control: given(10, 1, 1), treatment: moments('count', []), expected: NO_COMPARISON },
    { name: 'control stddev null (one unit)', control: moments('count', [3]), treatment: given(10, 1, 1), expected: NO_COMPARISON },
    { name: 'treatment stddev null (one unit)', control: given(10, 1, 1), treatment: moments('sum', [3]), expected: NO_COMPARISON },
    {
      // The absolute difference needs no control mean: control 0 of 3 (no variance), treatment 2 of 3.
      name: 'control mean 0: no relative figures, the absolute difference still',
      control: moments('binomial', [0, 0, 0]),
      treatment: moments('binomial', [0, 1, 1]),
      expected: { ...NO_COMPARISON, absolute: { effect: 2 / 3, ...absoluteTest(2 / 3, (2 / 9) / 3, 2) } },
    },
    {
      // Everyone converted on both sides: uplift 0 with a zero-width interval; the t statistic is 0/0.
      name: 'no variance on either side, same means: a zero-width interval, the rest undefined',
      control: moments('binomial', [1, 1]),
      treatment: moments('binomial', [1, 1, 1]),
      expected: {
        uplift: 0, ci: [0, 0], pValue: null, chanceToWin: null, risk: null, credibleInterval: [0, 0],
        absolute: { effect: 0, ci: [0, 0], pValue: null },
      },
    },
    {
      name: 'no variance on either side, a better treatment: the limits (certain win, no risk)',
      control: moments('count', [2, 2, 2]),
      treatment: moments('count', [3, 3]),
      expected: {
        uplift: 0.5, ci: [0.5, 0.5], pValue: 0, chanceToWin: 1, risk: 0, credibleInterval: [0.5, 0.5],
        absolute: { effect: 1, ci: [1, 1], pValue: 0 },
      },
    },
    {
      name: 'no variance on either side, a worse treatment: the limits (certain loss, risk the whole drop)',
      control: moments('binomial', [1, 1, 1]),
      treatment: moments('binomial', [0, 0]),
      expected: {
        uplift: -1, ci: [-1, -1], pValue: 0, chanceToWin: 0, risk: 1, credibleInterval: [-1, -1],
        absolute: { effect: -1, ci: [-1, -1], pValue: 0 },
      },
    },
  ];
  for (const { name, control, treatment, expected } of cases) {
    it(name, () => {
      const actual = compare(control, treatment);
      // Table values carry 7 digits: the absolute test is compared to them, the rest exactly.
      const { absolute, ...rest } = actual;
      const { absolute: want, ...wantRest } = expected;
      assert.deepEqual(rest, wantRest);
      assert.equal(absolute.effect, want.effect);
      if (want.ci === null) assert.equal(absolute.ci, null);
      else {
        close(absolute.ci?.[0], want.ci[0], 1e-6, 'absolute ci low');
        close(absolute.ci?.[1], want.ci[1], 1e-6, 'absolute ci high');
      }
      if (want.pValue === null) assert.equal(absolute.pValue, null);
      else close(absolute.pValue, want.pValue, 1e-9, 'absolute pValue');
    });
  }

  it('a treatment nobody converted in yet, beside a control that varies, is not a certain loss: no relative test', () => {
    const control = new Float64Array(1000);
    control[0] = 1;
    const r = compare(moments('binomial', control), moments('binomial', new Float64Array(1000)));
    assert.equal(r.uplift, -1);
    assert.deepEqual([r.ci, r.pValue, r.chanceToWin, r.risk, r.credibleInterval], [null, null, null, null, null]);
    // The absolute difference has a variance (the control's) and its test: p well above any alpha.
    assert.ok(r.absolute.pValue !== null && r.absolute.pValue > 0.3, `absolute p ${r.absolute.pValue}`);
  });

  it('one unit against one unit is certain of nothing', () => {
    const r = compare(moments('binomial', [1]), moments('binomial', [0]));
    assert.equal(r.uplift, -1);
    assert.deepEqual([r.ci, r.pValue, r.chanceToWin, r.risk], [null, null, null, null]);
    assert.deepEqual(r.absolute, { effect: -1, ci: null, pValue: null });
  });

  it('a one-unit binomial control (stddev 0, n - 1 = 0) still has finite degrees of freedom from the treatment', () => {
    const r = compare(moments('binomial', [1]), moments('binomial', [1, 0, 1, 1]));
    // Only the treatment's variance counts: df = nB - 1 = 3, t(0.975, 3) = 3.182446.
    const v = 0.75 * 0.25 / 4;
    assert.ok(r.ci && r.pValue !== null);
    close((r.ci[1] - r.ci[0]) / 2 / Math.sqrt(v), 3.182446, 1e-6, 't quantile');
  });

  it('a side with variance but one unit (hand-made moments) gives no interval or p-value, never NaN', () => {
    const r = compare(given(1, 1, 1), given(1, 2, 1));
    assert.equal(r.ci, null);
    assert.equal(r.pValue, null);
    assert.ok(r.chanceToWin !== null && Number.isFinite(r.chanceToWin));
  });

  it('every field is JSON-safe for tiny control means', () => {
    const r = compare(given(10, 1e-200, 1), given(10, 1, 1));
    const json = JSON.parse(JSON.stringify(r)) as Comparison;
    assert.deepEqual(json, r);
    for (const value of [r.uplift, r.pValue, r.chanceToWin, r.risk, ...(r.ci ?? [])]) {
      assert.ok(value === null || Number.isFinite(value), `${value} is not finite`);
    }
  });
});

describe('sampleRatioMismatch', () => {
  it('two variations at 50/50: [1000, 1100] gives chi² 4.7619, p 0.029096, no mismatch', () => {
    // chi² = 2 · 50² / 1050 = 4.76190…; with 1 df, p = erfc(sqrt(chi²/2)) = 0.0290963.
    const r = sampleRatioMismatch([1000, 1100], [50, 50]);
    close(r.pValue, 0.0290963, 1e-6, 'pValue');
    assert.equal(r.mismatch, false);
  });

  it('[1000, 1200] at 50/50 is a mismatch (chi² 18.18, p 2.0e-5)', () => {
    const r = sampleRatioMismatch([1000, 1200], [50, 50]);
    close(r.pValue, 2.0079e-5, 1e-8, 'pValue');
    assert.equal(r.mismatch, true);
  });

  it('three variations: with 2 df the p-value is exp(-chi²/2)', () => {
    const units = [1000, 1030, 2100];
    const expected = [1032.5, 1032.5, 2065]; // 4130 units at weights 25/25/50
    const chi2 = units.reduce((s, o, i) => s + (o - expected[i]!) ** 2 / expected[i]!, 0);
    close(sampleRatioMismatch(units, [25, 25, 50]).pValue, Math.exp(-chi2 / 2), 1e-9, 'pValue');
  });

  it('weights on any positive scale give the same answer as shares of 100', () => {
    assert.deepEqual(sampleRatioMismatch([980, 1020, 2010], [1, 1, 2]), sampleRatioMismatch([980, 1020, 2010], [25, 25, 50]));
  });

  it('a perfect split has p 1', () => {
    assert.deepEqual(sampleRatioMismatch([250, 250, 500], [25, 25, 50]), { pValue: 1, mismatch: false });
  });

  it('a variation of weight 0 without units is left out of the test', () => {
    assert.deepEqual(sampleRatioMismatch([1000, 1100, 0], [50, 50, 0]), sampleRatioMismatch([1000, 1100], [50, 50]));
  });

  it('a variation of weight 0 is left out with its units (ramped down, it keeps those it had)', () => {
    assert.deepEqual(sampleRatioMismatch([1000, 1000, 3], [50, 50, 0]), sampleRatioMismatch([1000, 1000], [50, 50]));
    assert.deepEqual(sampleRatioMismatch([1000, 1000, 3], [50, 50, 0]), { pValue: 1, mismatch: false });
    assert.deepEqual(sampleRatioMismatch([1000, 3], [100, 0]), { pValue: null, mismatch: false });
  });

  it('a live variation without units counts against the split', () => {
    assert.equal(sampleRatioMismatch([2000, 0], [50, 50]).mismatch, true);
  });

  const noTest = [
    { name: 'no units at all', units: [0, 0], weights: [50, 50] },
    { name: 'a single variation', units: [100], weights: [100] },
    { name: 'a single variation of positive weight', units: [100, 0], weights: [100, 0] },
    { name: 'no variations', units: [], weights: [] },
  ];
  for (const { name, units, weights } of noTest) {
    it(`no test for ${name}: p null, no mismatch`, () => {
      assert.deepEqual(sampleRatioMismatch(units, weights), { pValue: null, mismatch: false });
    });
  }

  it('throws when units and weights do not line up', () => {
    assert.throws(() => sampleRatioMismatch([1, 2], [50]), RangeError);
  });
});

describe('CUPED (gbstats regression adjustment, one comparison at a time)', () => {
  it('theta is cov(pre, post)/var(pre) over the units of the two variations compared only', () => {
    const pre = [[0, 1, 5], [2, 7], [40, 41]];
    const post = [[1, 0, 4], [3, 9], [0, 90]];
    const xs = [...pre[0]!, ...pre[1]!];
    const ys = [...post[0]!, ...post[1]!];
    const mx = mean(xs);
    const my = mean(ys);
    const cov = xs.reduce((s, x, i) => s + (x - mx) * (ys[i]! - my), 0);
    const varX = xs.reduce((s, x) => s + (x - mx) ** 2, 0);
    const c = cupedComparison('mean', summarizePairs(post[0]!, pre[0]!), summarizePairs(post[1]!, pre[1]!));
    close(c.theta, cov / varX, 1e-12, 'theta of variations 0 and 1 (variation 2 plays no part)');
    close(c.treatment.mean, mean(post[1]!) - (cov / varX) * mean(pre[1]!), 1e-12, 'adjusted mean');
    close(c.treatment.unadjustedMean, mean(post[1]!), 1e-12, 'raw mean');
  });

  const noTheta = [
    { name: 'pre does not vary', pre: [[0.1, 0.1, 0.1], [0.1, 0.1]], post: [[1, 5, 2], [7, 3]] },
    { name: 'post does not vary', pre: [[1, 5, 2], [7, 3]], post: [[4, 4, 4], [4, 4]] },
    { name: 'no units', pre: [[], []], post: [[], []] },
  ];
  for (const { name, pre, post } of noTheta) {
    it(`theta is 0 when ${name}`, () => {
      const c = cupedComparison('mean', summarizePairs(post[0]!, pre[0]!), summarizePairs(post[1]!, pre[1]!));
      assert.equal(c.theta, 0);
    });
  }

  it('throws when pre and post do not line up', () => {
    assert.throws(() => summarizePairs([1, 2], [1]), RangeError);
  });

  describe('on correlated data (post = 0.8 pre + noise, the treatment adds 0.5)', () => {
    const n = 100_000;
    const normal = gaussian(mulberry32(20240611));
    const pre = [new Float64Array(n), new Float64Array(n)];
    const post = [new Float64Array(n), new Float64Array(n)];
    for (let i = 0; i < 2; i++) {
      for (let j = 0; j < n; j++) {
        const x = 10 + 3 * normal();
        pre[i]![j] = x;
        post[i]![j] = 0.8 * x + normal() + (i === 1 ? 0.5 : 0);
      }
    }
    const trueUplift = 0.5 / 8; // control's post mean is 0.8 · 10
    const raw = compare(moments('sum', post[0]!), moments('sum', post[1]!));
    const c = cupedComparison('mean', summarizePairs(post[0]!, pre[0]!), summarizePairs(post[1]!, pre[1]!));
    const cuped = compareStatistics(c.control, c.treatment, {}, cupedRelativeVariance(c));

    it('estimates theta close to the true slope 0.8', () => close(c.theta, 0.8, 0.01, 'theta'));

    it('narrows the confidence interval', () => {
      assert.ok(raw.ci && cuped.ci);
      const before = raw.ci[1] - raw.ci[0];
      const after = cuped.ci[1] - cuped.ci[0];
      // Residual variance 1 against 0.8² · 9 + 1 = 6.76: the width shrinks by about sqrt(6.76) ≈ 2.6.
      assert.ok(after < before / 2, `width ${after} is not under half of ${before}`);
    });

    it('keeps the point estimate close to the true lift, inside its interval', () => {
      close(cuped.uplift, trueUplift, 0.003, 'adjusted uplift');
      assert.ok(cuped.ci && cuped.ci[0] < trueUplift && trueUplift < cuped.ci[1]);
    });
  });
});
