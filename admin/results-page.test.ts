// The console's results page against our running service (test/helpers/service-under-test.mjs): what it says above
// the results, and the breakdown by a profile attribute the reader names, which moves the page's address.
import { expect, fixture, html } from '@open-wc/testing';
import { defineResults } from '../plugins/results/index.js';
import type { AdminView } from './admin-events.js';
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
});
