// The planner's power formulas (server/planning/power.ts) against closed forms written here apart from them: a
// binomial experiment's units agree with the two-sample calculation of the test results run, and with Fleiss' figure
// for the absolute difference times the relative test's own inflation; the sequential figure is the confidence
// sequence results compute; units and minimum detectable effects invert each other.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jStatModule from 'jstat';
import { twoSidedSequential } from '../../../server/results/inference.js';
import {
  detectableEffect, fixedHorizonPower, fixedHorizonUnits, relativeVariances, sequentialPower, sequentialUnits,
} from '../../../server/planning/power.js';

const { jStat } = jStatModule;
const z = (p: number): number => jStat.normal.inv(p, 0, 1);
const TEST = { alpha: 0.05, power: 0.8, tuning: 5000 };

const binomial = (p: number) => ({ mean: p, variance: p * (1 - p), binomial: true });

/**
 * Units in all for results' relative test of two conversion rates, in closed form on the absolute scale, with nA = a·N
 * and nB = b·N: the uplift is significant when p̂B − p̂A > z(1 − α/2)·sqrt(q(1 − q)/nB + (q/p)² p(1 − p)/nA) (its
 * delta-method standard error times |p|), while p̂B − p̂A varies by sqrt(q(1 − q)/nB + p(1 − p)/nA).
 */
function relativeTestUnits(p: number, mde: number, a: number, b: number, alpha: number): number {
  const q = p * (1 + mde);
  const threshold = z(1 - alpha / 2) * Math.sqrt((q * (1 - q)) / b + ((q / p) ** 2 * p * (1 - p)) / a);
  const spread = z(0.8) * Math.sqrt((q * (1 - q)) / b + (p * (1 - p)) / a);
  return (threshold + spread) ** 2 / ((q - p) ** 2);
}

/** Fleiss' units per arm for the difference of two rates (normal approximation, pooled under the null, equal arms). */
function fleissPerArm(p: number, q: number, alpha: number): number {
  const pooled = (p + q) / 2;
  const root = z(1 - alpha / 2) * Math.sqrt(2 * pooled * (1 - pooled)) + z(0.8) * Math.sqrt(p * (1 - p) + q * (1 - q));
  return (root * root) / ((q - p) ** 2);
}

const CASES: [p: number, mde: number, control: number, alpha: number][] = [
  [0.05, 0.05, 0.5, 0.05], [0.05, 0.1, 0.5, 0.05], [0.2, 0.03, 0.5, 0.05], [0.03, 0.2, 0.4, 0.01], [0.5, -0.1, 0.5, 0.05],
];

describe('planning power', () => {
  for (const [p, mde, control, alpha] of CASES) {
    it(`a binomial experiment's fixed-horizon units agree with the closed form to 1 % (p ${p}, mde ${mde}, control ${control}, α ${alpha})`, () => {
      const shares = { control, treatment: 1 - control };
      const planned = fixedHorizonUnits(binomial(p), mde, shares, { ...TEST, alpha });
      const closed = relativeTestUnits(p, mde, control, 1 - control, alpha);
      assert.ok(Math.abs(planned / closed - 1) < 0.01, `${planned} vs ${closed}`);
      assert.ok(Math.abs(fixedHorizonPower(binomial(p), mde, shares, planned, alpha) - 0.8) < 1e-5);
    });
  }

  it('needs more units than Fleiss\' figure for a rise and fewer for a fall: the relative test\'s yardstick is (1 + mde)² on the control', () => {
    const halves = { control: 0.5, treatment: 0.5 };
    for (const [mde, more] of [[0.1, true], [-0.1, false]] as const) {
      const perArm = fixedHorizonUnits(binomial(0.05), mde, halves, TEST) / 2;
      const fleiss = fleissPerArm(0.05, 0.05 * (1 + mde), 0.05);
      assert.equal(perArm > fleiss, more, `${mde}: ${perArm} vs ${fleiss}`);
      assert.ok(Math.abs(perArm / fleiss - 1) < 0.1, `${mde}: within 10 % of it`);
    }
  });

  it('plans the sequential test on the half-width results compute, at 80 % power, with more units than fixed-horizon', () => {
    const b = { mean: 12, variance: 900, binomial: false };
    const shares = { control: 0.5, treatment: 0.25 };
    const units = sequentialUnits(b, 0.05, shares, TEST);
    assert.ok(units > fixedHorizonUnits(b, 0.05, shares, TEST));
    assert.ok(Math.abs(sequentialPower(b, 0.05, shares, units, TEST) - 0.8) < 1e-6);
    // Results' own interval for an estimate of that variance over the two variations' units.
    const { yardstick, spread } = relativeVariances(b, 0.05, shares);
    const { ci } = twoSidedSequential({ point: 0.05, variance: yardstick / units, dof: 1e9, units: units * 0.75 }, 0.05, 5000);
    const half = (ci![1] - ci![0]) / 2;
    const sd = Math.sqrt(spread / units);
    const power = jStat.normal.cdf((0.05 - half) / sd, 0, 1) + jStat.normal.cdf((-0.05 - half) / sd, 0, 1);
    assert.ok(Math.abs(power - 0.8) < 1e-6, `${power}`);
  });

  it('finds back the change a number of units was planned for, and none out of a conversion rate\'s reach', () => {
    const b = binomial(0.08);
    const shares = { control: 0.5, treatment: 0.5 };
    for (const kind of ['fixed-horizon', 'sequential'] as const) {
      const units = kind === 'sequential' ? sequentialUnits(b, 0.07, shares, TEST) : fixedHorizonUnits(b, 0.07, shares, TEST);
      assert.ok(Math.abs(detectableEffect(kind, b, 1, shares, units, TEST)! - 0.07) < 1e-6, kind);
    }
    assert.equal(detectableEffect('fixed-horizon', b, 1, shares, 20, TEST), null);
    assert.equal(detectableEffect('sequential', b, 1, shares, 0, TEST), null);
  });
});
