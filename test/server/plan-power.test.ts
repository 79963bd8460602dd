// The planner's power formulas (server/planning/power.ts) against closed forms written here apart from them: a
// binomial experiment's units agree with the two-sample calculation of the test results run, and with Fleiss' figure
// for the absolute difference times the relative test's own inflation; the sequential figure is the confidence
// sequence results compute; units and minimum detectable effects invert each other.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jStatModule from 'jstat';
import { twoSidedSequential } from '../../server/results/inference.js';
import {
  detectableEffect, fixedHorizonPower, fixedHorizonUnits, sequentialPower, sequentialUnits, unitRelativeVariance,
} from '../../server/planning/power.js';

const { jStat } = jStatModule;
const z = (p: number): number => jStat.normal.inv(p, 0, 1);
const TEST = { alpha: 0.05, power: 0.8, tuning: 5000 };

const binomial = (p: number) => ({ mean: p, variance: p * (1 - p), binomial: true });

/**
 * Units in all for results' relative test of two conversion rates, in closed form on the absolute scale: its z is
 * (q − p) / sqrt(q(1 − q)/nB + (q/p)² p(1 − p)/nA), with nA = a·N and nB = b·N.
 */
function relativeTestUnits(p: number, mde: number, a: number, b: number, alpha: number): number {
  const q = p * (1 + mde);
  const k = z(1 - alpha / 2) + z(0.8);
  return (k * k * ((q * (1 - q)) / b + ((q / p) ** 2 * p * (1 - p)) / a)) / ((q - p) ** 2);
}

/** Fleiss' units per arm for the absolute difference of two rates (normal approximation, equal arms). */
function fleissPerArm(p: number, q: number, alpha: number): number {
  const k = z(1 - alpha / 2) + z(0.8);
  return (k * k * (p * (1 - p) + q * (1 - q))) / ((q - p) ** 2);
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

  it('is Fleiss\' figure for the absolute difference times the relative test\'s inflation of the control\'s term', () => {
    const p = 0.05;
    const mde = 0.1;
    const q = p * (1 + mde);
    const perArm = fixedHorizonUnits(binomial(p), mde, { control: 0.5, treatment: 0.5 }, TEST) / 2;
    const inflation = (q * (1 - q) + (1 + mde) ** 2 * p * (1 - p)) / (q * (1 - q) + p * (1 - p));
    assert.ok(Math.abs(perArm / (fleissPerArm(p, q, 0.05) * inflation) - 1) < 1e-9);
    assert.ok(perArm > fleissPerArm(p, q, 0.05), 'the relative test needs more units than the absolute one for a rise');
  });

  it('plans the sequential test on the half-width results compute, at 80 % power, with more units than fixed-horizon', () => {
    const b = { mean: 12, variance: 900, binomial: false };
    const shares = { control: 0.5, treatment: 0.25 };
    const units = sequentialUnits(b, 0.05, shares, TEST);
    assert.ok(units > fixedHorizonUnits(b, 0.05, shares, TEST));
    assert.ok(Math.abs(sequentialPower(b, 0.05, shares, units, TEST) - 0.8) < 1e-6);
    // Results' own interval for an estimate of that variance over the two variations' units.
    const variance = unitRelativeVariance(b, 0.05, shares) / units;
    const { ci } = twoSidedSequential({ point: 0.05, variance, dof: 1e9, units: units * 0.75 }, 0.05, 5000);
    const half = (ci![1] - ci![0]) / 2;
    const se = Math.sqrt(variance);
    const power = jStat.normal.cdf((0.05 - half) / se, 0, 1) + jStat.normal.cdf((-0.05 - half) / se, 0, 1);
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
