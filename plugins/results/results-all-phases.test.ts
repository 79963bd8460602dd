// <svc-results> on the whole experiment: the phase select offers "All phases", asks the service for `phase=all`, and
// the header says the answer covers every phase and how they were combined; phases show their time, and a guardrail's
// row its harm test. The answers are stubbed at fetch, shaped as the service sends them (wire/results-answer.ts).
import { expect, fixture, html } from '@open-wc/testing';
import sinon from 'sinon';
import type { ResultsAnswer, SvcResults, VariationStats } from './index.js';
import { defineResults } from './index.js';
import { settled } from '../../test/helpers/settled.js';

defineResults();

const PHASES = [
  { phase: 1, startedAt: '2026-11-02T09:00:00.000Z', endedAt: '2026-11-26T10:15:00.000Z', weights: { control: 50, bold: 50 }, version: 3, reason: 'started' },
  { phase: 2, startedAt: '2026-11-26T10:15:00.000Z', weights: { control: 20, bold: 80 }, version: 4, reason: 'weights 50/50 → 20/80' },
];

const bold = (over: Partial<VariationStats> = {}): VariationStats => ({
  name: 'bold', units: 50, total: 29, mean: 0.58, stddev: 0.49, uplift: 0.63, ci: [-0.17, 1.42], pValue: 0.12, significant: false,
  absolute: { effect: 0.312, ci: [0.101, 0.523], pValue: 0.0037, significant: true }, ...over,
});

function answer(all: boolean): ResultsAnswer {
  return {
    experience: 'hero', control: 'control', phase: 2, phases: PHASES, units: all ? 80 : 40, multipleExposures: 0,
    ...(all ? { allPhases: { phases: 2, method: 'inverse-variance' as const } } : {}),
    srm: { pValue: 0.64, mismatch: false }, analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' },
    variations: [{ name: 'control', weight: 20, units: all ? 30 : 7 }, { name: 'bold', weight: 80, units: all ? 50 : 33 }],
    metrics: [
      { name: 'purchase', type: 'binomial', role: 'goal', inverse: false, cupedApplied: false, variations: [{ name: 'control', units: 30, total: 12, mean: 0.4, stddev: 0.49 }, bold()] },
      { name: 'errors', type: 'binomial', role: 'guardrail', inverse: true, cupedApplied: false, variations: [{ name: 'control', units: 30, total: 3, mean: 0.1, stddev: 0.3 }, bold({ harm: { pValue: 0.41, harmed: false, pValueAdjusted: 0.41, stops: false } })] },
    ],
  };
}

describe('<svc-results> over all phases', () => {
  afterEach(() => sinon.restore());

  it('offers All phases, asks for phase=all and says the answer combines every phase', async () => {
    const stub = sinon.stub(window, 'fetch').callsFake(async (input: RequestInfo | URL) => {
      const all = new URL(String(input)).searchParams.get('phase') === 'all';
      return new Response(JSON.stringify(answer(all)), { headers: { 'content-type': 'application/json' } });
    });
    const el = await fixture<SvcResults>(html`<svc-results organization="acme" project="shop" experience="hero" lang="en-GB"></svc-results>`);
    el.apiKey = 'srv1.s3cret';
    await settled(el);
    const select = el.shadowRoot!.querySelector<HTMLSelectElement>('[part="phase-select"] select')!;
    expect([...select.options].map((o) => o.textContent!.trim())).to.deep.equal(['All phases', 'Phase 1', 'Phase 2 (current)']);
    select.value = 'all';
    select.dispatchEvent(new Event('change'));
    await until(() => el.shadowRoot!.querySelector('[part~="phase"]')?.textContent?.includes('All 2 phases'));
    expect(new URL(String(stub.lastCall.args[0])).searchParams.get('phase')).to.equal('all');
    const line = el.shadowRoot!.querySelector('[part~="phase"]')!.textContent!;
    expect(line).to.contain('combined by inverse-variance weights');
    // The time a phase began, not only its day.
    expect(line).to.match(/2 Nov 2026, 0?9:00|2 Nov 2026, \d{1,2}:00/);
    expect(el.shadowRoot!.querySelector('[part="no-harm"]')!.textContent).to.contain('not enough harm to stop the experiment (stop test p = 0.4100, adjusted 0.4100)');
    await expect(el).to.be.accessible();
  });
});

async function until(condition: () => boolean | undefined): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!condition()) throw new Error('gave up waiting');
}
