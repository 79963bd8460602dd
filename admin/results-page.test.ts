// The console's results page against our running service (test/helpers/service-under-test.mjs): what it says above
// the results, and the breakdown by a profile attribute the reader names, which moves the page's address.
import { expect, fixture, html } from '@open-wc/testing';
import sinon from 'sinon';
import { defineResults } from '../plugins/results/index.js';
import type { ResultsAnswer } from '../wire/results-answer.js';
import type { AdminView } from './admin-events.js';
import { hashOf, viewOf } from './admin-routes.js';
import { fill, get, keyApi, text, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminResults } from './results-page.js';

defineResults();
defineAdmin();

describe('<svc-admin-results>', () => {
  it('says the status and phase of the results shown, and breaks them down by a profile attribute the reader names', async function () {
    this.timeout(20_000);
    const el = await fixture<SvcAdminResults>(html`<svc-admin-results experience="results-hero" .api=${await keyApi()}></svc-admin-results>`);
    await until(() => text(el.shadowRoot!.querySelector('.facts')).includes('Computed') && !text(el.shadowRoot!.querySelector('.facts')).includes('…'), 'the facts above the results');
    expect(text(get(el, '.facts'))).to.contain('running').and.contain('Phase').and.contain('1 of 1');
    const moved: AdminView[] = [];
    el.addEventListener('svc-admin:navigate', (e) => moved.push((e as CustomEvent<AdminView>).detail));
    fill(get<HTMLInputElement>(el, '#attribute'), ' plan ');
    get<HTMLButtonElement>(el, 'form.attribute button[type="submit"]').click();
    expect(moved).to.deep.equal([{ name: 'results', experience: 'results-hero', dimension: 'attribute:plan' }]);
    await expect(el).to.be.accessible();
  });

  it('offers All phases for an experiment with two, keeps it through the page\'s address and says it is on screen', async function () {
    this.timeout(20_000);
    const api = await keyApi();
    // Two phases are what the element's select needs: the answers are stubbed, shaped as the service sends them; the
    // experiment itself comes from the running service.
    const phases = [
      { phase: 1, startedAt: '2026-11-02T09:00:00.000Z', endedAt: '2026-11-26T10:15:00.000Z', weights: { control: 50, bold: 50 }, version: 3, reason: 'started' },
      { phase: 2, startedAt: '2026-11-26T10:15:00.000Z', weights: { control: 20, bold: 80 }, version: 4, reason: 'weights 50/50 → 20/80' },
    ];
    const answer = (all: boolean): ResultsAnswer => ({
      experience: 'results-hero', control: 'control', phase: 2, phases, units: all ? 80 : 40, multipleExposures: 0,
      ...(all ? { allPhases: { phases: 2, method: 'inverse-variance' as const } } : {}),
      srm: { pValue: 0.64, mismatch: false }, analysis: { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' },
      variations: [{ name: 'control', weight: 20, units: all ? 30 : 7 }, { name: 'bold', weight: 80, units: all ? 50 : 33 }],
      metrics: [],
    });
    const real = window.fetch.bind(window);
    const stub = sinon.stub(window, 'fetch').callsFake(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = new URL(String(input instanceof Request ? input.url : input), location.href);
      if (!url.pathname.endsWith('/results')) return real(input, init);
      return new Response(JSON.stringify(answer(url.searchParams.get('phase') === 'all')), { headers: { 'content-type': 'application/json' } });
    });
    try {
      const el = await fixture<SvcAdminResults>(html`<svc-admin-results experience="results-hero" .api=${api}></svc-admin-results>`);
      const results = await until(() => el.shadowRoot!.querySelector('svc-results'), 'the results element');
      const select = await until(() => results.shadowRoot!.querySelector<HTMLSelectElement>('[part="phase-select"] select'), 'the phase select');
      expect([...select.options].map((o) => o.textContent!.trim())).to.deep.equal(['All phases', 'Phase 1', 'Phase 2 (current)']);
      const moved: AdminView[] = [];
      el.addEventListener('svc-admin:navigate', (e) => moved.push((e as CustomEvent<AdminView>).detail));
      select.value = 'all';
      select.dispatchEvent(new Event('change'));
      expect(moved).to.deep.equal([{ name: 'results', experience: 'results-hero', phase: 'all' }]);
      // The console follows its address: the page is shown again with the view the address names.
      const view = viewOf(hashOf(moved[0]!));
      expect(view).to.deep.equal({ name: 'results', experience: 'results-hero', phase: 'all' });
      el.phase = view.name === 'results' ? view.phase : undefined;
      await until(() => text(el.shadowRoot!.querySelector('.facts')).includes('All 2 phases, combined'), 'the facts naming every phase');
      expect(results.getAttribute('phase')).to.equal('all');
      expect(new URL(String(stub.lastCall.args[0])).searchParams.get('phase')).to.equal('all');
      expect(results.shadowRoot!.querySelector<HTMLSelectElement>('[part="phase-select"] select')!.value).to.equal('all');
      await expect(el).to.be.accessible();
    } finally {
      stub.restore();
    }
  });
});
