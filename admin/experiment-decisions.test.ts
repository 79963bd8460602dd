// What the console decides from an experiment's own settings: the headline and Ship follow the primary goal, a save
// that changes a running split warns of a new phase, the audit log reads defaults and automatic stops in words.
import { expect } from '@open-wc/testing';
import type { ResultsAnswer, VariationStats } from '../wire/results-answer.js';
import { shown, stopReason } from './audit-log.js';
import type { Experience } from './experience.js';
import { draftItem, draftOf } from './experience-form.js';
import { withPrimary, withRole } from './experience-metrics-panel.js';
import { headlineOf, leaderOf, shipFacts } from './headline-result.js';
import { consequence } from './lifecycle.js';
import { phaseChangesOf } from './phase-change.js';

const stats = (name: string, extra: Partial<VariationStats> = {}): VariationStats => ({ name, units: 100, total: 10, mean: 0.1, stddev: 0.3, ...extra });

function answer(): ResultsAnswer {
  return {
    experience: 'hero', control: 'control', phase: 1, phases: [], units: 300, multipleExposures: 0,
    srm: { pValue: 0.5, mismatch: false }, analysis: { alpha: 0.05, interval: 'sequential', correction: 'none' },
    variations: [{ name: 'control', weight: 34, units: 100 }, { name: 'green', weight: 33, units: 100 }, { name: 'blue', weight: 33, units: 100 }],
    metrics: [
      // Unused metrics first would have led before: the goal leads now.
      { name: 'purchase', type: 'binomial', inverse: false, cupedApplied: false, variations: [stats('control'), stats('green', { uplift: 0, chanceToWin: 0.5 }), stats('blue', { uplift: 0, chanceToWin: 0.5 })] },
      { name: 'checkout', type: 'binomial', role: 'goal', inverse: false, cupedApplied: false, variations: [stats('control'), stats('green', { uplift: 0.2, significant: false, ci: [-0.1, 0.5] }), stats('blue', { uplift: -0.1, significant: false, ci: [-0.4, 0.2] })] },
    ],
  };
}

const running: Experience = {
  name: 'hero', version: 3, source: 'api', status: 'running', goals: ['checkout'],
  variations: [{ name: 'control', weight: 34, body: {} }, { name: 'green', weight: 33, body: {} }, { name: 'blue', weight: 33, body: {} }],
};

