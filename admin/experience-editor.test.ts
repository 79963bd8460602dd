// <svc-admin-editor> against our running service, on a phone: what an experiment is judged by stays readable.
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import { ADMIN_KEY, adminFetch, find, keyApi, shop, unique, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminEditor } from './experience-editor.js';

defineAdmin();

/** The width `text` takes in `el`'s font. */
function textWidth(el: HTMLElement, text: string): number {
  const context = document.createElement('canvas').getContext('2d')!;
  context.font = getComputedStyle(el).font;
  return context.measureText(text).width;
}

describe('<svc-admin-editor> on a phone', () => {
  const metric = unique('checkout-completed-within-the-same-session');

  before(async () => {
    const res = await adminFetch(`metrics/${metric}`, { method: 'PUT', body: JSON.stringify({ name: metric, type: 'binomial', event: 'Product ordered' }) });
    expect(res.status).to.equal(201);
  });
  after(async () => {
    await fetch(`${shop}/metrics/${metric}`, { method: 'DELETE', headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
    await setViewport({ width: 800, height: 600 });
  });

  it('shows each metric\'s whole part ("Not used", "Guardrail") at 390 px, beside a long metric name', async () => {
    await setViewport({ width: 390, height: 800 });
    const el = await fixture<SvcAdminEditor>(html`<svc-admin-editor .api=${await keyApi()} experience="results-hero"></svc-admin-editor>`);
    const select = await until(() => el.status === 'ready' && find<HTMLSelectElement>(el, `select[data-metric="${metric}"]`), 'the part of the long-named metric');
    const { paddingLeft, paddingRight } = getComputedStyle(select);
    const room = select.clientWidth - parseFloat(paddingLeft) - parseFloat(paddingRight);
    for (const option of ['Not used', 'Secondary', 'Guardrail']) expect(room, option).to.be.above(textWidth(select, option));
    expect(document.documentElement.scrollWidth).to.be.at.most(390);
  });
});
