// The bandit estimator on its own (server/results/stratified-estimate.ts): how periods become strata, the
// post-stratified mean and its variance worked by hand, and the comparisons made from them.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { mergeStrata, stratifiedComparison, stratifiedEstimates, stratumWeights } from '../../../server/results/stratified-estimate.js';
import { summarizePairs, type PairSummary } from '../../../server/results/unit-statistics.js';

/** A cell of these unit values (y 0). */
function cell(...values: number[]): PairSummary {
  return summarizePairs(values, values.map(() => 0));
}

/** A cell of n units of which `converted` are 1. */
function binary(n: number, converted: number): PairSummary {
  return cell(...Array.from({ length: n }, (_, i) => (i < converted ? 1 : 0)));
}

const close = (actual: number | null | undefined, expected: number, what: string, tolerance = 1e-9): void => {
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} ≠ ${expected}`);
};

describe('strata of a bandit\'s periods', () => {
  it('keeps every period whose arms all have 2 units or more', () => {
    const strata = mergeStrata([[cell(1, 2), cell(3, 4)], [cell(5, 6), cell(7, 8, 9)]]);
    assert.deepEqual(strata.map((s) => s.map((c) => c.x.n)), [[2, 2], [2, 3]]);
  });

  it('merges a period where an arm has fewer than 2 units with the next, and a short last period with the one before', () => {
    const periods = [
      [cell(1), cell(1, 2)], // the control has 1 unit: merged forward
      [cell(2, 3), cell(4)],
      [cell(5, 6), cell(7, 8)],
      [cell(9), cell(1, 1)], // too few at the end: joins the stratum before it
    ];
    const strata = mergeStrata(periods);
    assert.deepEqual(strata.map((s) => s.map((c) => c.x.n)), [[3, 3], [3, 4]]);
    close(strata[1]![0]!.x.mean, (5 + 6 + 9) / 3, 'merged mean');
    close(strata[1]![0]!.x.m2, [5, 6, 9].reduce((sum, x) => sum + (x - 20 / 3) ** 2, 0), 'merged m2');
  });

  it('does not let an arm with fewer than 2 units in all hold the others back, and leaves its variance unknown', () => {
    const strata = mergeStrata([[cell(1, 2), cell(3, 4), cell()], [cell(5, 6), cell(7, 8), cell(9)]]);
    assert.equal(strata.length, 2);
    const [, , lonely] = stratifiedEstimates(strata, false);
    assert.deepEqual(lonely, { units: 1, mean: 9, variance: null });
  });

  it('weighs each stratum by its share of all units, whatever the arms\' split', () => {
    close(stratumWeights([[binary(10, 1), binary(30, 3)], [binary(50, 5), binary(10, 1)]])[0], 40 / 100, 'w1');
  });
});

describe('the post-stratified estimate', () => {
  // Simpson's paradox in two periods: A converts better than B in each, but B got most of the traffic in the second
  // period, when everybody converted more. Pooled, B wins (100/280 against 32/120); by period, A does.
  const periods = [[binary(100, 20), binary(100, 10)], [binary(20, 12), binary(180, 90)]];

  it('averages each arm\'s period means with the periods\' shares of all units: M = Σ w m, Var = Σ w² s²/n', () => {
    const [a, b] = stratifiedEstimates(mergeStrata(periods), false);
    close(a!.mean, 0.5 * 0.2 + 0.5 * 0.6, 'M_A');
    close(b!.mean, 0.5 * 0.1 + 0.5 * 0.5, 'M_B');
    // s² is the sample variance (n − 1) of the 0/1 values: n/(n − 1) · m(1 − m).
    const term = (n: number, m: number): number => (0.25 * (n / (n - 1)) * m * (1 - m)) / n;
    close(a!.variance, term(100, 0.2) + term(20, 0.6), 'Var(M_A)', 1e-15);
    close(b!.variance, term(100, 0.1) + term(180, 0.5), 'Var(M_B)', 1e-15);
    assert.equal(a!.units, 120);
  });

  it('compares each arm with the control by the delta method, tested with the normal', () => {
    const [a, b] = stratifiedEstimates(mergeStrata(periods), false);
    const c = stratifiedComparison(a!, b!, { alpha: 0.05 });
    const uplift = (0.3 - 0.4) / 0.4;
    close(c.uplift, uplift, 'uplift');
    const v = b!.variance! / 0.16 + (0.09 * a!.variance!) / 0.0256;
    close(c.ci![0], uplift - 1.959963984540054 * Math.sqrt(v), 'ci low', 1e-7);
    close(c.ci![1], uplift + 1.959963984540054 * Math.sqrt(v), 'ci high', 1e-7);
    close(c.absolute.effect, -0.1, 'absolute');
    const se = Math.sqrt(a!.variance! + b!.variance!);
    close(c.absolute.ci![1], -0.1 + 1.959963984540054 * se, 'absolute ci high', 1e-7);
    assert.ok(c.chanceToWin! < 0.5, 'B is likely worse');
  });

  it('is the plain mean with its n − 1 standard error when the weights never moved (one period)', () => {
    const values = [3, 0, 0, 7, 1, 0, 2, 0];
    const [only] = stratifiedEstimates(mergeStrata([[cell(...values)]]), false);
    const mean = values.reduce((s, x) => s + x, 0) / values.length;
    const s2 = values.reduce((s, x) => s + (x - mean) ** 2, 0) / (values.length - 1);
    close(only!.mean, mean, 'mean');
    close(only!.variance, s2 / values.length, 'variance', 1e-15);
  });

  it('estimates a ratio as the stratified numerator over the stratified denominator, with the delta method', () => {
    const pair = (xs: number[], ys: number[]): PairSummary => summarizePairs(xs, ys);
    const strata = mergeStrata([[pair([1, 2, 3], [1, 1, 2])], [pair([4, 0], [2, 1])]]);
    const [r] = stratifiedEstimates(strata, true);
    const w = [0.6, 0.4];
    const mx = w[0]! * 2 + w[1]! * 2;
    const my = w[0]! * (4 / 3) + w[1]! * 1.5;
    close(r!.mean, mx / my, 'ratio');
    const vx = w[0]! ** 2 * (1 / 3) + w[1]! ** 2 * (8 / 2);
    const vy = w[0]! ** 2 * ((1 / 3) / 3) + w[1]! ** 2 * ((0.5 / 1) / 2);
    const cxy = w[0]! ** 2 * ((1 / 2) / 3) + w[1]! ** 2 * ((2 / 1) / 2);
    close(r!.variance, vx / my ** 2 - (2 * mx * cxy) / my ** 3 + (mx ** 2 * vy) / my ** 4, 'ratio variance', 1e-12);
  });

  it('answers no mean without units, and no relative effect over a control mean of 0', () => {
    const [a, b] = stratifiedEstimates(mergeStrata([[binary(4, 0), binary(4, 2)], [binary(2, 0), cell()]]), false);
    assert.equal(b!.units, 4, 'the empty period merged');
    const c = stratifiedComparison(a!, b!, {});
    assert.equal(c.uplift, null);
    close(c.absolute.effect, 0.5, 'absolute');
    assert.deepEqual(stratifiedEstimates(mergeStrata([[cell(), cell(1, 2)]]), false)[0], { units: 0, mean: null, variance: null });
  });
});

describe('docs/bandit-statistics.md', () => {
  it('names only files that exist', () => {
    const markdown = readFileSync('docs/bandit-statistics.md', 'utf8');
    const paths = [...markdown.matchAll(/`((?:bench|test|server|docs)\/[\w./-]+\.(?:ts|md))`/g)].map((m) => m[1] as string);
    assert.ok(paths.length >= 8, `${paths.length} paths`);
    for (const path of paths) assert.ok(existsSync(path), `${path} does not exist`);
  });
});
