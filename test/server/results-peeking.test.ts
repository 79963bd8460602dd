// Sequential testing keeps its promise when people look every day: simulated A/A experiments (no true effect) read
// daily for 28 days, with a fixed seed. The full-size run (2,000 experiments per row, with the A/B power cost) is
// bench/peeking-bench.ts in `npm run bench`; this one is smaller so that it fits in the test run.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { monteCarloError, simulatePeeking } from '../../bench/peeking-bench.js';

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
