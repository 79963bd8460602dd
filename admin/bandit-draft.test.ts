// An experiment's allocation in the editor's form: the service's checks of a bandit said before sending, what a save
// writes, and which field a refusal of the service names.
import { expect } from '@open-wc/testing';
import { banditErrors, equalWeights, serverFieldError } from './bandit-draft.js';
import type { Experience } from './experience.js';
import { blockedReason, draftErrors, draftItem, draftOf, type ExperienceDraft } from './experience-form.js';

const headline: Experience = {
  name: 'headline', version: 2, source: 'api', status: 'running', goals: ['purchase', 'revenue'],
  variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }],
};

const bandit = (change: Partial<ExperienceDraft> = {}): ExperienceDraft => ({ ...draftOf(headline), allocation: 'bandit', ...change });

const refusals: { name: string; change: Partial<ExperienceDraft>; field: string; says: string }[] = [
  { name: 'no goal to decide by', change: { goals: [] }, field: 'bandit.metric', says: 'needs a goal' },
  { name: 'a decision metric that is not a goal', change: { banditMetric: 'signup' }, field: 'bandit.metric', says: '"signup" is not one of the experiment\'s goals (purchase, revenue)' },
  { name: 'exploration units that are not whole', change: { explorationUnits: '1.5' }, field: 'bandit.explorationUnits', says: 'whole number' },
  { name: 'negative exploration units', change: { explorationUnits: '-1' }, field: 'bandit.explorationUnits', says: 'whole number' },
  { name: 'negative exploration hours', change: { explorationHours: '-1' }, field: 'bandit.explorationHours', says: '0 or more' },
  { name: 'a cadence under 5 minutes', change: { cadenceMinutes: '4' }, field: 'bandit.cadenceMinutes', says: 'at least 5 minutes' },
  { name: 'a floor of 100%', change: { minShare: '100' }, field: 'bandit.minShare', says: 'under 100' },
  { name: 'a floor × arms over 100%', change: { minShare: '60' }, field: 'bandit.minShare', says: '60% × 2 variations is over 100%' },
];

describe('bandit draft', () => {
  it('starts a new experiment on fixed weights with the service\'s bandit defaults filled in', () => {
    expect(draftOf()).to.include({ allocation: 'fixed', banditMetric: '', explorationUnits: '0', explorationHours: '24', cadenceMinutes: '60', minShare: '1' });
  });

  for (const r of refusals) {
    it(`refuses ${r.name} at ${r.field}, and Save says so`, () => {
      const errors = draftErrors(bandit(r.change));
      expect(Object.keys(errors)).to.deep.equal([r.field]);
      expect(errors[r.field]).to.contain(r.says);
      expect(blockedReason(errors)).to.contain(r.says);
    });
  }

  it('refuses a ratio goal as the decision metric (its posterior would be a ratio of two estimates)', () => {
    const metrics = [{ name: 'purchase', type: 'binomial' }, { name: 'order-value', type: 'ratio' }];
    expect(draftErrors(bandit({ goals: ['order-value', 'purchase'] }), metrics)['bandit.metric']).to.contain('"order-value" is a ratio metric');
    expect(draftErrors(bandit({ goals: ['order-value', 'purchase'], banditMetric: 'purchase' }), metrics)).to.deep.equal({});
  });

  it('checks nothing of the bandit on fixed weights', () => {
    expect(banditErrors({ ...bandit({ cadenceMinutes: '1', goals: [] }), allocation: 'fixed' })).to.deep.equal({});
  });

  it('writes allocation bandit with only the settings off their defaults, and nothing of it for fixed weights', () => {
    expect(draftItem(bandit(), headline)).to.include({ allocation: 'bandit' }).and.not.have.property('bandit');
    const tuned = draftItem(bandit({ banditMetric: 'revenue', explorationHours: '0', explorationUnits: '500', cadenceMinutes: '60', minShare: '5' }), headline);
    expect(tuned.bandit).to.deep.equal({ metric: 'revenue', explorationHours: 0, explorationUnits: 500, minShare: 5 });
    const stored: Experience = { ...headline, allocation: 'bandit', bandit: { cadenceMinutes: 15 } };
    const fixed = draftItem({ ...draftOf(stored), allocation: 'fixed' }, stored);
    expect(fixed).to.not.have.any.keys('allocation', 'bandit');
  });

  it('reads a stored bandit back as it was written', () => {
    const stored: Experience = { ...headline, allocation: 'bandit', bandit: { metric: 'revenue', cadenceMinutes: 15, minShare: 2 } };
    const d = draftOf(stored);
    expect(d).to.include({ allocation: 'bandit', banditMetric: 'revenue', cadenceMinutes: '15', minShare: '2', explorationHours: '24' });
    expect(draftItem(d, stored)).to.deep.include({ allocation: 'bandit', bandit: { metric: 'revenue', cadenceMinutes: 15, minShare: 2 } });
  });

  it('splits 100 equally, to the hundredth, the remainder to the first', () => {
    expect(equalWeights(2)).to.deep.equal(['50', '50']);
    expect(equalWeights(3)).to.deep.equal(['33.34', '33.33', '33.33']);
    expect(equalWeights(7).reduce((sum, w) => sum + Number(w), 0)).to.be.closeTo(100, 1e-9);
  });

  // The service's messages as it words them (server/config/bandit-settings.ts), from an item and from the project check.
  const messages: [string, string | undefined][] = [
    ['experience.bandit.cadenceMinutes: must be at least 5 (minutes)', 'bandit.cadenceMinutes'],
    ['experience.bandit.minShare: 30 % × 4 variations is over 100 %', 'bandit.minShare'],
    ['organizations.acme.projects.shop.experiences[3].bandit.metric: "signup" is not one of the experiment\'s goals (purchase)', 'bandit.metric'],
    ['organizations.acme.projects.shop.experiences[3].goals: a bandit needs a goal to decide by (or bandit.metric naming one of its goals)', 'bandit.metric'],
    ['organizations.acme.projects.shop.experiences[3].goals: unknown metric "x"', undefined],
    ['experience.variations: weights must sum to 100', undefined],
  ];
  for (const [message, field] of messages) {
    it(`finds ${field ?? 'no bandit field'} in "${message.slice(0, 60)}…"`, () => {
      expect(serverFieldError(message)?.field).to.equal(field);
    });
  }
});
