// <svc-admin-bandit-weights>: a bandit's weights on its results page, from a results answer shaped as the service
// sends it (wire/results-answer.ts): before the first reweight, how long it explores; after, the chart of every arm,
// its text alternative (the table of reweights with each arm's chance of being best) and the stratification note.
import { expect, fixture, html } from '@open-wc/testing';
import type { ResultsAnswer, ResultsReweight } from '../wire/results-answer.js';
import { get, text } from './admin-test-helpers.js';
import { weightSteps } from './bandit-weights-chart.js';
import type { SvcAdminBanditWeights } from './bandit-weights.js';
import { defineAdmin } from './define-admin.js';
import type { Experience } from './experience.js';

defineAdmin();

/** A cell's text without the column name it shows on a phone. */
function cellText(cell: Element): string {
  const copy = cell.cloneNode(true) as Element;
  copy.querySelector('.cell-label')?.remove();
  return text(copy);
}

const START = '2026-11-02T09:00:00.000Z';
const ARMS = ['popular', 'personalized', 'bought-together'];

const experience: Experience = {
  name: 'strategies', version: 5, source: 'api', status: 'running', goals: ['purchase'], allocation: 'bandit',
  bandit: { explorationHours: 6, explorationUnits: 1000, cadenceMinutes: 60 },
  variations: ARMS.map((name, i) => ({ name, weight: [10, 80, 10][i]!, body: { feed: i + 1 } })),
};

const arm = (name: string, probabilityBest: number) => ({ name, units: 400, mean: 0.05, stddev: 0.01, probabilityBest });
const reweights: ResultsReweight[] = [
  { at: '2026-11-02T15:00:00.000Z', weights: { popular: 30, personalized: 50, 'bought-together': 20 }, reason: 'thompson',
    arms: [arm('popular', 0.21), arm('personalized', 0.64), arm('bought-together', 0.15)] },
  { at: '2026-11-02T16:00:00.000Z', weights: { popular: 10, personalized: 80, 'bought-together': 10 }, reason: 'thompson',
    arms: [arm('popular', 0.05), arm('personalized', 0.9), arm('bought-together', 0.05)] },
];

function answer(list: ResultsReweight[] | undefined, endedAt?: string): ResultsAnswer {
  return {
    experience: 'strategies', control: 'popular', phase: 1, units: 1200, multipleExposures: 0,
    phases: [{ phase: 1, startedAt: START, ...(endedAt ? { endedAt } : {}), weights: { popular: 33.34, personalized: 33.33, 'bought-together': 33.33 }, version: 1, reason: 'started' }],
    srm: { pValue: 0.5, mismatch: false }, analysis: { alpha: 0.05, interval: 'sequential', correction: 'none' },
    variations: ARMS.map((name) => ({ name, weight: 33.33, units: 400 })), metrics: [], ...(list ? { reweights: list } : {}),
  };
}

describe('<svc-admin-bandit-weights>', () => {
  it('before the first reweight, says it explores with equal weights until when, and how many units of how many', async () => {
    const el = await fixture<SvcAdminBanditWeights>(html`<svc-admin-bandit-weights .experience=${experience} .answer=${answer([])}></svc-admin-bandit-weights>`);
    expect(el.getAttribute('status')).to.equal('empty');
    const exploring = text(get(el, '.empty'));
    expect(exploring).to.match(/^Exploring: equal weights until .+ and at least 1,000 units \(1,200 so far\)\./);
    expect(exploring).to.contain('every 60 minutes');
    expect(text(get(el, '.settings'))).to.contain('Decides by purchase').and.contain('6 h and 1,000 units').and.contain('every 60 min');
    expect(get(el, '.note').textContent).to.contain('1 period');
    expect(el.shadowRoot!.querySelector('svg')).to.equal(null);
    await expect(el).to.be.accessible();
  });

  it('draws each arm\'s band and names it, tables every reweight with each arm\'s chance of being best, and says the analysis is stratified', async () => {
    const el = await fixture<SvcAdminBanditWeights>(html`<svc-admin-bandit-weights .experience=${experience}
      .answer=${answer(reweights, '2026-11-02T18:00:00.000Z')}></svc-admin-bandit-weights>`);
    expect(el.getAttribute('status')).to.equal('ready');
    const svg = get(el, 'svg[role="img"]');
    expect([...svg.querySelectorAll('path.band')].map((p) => p.getAttribute('data-arm'))).to.deep.equal(ARMS);
    // Three steps (start → 15:00 → 16:00 → end), one rectangle each per arm.
    expect(svg.querySelector('path[data-arm="personalized"]')!.getAttribute('d')!.match(/M/g)).to.have.length(3);
    expect(svg.getAttribute('aria-label')).to.contain('after 2 reweights').and.contain('popular 10%, personalized 80%, bought-together 10%');
    expect([...el.shadowRoot!.querySelectorAll('.legend li')].map((li) => text(li))).to.deep.equal(['popular 10%', 'personalized 80%', 'bought-together 10%']);

    const rows = [...el.shadowRoot!.querySelectorAll('table.reweights tbody tr')].map((tr) => [...tr.children].map(cellText));
    expect(rows.map((r) => r.slice(1))).to.deep.equal([
      ['Thompson sampling', '10%best 5%', '80%best 90%', '10%best 5%'],
      ['Thompson sampling', '30%best 21%', '50%best 64%', '20%best 15%'],
      ['phase 1 starts', '33.34%', '33.33%', '33.33%'],
    ]);
    expect([...el.shadowRoot!.querySelectorAll('table.reweights thead th')].map((th) => text(th))).to.deep.equal(['Time', 'Why', ...ARMS]);
    expect(text(get(el, '.note'))).to.contain('stratified by the 3 periods between reweights');
    // The console's Content-Security-Policy refuses style attributes: the chart places and colours nothing by one.
    expect(el.shadowRoot!.querySelectorAll('[style]')).to.have.length(0);
    await expect(el).to.be.accessible();
  });

  it('says of an earlier bandit phase of an experiment now on fixed weights that its settings are gone', async () => {
    const fixed: Experience = { ...experience, allocation: 'fixed', bandit: undefined };
    const el = await fixture<SvcAdminBanditWeights>(html`<svc-admin-bandit-weights .experience=${fixed} .answer=${answer(reweights)}></svc-admin-bandit-weights>`);
    expect(text(get(el, '.settings'))).to.equal('On fixed weights now; in this phase it was a bandit.');
    expect(el.shadowRoot!.querySelectorAll('path.band')).to.have.length(3);
  });

  it('cuts the weights into steps at each reweight, within the phase', () => {
    const start = Date.parse(START);
    const hour = 3_600_000;
    const steps = weightSteps(start, start + 9 * hour, { a: 50, b: 50 }, [
      { at: new Date(start - hour).toISOString(), weights: { a: 40, b: 60 }, arms: [] },
      { at: new Date(start + 6 * hour).toISOString(), weights: { a: 20, b: 80 }, arms: [] },
      { at: new Date(start + 10 * hour).toISOString(), weights: { a: 1, b: 99 }, arms: [] },
    ]);
    expect(steps.map((s) => [(s.from - start) / hour, (s.to - start) / hour, s.weights.a])).to.deep.equal([[0, 6, 40], [6, 9, 20]]);
  });
});
