// <svc-admin-editor> for bandits and strategies against each other, against our running service
// (test/helpers/service-under-test.mjs): project shop has the metric purchase; project recs has feeds 1 (popular) and
// 2 (personalized) and a recommendations holdout, hence the holdout's metrics. Every experience made here has a name
// of its own and is deleted after.
import { expect, fixture, html } from '@open-wc/testing';
import sinon from 'sinon';
import { ADMIN_KEY, acme, fill, find, get, keyApi, text, unique, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import type { Experience } from './experience.js';
import type { SvcAdminEditor } from './experience-editor.js';

defineAdmin();

const made: string[] = [];
const projectFetch = (project: string, path: string, init: RequestInit = {}) =>
  fetch(`${acme}/projects/${project}/${path}`, { ...init, headers: { Authorization: `Bearer ${ADMIN_KEY}`, ...init.headers } });

async function newEditor(project = 'shop'): Promise<SvcAdminEditor> {
  const el = await fixture<SvcAdminEditor>(html`<svc-admin-editor .api=${await keyApi(ADMIN_KEY, project)}></svc-admin-editor>`);
  return until(() => (el.status === 'ready' ? el : null), 'the editor');
}

function choose(el: SvcAdminEditor, name: string, value: string): void {
  [...el.shadowRoot!.querySelectorAll<HTMLInputElement>(`input[name="${name}"]`)].find((r) => r.value === value)!.click();
}

function pick(select: HTMLSelectElement, value: string): void {
  select.value = value;
  select.dispatchEvent(new Event('change'));
}

const weights = (el: SvcAdminEditor) => [...el.shadowRoot!.querySelectorAll<HTMLInputElement>('.v-weight input')];

/** Clicks Save and answers the experience as the service stored it, once the editor has moved on (the save is done). */
async function saved(el: SvcAdminEditor, project: string, name: string): Promise<Experience> {
  let done = false;
  el.addEventListener('svc-admin:navigate', () => (done = true), { once: true });
  get<HTMLButtonElement>(el, 'button[type="submit"]').click();
  const refused = await until(() => (done ? 'saved' : find(el, '.form-actions [role="alert"]')), 'the save');
  expect(refused === 'saved' ? '' : text(refused), 'the service\'s refusal').to.equal('');
  const res = await projectFetch(project, `experiences/${name}`);
  expect(res.status).to.equal(200);
  return res.json() as Promise<Experience>;
}

describe('<svc-admin-editor> for a bandit', () => {
  afterEach(async () => {
    for (const [project, name] of made.splice(0).map((m) => m.split('/') as [string, string])) {
      await projectFetch(project, `experiences/${name}`, { method: 'DELETE' });
    }
  });

  it('starts a bandit with equal, read-only weights, says what the service would refuse at the field, and creates it', async function () {
    this.timeout(30_000);
    const name = unique('bandit-editor');
    made.push(`shop/${name}`);
    const el = await newEditor();
    const save = get<HTMLButtonElement>(el, 'button[type="submit"]');
    fill(get<HTMLInputElement>(el, '#name'), name);
    fill(weights(el)[0]!, '70');
    fill(weights(el)[1]!, '30');
    choose(el, 'allocation', 'bandit');
    await el.updateComplete;
    expect(weights(el).map((w) => [w.value, w.readOnly])).to.deep.equal([['50', true], ['50', true]]);
    expect(text(get(el, '#weights'))).to.contain('Set by the bandit');
    expect([...el.shadowRoot!.querySelectorAll('.weights-row button')].map((b) => text(b))).to.deep.equal(['Add variation']);

    // No goal yet: nothing to decide by.
    expect(text(get(el, '#bandit-metric-error'))).to.contain('needs a goal');
    expect(save.disabled).to.equal(true);
    pick(get<HTMLSelectElement>(el, 'select[data-metric="purchase"]'), 'goal');
    await el.updateComplete;
    expect(get<HTMLSelectElement>(el, '#bandit-metric').value).to.equal('purchase');
    expect(find(el, '#bandit-metric-error')).to.equal(null);

    fill(get<HTMLInputElement>(el, '#bandit-cadenceMinutes'), '4');
    await el.updateComplete;
    expect(get(el, '#bandit-cadenceMinutes').getAttribute('aria-invalid')).to.equal('true');
    expect(get(el, '#bandit-cadenceMinutes').getAttribute('aria-describedby')).to.contain('bandit-cadenceMinutes-error');
    expect(text(get(el, '#bandit-cadenceMinutes-error'))).to.equal('Enter at least 5 minutes.');
    expect(save.disabled).to.equal(true);
    expect(text(get(el, '#blocked'))).to.equal('Save is off: Enter at least 5 minutes.');
    fill(get<HTMLInputElement>(el, '#bandit-cadenceMinutes'), '15');

    // A third arm: the bandit splits again, equally.
    get<HTMLButtonElement>(el, '.weights-row button').click();
    await el.updateComplete;
    fill(el.shadowRoot!.querySelectorAll<HTMLInputElement>('.v-name input')[2]!, 'calm');
    await el.updateComplete;
    expect(weights(el).map((w) => w.value)).to.deep.equal(['33.34', '33.33', '33.33']);
    await expect(el).to.be.accessible();
    expect(save.disabled).to.equal(false);

    const item = await saved(el, 'shop', name);
    expect(item).to.deep.include({ allocation: 'bandit', bandit: { cadenceMinutes: 15 }, goals: ['purchase'], status: 'draft' });
    expect(item.variations!.map((v) => v.weight)).to.deep.equal([33.34, 33.33, 33.33]);
  });

  it('shows the service\'s refusal at the bandit field it names, until that field changes', async function () {
    this.timeout(30_000);
    const el = await newEditor();
    fill(get<HTMLInputElement>(el, '#name'), unique('bandit-refused'));
    choose(el, 'allocation', 'bandit');
    pick(get<HTMLSelectElement>(el, 'select[data-metric="purchase"]'), 'goal');
    await el.updateComplete;
    // The form checks what the service checks, so the refusal is stubbed, worded as the service words it.
    const message = 'experience.bandit.cadenceMinutes: must be at least 5 (minutes)';
    const real = window.fetch.bind(window);
    const stub = sinon.stub(window, 'fetch').callsFake(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (init?.method !== 'PUT') return real(input, init);
      return new Response(JSON.stringify({ error: { code: 'invalid_config', message } }), { status: 400, headers: { 'content-type': 'application/json' } });
    });
    try {
      get<HTMLButtonElement>(el, 'button[type="submit"]').click();
      const error = await until(() => find(el, '#bandit-cadenceMinutes-error'), 'the message at the cadence');
      expect(text(error)).to.equal('must be at least 5 (minutes)');
      expect(get(el, '#bandit-cadenceMinutes').getAttribute('aria-invalid')).to.equal('true');
      expect(text(get(el, '.form-actions [role="alert"]'))).to.contain(message);
      fill(get<HTMLInputElement>(el, '#bandit-explorationHours'), '2');
      await el.updateComplete;
      expect(find(el, '#bandit-cadenceMinutes-error'), 'another field changed').not.to.equal(null);
      fill(get<HTMLInputElement>(el, '#bandit-cadenceMinutes'), '30');
      await el.updateComplete;
      expect(find(el, '#bandit-cadenceMinutes-error')).to.equal(null);
    } finally {
      stub.restore();
    }
  });

  it('picks feeds as arms, named by strategy, judged by the holdout\'s revenue, and runs them as a bandit', async function () {
    this.timeout(30_000);
    const name = unique('feeds-bandit');
    made.push(`recs/${name}`);
    const el = await newEditor('recs');
    fill(get<HTMLInputElement>(el, '#name'), name);
    choose(el, 'arms', 'feed');
    await el.updateComplete;
    const feeds = [...el.shadowRoot!.querySelectorAll<HTMLSelectElement>('select.v-feed')];
    expect(feeds.map((s) => s.value)).to.deep.equal(['1', '2']);
    expect([...el.shadowRoot!.querySelectorAll<HTMLInputElement>('.v-name input')].map((i) => i.value)).to.deep.equal(['popular', 'personalized']);
    expect(get<HTMLSelectElement>(el, 'select[data-metric="recommendations-revenue"]').value).to.equal('goal');
    expect(get<HTMLSelectElement>(el, '#primary-goal').value).to.equal('recommendations-revenue');
    expect(get<HTMLSelectElement>(el, 'select[data-metric="purchase"]').value, 'the project\'s own metric').to.equal('');

    // A third arm takes the feed no arm uses yet, or the first when all are used.
    get<HTMLButtonElement>(el, '.weights-row button').click();
    await el.updateComplete;
    expect(get<HTMLSelectElement>(el, 'tbody tr:nth-child(3) select.v-feed').value).to.equal('1');
    get<HTMLButtonElement>(el, 'tbody tr:nth-child(3) .v-remove button').click();
    choose(el, 'allocation', 'bandit');
    await el.updateComplete;
    expect(get<HTMLSelectElement>(el, '#bandit-metric').value).to.equal('recommendations-revenue');
    await expect(el).to.be.accessible();

    const item = await saved(el, 'recs', name);
    expect(item.variations!.map((v) => [v.name, v.weight, v.body])).to.deep.equal([['popular', 50, { feed: 1 }], ['personalized', 50, { feed: 2 }]]);
    expect(item.goals).to.deep.equal(['recommendations-revenue', 'recommendations-orders', 'recommendations-order-value']);
    expect(item.allocation).to.equal('bandit');

    // Opened again, it reads as feeds.
    const again = await fixture<SvcAdminEditor>(html`<svc-admin-editor .api=${await keyApi(ADMIN_KEY, 'recs')} experience=${name}></svc-admin-editor>`);
    await until(() => again.status === 'ready', 'the editor of the saved experiment');
    expect(get<HTMLInputElement>(again, 'input[name="arms"][value="feed"]').checked).to.equal(true);
    expect([...again.shadowRoot!.querySelectorAll<HTMLSelectElement>('select.v-feed')].map((s) => s.value)).to.deep.equal(['1', '2']);
    expect(get<HTMLInputElement>(again, 'input[name="allocation"][value="bandit"]').checked).to.equal(true);
  });

  it('keeps an experiment on fixed weights writing no allocation (unchanged for existing experiments)', async function () {
    this.timeout(30_000);
    const name = unique('fixed-editor');
    made.push(`shop/${name}`);
    const el = await newEditor();
    fill(get<HTMLInputElement>(el, '#name'), name);
    await el.updateComplete;
    expect(get<HTMLInputElement>(el, 'input[name="allocation"][value="fixed"]').checked).to.equal(true);
    expect(find(el, '#bandit-metric')).to.equal(null);
    expect(weights(el).every((w) => !w.readOnly)).to.equal(true);
    const item = await saved(el, 'shop', name);
    expect(item).not.to.have.any.keys('allocation', 'bandit');
  });
});
