// The list's one line of results, from answers shaped as the service sends them (src/results-answer.ts).
import { expect } from '@open-wc/testing';
import type { ResultsAnswer, VariationStats } from '../wire/results-answer.js';
import { headlineOf, headlineText, leaderOf } from './headline-result.js';

function answer(units: number, variations: Partial<VariationStats>[], metrics = 1, multipleExposures = 0, inverse = false): ResultsAnswer {
  const stats = variations.map((v) => ({ units: 0, total: 0, mean: null, stddev: null, ...v }) as VariationStats);
  return {
    experience: 'hero', control: 'control', phase: 1, phases: [], units, multipleExposures, srm: { pValue: null, mismatch: false },
    analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' },
    variations: stats.map((v) => ({ name: v.name, weight: 50, units: v.units })),
    metrics: Array.from({ length: metrics }, (_, i) => ({ name: `m${i}`, type: 'binomial' as const, inverse, cupedApplied: false, variations: stats })),
  };
}

const cases: { name: string; answer: ResultsAnswer; text: string }[] = [
  { name: 'no unit exposed yet', answer: answer(0, [{ name: 'control' }, { name: 'bold' }]), text: 'no data yet' },
  { name: 'no metric in the project', answer: answer(10, [{ name: 'control' }, { name: 'bold' }], 0), text: 'no metrics defined' },
  {
    name: 'a large uplift the experiment\'s test does not find significant (no chance to win beside it)',
    answer: answer(60, [{ name: 'control' }, { name: 'green', uplift: 3.276, ci: [-1.2, 7.7], significant: false, chanceToWin: 0.98 }]),
    text: 'green +327.6% · Not significant',
  },
  {
    name: 'a significant challenger before a larger one that is not',
    answer: answer(300, [{ name: 'control' }, { name: 'calm', uplift: 0.5, significant: false, ci: [-0.1, 1.1] }, { name: 'bold', uplift: 0.124, significant: true, ci: [0.01, 0.24] }]),
    text: 'bold +12.4% · Significantly better',
  },
  {
    name: 'the larger effect between challengers that are both not significant',
    answer: answer(300, [{ name: 'control' }, { name: 'calm', uplift: -0.05, significant: false, ci: [-0.2, 0.1] }, { name: 'bold', uplift: 0.3, significant: false, ci: [-0.1, 0.7] }]),
    text: 'bold +30.0% · Not significant',
  },
  {
    name: 'a challenger significantly worse than the control',
    answer: answer(300, [{ name: 'control' }, { name: 'bold', uplift: -0.3, significant: true, ci: [-0.5, -0.1] }]),
    text: 'bold -30.0% · Significantly worse',
  },
  {
    name: 'units exposed, each to more than one variation (left out of results)',
    answer: answer(0, [{ name: 'control' }, { name: 'bold' }], 1, 2),
    text: 'no data: all 2 units exposed saw two variations',
  },
  {
    name: 'a lower-is-better metric, whose best challenger has the largest drop',
    answer: answer(300, [{ name: 'control' }, { name: 'calm', uplift: 0.08, significant: false, ci: [-0.1, 0.3] }, { name: 'bold', uplift: -0.2, significant: true, ci: [-0.3, -0.1] }], 1, 0, true),
    text: 'bold -20.0% · Significantly better',
  },
  {
    name: 'an uplift the service could not compute',
    answer: answer(4, [{ name: 'control' }, { name: 'bold', uplift: null, chanceToWin: null }]),
    text: 'bold: not enough data',
  },
];

describe('headline result', () => {
  for (const c of cases) {
    it(`reads "${c.text}" for ${c.name}`, () => {
      expect(headlineText(headlineOf(c.answer), 'en')).to.equal(c.text);
    });
  }

  it('says when its metric is lower-is-better, so a negative uplift reads as the good news it is', () => {
    const drop = [{ name: 'control' }, { name: 'bold', uplift: -0.2, significant: true }];
    expect(headlineOf(answer(300, drop, 1, 0, true))).to.include({ kind: 'best', metric: 'm0', inverse: true });
    expect(headlineOf(answer(300, drop))).to.include({ inverse: false });
  });
});

describe('the variation "Ship a winner" offers first', () => {
  it('is the best challenger when its effect goes the better way, significant or not, else the control', () => {
    expect(leaderOf(answer(300, [{ name: 'control' }, { name: 'bold', uplift: 0.1, significant: false }]))).to.equal('bold');
    expect(leaderOf(answer(300, [{ name: 'control' }, { name: 'green', uplift: -0.44, significant: false }]))).to.equal('control');
    expect(leaderOf(answer(0, [{ name: 'control' }, { name: 'bold' }]))).to.equal(undefined);
    expect(leaderOf(answer(4, [{ name: 'control' }, { name: 'bold', uplift: null, chanceToWin: null }]))).to.equal(undefined);
  });
});
