// Sequential testing keeps its promise when people look every day: simulated A/A experiments (no true effect) read
// daily for 28 days keep their false positives within alpha, and A/B experiments with a real effect are found, by the
// fixed-horizon test and by the sequential one, with fixed seeds. The full-size run (2,000 experiments per row, with the
// A/B power cost of a +10 % effect) is bench/peeking-bench.ts in `npm run bench`; this one is smaller so that it fits
// in the test run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { monteCarloError, simulatePeeking } from '../../../bench/peeking-bench.js';

describe('peeking at A/A experiments every day (400 experiments, 28 daily looks, fixed seed)', () => {
  const experiments = 400;
  const result = simulatePeeking({ experiments, unitsPerDay: 300, seed: 7 });

  it('computed every comparison through the results engine', () => {
    assert.equal(result.comparisons, experiments * 28 * 2);
  });

  it('sequential: the share ever declared significant stays within alpha and its Monte-Carlo error', () => {
    const bound = result.alpha + 2 * monteCarloError(result.alpha, experiments);
    assert.ok(result.sequential.ever <= bound, `ever significant ${result.sequential.ever} > ${bound}`);
  });

  it('guardrails: the one-sided sequential test of harm, read daily, raises a false alarm within alpha', () => {
    const bound = result.alpha + 2 * monteCarloError(result.alpha, experiments);
    assert.ok(result.harm.ever <= bound, `ever harmed ${result.harm.ever} > ${bound}`);
  });

  it('fixed-horizon p-values read daily declare several times alpha significant (why sequential exists)', () => {
    assert.ok(result.fixed.ever >= 3 * result.alpha, `ever significant ${result.fixed.ever}`);
    // Read once, at the planned end, the fixed-horizon test keeps its alpha.
    assert.ok(result.fixed.atEnd <= result.alpha + 2 * monteCarloError(result.alpha, experiments), `at the end ${result.fixed.atEnd}`);
  });
});

describe('finding a real effect: A/B experiments with +40 % on the treatment (200 experiments, 28 daily looks, fixed seed)', () => {
  const experiments = 200;
  // 8,400 units per variation at the end, base rate 5 %: a +40 % lift is about six standard errors, which a working test
  // finds nearly always (the fixed-horizon one at the end, the sequential one, whose intervals are wider, too).
  const result = simulatePeeking({ experiments, unitsPerDay: 300, effect: 0.4, seed: 11 });
  const power = 0.95;

  it('computed every comparison through the results engine', () => {
    assert.equal(result.comparisons, experiments * 28 * 2);
  });

  it('fixed-horizon, read once at the planned end: the effect is found, the right way, in nearly every experiment', () => {
    assert.ok(result.fixed.atEnd >= power, `significant the right way at the end ${result.fixed.atEnd}`);
  });

  it('sequential, read every day: the effect is found the right way by the planned end in nearly every experiment', () => {
    assert.ok(result.sequential.atEnd >= power, `significant the right way at the end ${result.sequential.atEnd}`);
  });

  it('the sequential test pays for its daily looks in power, never the other way round', () => {
    const smaller = simulatePeeking({ experiments, unitsPerDay: 300, effect: 0.2, seed: 11 });
    assert.ok(smaller.sequential.atEnd < smaller.fixed.atEnd, `sequential ${smaller.sequential.atEnd}, fixed ${smaller.fixed.atEnd}`);
    assert.ok(smaller.fixed.atEnd >= 0.6, `fixed-horizon power on +20 % ${smaller.fixed.atEnd}`);
  });

  it('a harmful treatment (−40 %) is found as harm by the guardrails\' one-sided test, and as significant the right way', () => {
    const harmful = simulatePeeking({ experiments, unitsPerDay: 300, effect: -0.4, seed: 12 });
    assert.ok(harmful.harm.ever >= power, `harm found in ${harmful.harm.ever}`);
    assert.ok(harmful.sequential.atEnd >= power, `significant the right way at the end ${harmful.sequential.atEnd}`);
  });
});
