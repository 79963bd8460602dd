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
    name: 'the challenger most likely to win, with its uplift',
    answer: answer(300, [{ name: 'control' }, { name: 'bold', uplift: 0.124, chanceToWin: 0.91 }, { name: 'calm', uplift: -0.05, chanceToWin: 0.2 }]),
    text: 'bold +12.4% · 91% to win',
  },
  {
    name: 'a later challenger when it is the likelier winner',
    answer: answer(300, [{ name: 'control' }, { name: 'calm', uplift: -0.05, chanceToWin: 0.2 }, { name: 'bold', uplift: 0.3, chanceToWin: 0.97 }]),
    text: 'bold +30.0% · 97% to win',
  },
  {
    name: 'a chance to win that rounds to 100 %: never a certainty',
    answer: answer(300, [{ name: 'control' }, { name: 'bold', uplift: 0.3, chanceToWin: 0.9961 }]),
    text: 'bold +30.0% · > 99% to win',
  },
  {
    name: 'a chance to win that rounds to 0 %',
    answer: answer(300, [{ name: 'control' }, { name: 'bold', uplift: -0.3, chanceToWin: 0.002 }]),
    text: 'bold -30.0% · < 1% to win',
  },
  {
    name: 'units exposed, each to more than one variation (left out of results)',
    answer: answer(0, [{ name: 'control' }, { name: 'bold' }], 1, 2),
    text: 'no data: all 2 units exposed saw two variations',
  },
  {
    // The service's chance to win of a lower-is-better metric is the chance of a drop: the drop leads.
    name: 'a lower-is-better metric, whose likeliest winner has the largest drop',
    answer: answer(300, [{ name: 'control' }, { name: 'calm', uplift: 0.08, chanceToWin: 0.1 }, { name: 'bold', uplift: -0.2, chanceToWin: 0.96 }], 1, 0, true),
    text: 'bold -20.0% · 96% to win',
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
    const drop = [{ name: 'control' }, { name: 'bold', uplift: -0.2, chanceToWin: 0.96 }];
    expect(headlineOf(answer(300, drop, 1, 0, true))).to.include({ kind: 'best', metric: 'm0', inverse: true });
    expect(headlineOf(answer(300, drop))).to.include({ inverse: false });
  });
});

describe('the variation "Ship a winner" offers first', () => {
  it('is the challenger most likely to win when it more likely beats the control than not, else the control', () => {
    expect(leaderOf(answer(300, [{ name: 'control' }, { name: 'bold', uplift: 0.1, chanceToWin: 0.8 }]))).to.equal('bold');
    expect(leaderOf(answer(300, [{ name: 'control' }, { name: 'green', uplift: -0.44, chanceToWin: 0.19 }]))).to.equal('control');
    expect(leaderOf(answer(0, [{ name: 'control' }, { name: 'bold' }]))).to.equal(undefined);
    expect(leaderOf(answer(4, [{ name: 'control' }, { name: 'bold', uplift: null, chanceToWin: null }]))).to.equal(undefined);
  });
});