describe('experiment decisions in the console', () => {
  it('heads the list with the primary goal and ships the variation it favours', () => {
    const headline = headlineOf(answer());
    expect(headline).to.include({ kind: 'best', metric: 'checkout', variation: 'green' });
    expect(leaderOf(answer())).to.equal('green');
  });

  it('says in the Ship dialog, before the click, that the choice is not significant and harms a guardrail, which stops the experiment', () => {
    const a = answer();
    a.analysis.harmTest = { test: 'sequential-one-sided', tuning: 5000, correction: 'holm-bonferroni', family: 2 };
    a.metrics.push({
      name: 'errors', type: 'count', role: 'guardrail', inverse: true, cupedApplied: false,
      variations: [
        stats('control'),
        stats('green', { uplift: 0.42, significant: true, ci: [0.1, 0.7], harm: { pValue: 0.0123, harmed: true, pValueAdjusted: 0.0246, stops: true } }),
        stats('blue', { uplift: 0.3, significant: true, ci: [0.1, 0.5], harm: { pValue: 0.2, harmed: false, pValueAdjusted: 0.2, stops: false } }),
      ],
    });
    expect(shipFacts(a, 'green', 'en')).to.deep.equal([
      "On checkout (primary goal), 'green' is +20.0% against 'control': Not significant.",
      "Guardrail errors: 'green' harms it (p = 0.0123): stops the experiment.",
    ]);
    expect(shipFacts(a, 'blue', 'en')[1]).to.equal("Guardrail errors: 'blue' is significantly worse.");
    expect(shipFacts(a, 'control', 'en')).to.deep.equal([]);
  });

  it('says in the Ship dialog that a harm the stop\'s correction does not act on is a signal, not significant after correction', () => {
    const a = answer();
    a.analysis.harmTest = { test: 'sequential-one-sided', tuning: 5000, correction: 'holm-bonferroni', family: 2 };
    a.metrics.push({
      name: 'errors', type: 'count', role: 'guardrail', inverse: true, cupedApplied: false,
      variations: [stats('control'), stats('green', { harm: { pValue: 0.03, harmed: true, pValueAdjusted: 0.06, stops: false } }), stats('blue')],
    });
    expect(shipFacts(a, 'green', 'en')[1]).to.equal("Guardrail errors: 'green' (p = 0.0300): harm signal, not significant after correction for 2 tests.");
  });

  it('keeps the goals, secondary metrics, guardrails and SRM switch through the form, the primary goal first', () => {
    let d = draftOf(running);
    d = { ...d, ...withRole(d, 'revenue', 'goal'), ...withRole(d, 'errors', 'guardrail') };
    d = { ...d, ...withRole(d, 'errors', 'guardrail') };
    d = { ...d, ...withPrimary(d, 'revenue'), stopOnSrm: true };
    const item = draftItem(d, running);
    expect(item.goals).to.deep.equal(['revenue', 'checkout']);
    expect(item.guardrails).to.deep.equal(['errors']);
    expect(item.stopOnSrm).to.equal(true);
    expect(item).to.not.have.property('secondary');
    const none = draftItem({ ...d, ...withRole(d, 'errors', '') }, running);
    expect(none).to.not.have.property('guardrails');
  });

  it('warns of a new phase when a running split, traffic or targeting changes, not for a body', () => {
    const after = { ...running, variations: running.variations!.map((v, i) => ({ ...v, weight: [20, 60, 20][i]! })) };
    expect(phaseChangesOf(running, after)).to.deep.equal(['the split (control 34% / green 33% / blue 33% → control 20% / green 60% / blue 20%)']);
    expect(phaseChangesOf(running, { ...running, traffic: 50, condition: { country: 'DE' } })).to.have.length(2);
    expect(phaseChangesOf(running, { ...running, variations: running.variations!.map((v) => ({ ...v, body: { x: 1 } })) })).to.deep.equal([]);
  });

  it('warns of no phase when a bandit\'s weights move, and of one when the allocation switches or an arm is added', () => {
    const bandit: Experience = { ...running, allocation: 'bandit' };
    const moved = { ...bandit, variations: bandit.variations!.map((v, i) => ({ ...v, weight: [20, 60, 20][i]! })) };
    expect(phaseChangesOf(bandit, moved)).to.deep.equal([]);
    expect(phaseChangesOf(running, { ...running, allocation: 'bandit' })).to.deep.equal(['the allocation (fixed → bandit)']);
    expect(phaseChangesOf(moved, { ...moved, allocation: 'fixed' })).to.deep.equal(['the allocation (bandit → fixed)']);
    const added = { ...bandit, variations: [...bandit.variations!, { name: 'red', weight: 0, body: {} }] };
    expect(phaseChangesOf(bandit, added)[0]).to.match(/^the split \(/);
  });

  it('warns that starting a shipped experiment again drops its winner', () => {
    const shipped: Experience = { ...running, status: 'stopped', winner: 'green' };
    expect(consequence(shipped, 'start')).to.contain("was shipped with 'green'").and.contain('drops that winner');
  });

  it('reads an absent field as its default, and an automatic stop with its numbers', () => {
    expect(shown(undefined, 'status')).to.equal('"running" (default)');
    expect(shown(undefined, 'winner')).to.equal('absent');
    expect(shown('stopped', 'status')).to.equal('"stopped"');
    expect(stopReason({ rule: 'guardrail', at: '2026-11-26T10:00:00Z', metric: 'errors', variation: 'blue', uplift: 0.42, pValue: 0.00001, units: 300, phase: 2 }))
      .to.equal("'blue' harmed the guardrail 'errors' (+42.0% against the control, p < 0.0001, 300 units in phase 2)");
  });
});
