// Thompson sampling's weights (pure): floors, ties, what an arm without units or without spread does, inverse metrics.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { equalWeights, thompsonWeights } from '../../../server/bandits/thompson-weights.js';

const sum = (weights: Record<string, number>): number => Object.values(weights).reduce((a, b) => a + b, 0);

describe('thompsonWeights', () => {
  it('gives the clearly better arm all but the floor, and the weights sum to exactly 100', () => {
    const { weights, probabilityBest } = thompsonWeights(
      [{ name: 'a', mean: 0.05, stddev: 0.001 }, { name: 'b', mean: 0.06, stddev: 0.001 }, { name: 'c', mean: 0.04, stddev: 0.001 }],
      { minShare: 2, seed: 's' },
    );
    assert.deepEqual(weights, { a: 2, b: 96, c: 2 });
    assert.deepEqual(probabilityBest, { a: 0, b: 1, c: 0 });
  });

  it('splits by the chance of being best between close arms, each above its floor', () => {
    const { weights, probabilityBest } = thompsonWeights(
      [{ name: 'a', mean: 0.05, stddev: 0.003 }, { name: 'b', mean: 0.052, stddev: 0.003 }], { minShare: 1, seed: 's' },
    );
    assert.ok((probabilityBest.b as number) > 0.6 && (probabilityBest.b as number) < 0.8, JSON.stringify(probabilityBest));
    assert.equal(weights.a, Math.round((1 + 98 * (probabilityBest.a as number)) * 1e4) / 1e4);
    assert.equal(sum(weights), 100);
  });

  it('is the same for the same seed and points down for an inverse metric', () => {
    const arms = [{ name: 'a', mean: 2, stddev: 0.5 }, { name: 'b', mean: 2.5, stddev: 0.5 }];
    assert.deepEqual(thompsonWeights(arms, { minShare: 1, seed: 'x' }), thompsonWeights(arms, { minShare: 1, seed: 'x' }));
    const inverse = thompsonWeights(arms, { minShare: 1, seed: 'x', inverse: true });
    assert.ok((inverse.probabilityBest.a as number) > 0.7, JSON.stringify(inverse));
  });

  it('keeps equal weights while an arm has no units, or while no arm has seen a conversion', () => {
    const none = thompsonWeights([{ name: 'a', mean: null, stddev: null }, { name: 'b', mean: 0.1, stddev: 0.01 }], { minShare: 1, seed: 's' });
    assert.deepEqual(none.weights, { a: 50, b: 50 });
    const zeros = thompsonWeights(['a', 'b', 'c'].map((name) => ({ name, mean: 0, stddev: 0 })), { minShare: 1, seed: 's' });
    assert.deepEqual(zeros.weights, equalWeights(['a', 'b', 'c']));
    assert.equal(sum(zeros.weights), 100);
  });

  it('an arm with no conversion yet is a point at 0: it loses to an arm that converts, and ties are broken at random', () => {
    const { probabilityBest } = thompsonWeights([{ name: 'a', mean: 0, stddev: 0 }, { name: 'b', mean: 0.06, stddev: 0.01 }], { minShare: 1, seed: 's' });
    assert.deepEqual(probabilityBest, { a: 0, b: 1 });
    const tied = thompsonWeights(
      [{ name: 'a', mean: 0, stddev: 0 }, { name: 'b', mean: 0, stddev: 0 }, { name: 'c', mean: -1, stddev: 0.001 }], { minShare: 1, seed: 's' },
    );
    assert.ok(Math.abs((tied.probabilityBest.a as number) - 0.5) < 0.03, JSON.stringify(tied.probabilityBest));
    assert.equal(tied.probabilityBest.c, 0);
  });
});
