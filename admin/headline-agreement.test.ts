// One story on the screen: the experience list's headline, its badge and the Ship dialog say "significant" or not in
// the words of the results table, by the experiment's own test. Against our running service (test/helpers/
// service-under-test.mjs): each test makes its experiment through the management API, exposes new profiles through
// Choose and makes some of them purchase, so that its primary goal is significant (fixed-horizon, 95% against 50%) or
// not (sequential, 33% against 25%, as in the 60 units).
import { expect, fixture, html } from '@open-wc/testing';
import { defineResults, type SvcResults } from '../plugins/results/index.js';
import { settled } from '../test/helpers/settled.js';
import { adminFetch, get, keyApi, shop, text, unique, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminExperiences } from './experience-list.js';

defineResults();
defineAdmin();

const API_KEY = 'srv1.s3cret';
const WRITE_AUTH = `Basic ${btoa('web1:p4ss')}`;

/** Exposes `count` new profiles to `name`; the `nth` unit of a variation purchases when `buys(variation, nth)`. */
async function seed(name: string, count: number, buys: (variation: string, nth: number) => boolean): Promise<void> {
  const seen: Record<string, number> = {};
  const orders: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const profileId = `${name}-${i}`;
    const sessionId = crypto.randomUUID();
    const response = await fetch(`${shop}/optimization/choose-api?apiKey=${API_KEY}`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identification: { sourceId: 'web', profileId }, names: [name], sessionId }),
    });
    expect(response.status, 'choose').to.equal(200);
    const variation = ((await response.json()) as { choices: { variation: string }[] }).choices[0]!.variation;
    const nth = (seen[variation] = (seen[variation] ?? 0) + 1);
    if (!buys(variation, nth)) continue;
    orders.push({
      eventId: crypto.randomUUID(), type: 'product', name: 'Product ordered', profileId, sessionId, pageId: crypto.randomUUID(),
      timestamp: new Date().toISOString(), data: { productId: 'p1', quantity: 1, price: 12.5 },
    });
  }
  const tracked = await fetch(`${shop}/sources/web/track`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: WRITE_AUTH },
    body: JSON.stringify({ batch: orders, sentAt: new Date().toISOString() }),
  });
  expect(tracked.status, 'track').to.equal(200);
}

async function experiment(prefix: string, settings: Record<string, unknown>): Promise<string> {
  const name = unique(prefix);
  const body = {
    ...settings, goals: ['purchase'],
    variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }],
  };
  expect((await adminFetch(`experiences/${name}`, { method: 'PUT', body: JSON.stringify(body) })).status).to.equal(201);
  return name;
}

/** The Significance cell of bold's row in the primary goal's table, as `<svc-results>` shows it. */
async function tableSays(name: string): Promise<string> {
  const el = await fixture<SvcResults>(html`<svc-results organization="acme" project="shop" experience=${name}></svc-results>`);
  el.apiKey = API_KEY;
  await settled(el);
  const table = el.shadowRoot!.querySelector<HTMLTableElement>('table[part="table"]')!;
  const column = [...table.tHead!.rows[0]!.cells].findIndex((c) => text(c) === 'Significance');
  const row = [...table.tBodies[0]!.rows].find((r) => text(r.cells[0]!).startsWith('bold'))!;
  return text(row.cells[column]!);
}

/** The list's row of `name` once its headline is read, and the Ship dialog opened from it with bold chosen. */
async function listAndShip(name: string): Promise<{ list: SvcAdminExperiences; headline: string; badge: string; dialog: string }> {
  const list = await fixture<SvcAdminExperiences>(html`<svc-admin-experiences .api=${await keyApi()}></svc-admin-experiences>`);
  const cell = await until(() => {
    const c = list.shadowRoot!.querySelector(`tr[data-name="${name}"] td.headline`);
    return c && /%/.test(text(c)) ? c : null;
  }, 'the headline');
  const badge = text(cell.querySelector('.verdict'));
  list.shadowRoot!.querySelector<HTMLButtonElement>(`tr[data-name="${name}"] button[data-action="ship"]`)!.click();
  const confirm = get(list, 'svc-admin-confirm');
  await until(() => confirm.shadowRoot!.querySelector('dialog[open]'), 'the Ship dialog');
  const bold = [...confirm.shadowRoot!.querySelectorAll<HTMLInputElement>('input[type="radio"]')].find((r) => r.value === 'bold')!;
  bold.click();
  await (confirm as unknown as { updateComplete: Promise<unknown> }).updateComplete;
  return { list, headline: text(cell), badge, dialog: text(get(confirm, '#what')) };
}

describe('the headline, badge and Ship dialog agree with the results table', () => {
  it('say Not significant where the sequential table does, and never a chance to win', async function () {
    this.timeout(30_000);
    const name = await experiment('agree-ns', { sequential: true });
    // 60 units: about 33% of bold's purchase against 25% of the control's.
    await seed(name, 60, (v, nth) => (v === 'bold' ? nth % 3 === 0 : nth % 4 === 0));
    const table = await tableSays(name);
    expect(table).to.equal('Not significant');
    const { list, headline, badge, dialog } = await listAndShip(name);
    expect(headline).to.match(/bold \+[\d.]+% · Not significant/);
    expect(headline).to.not.contain('to win');
    expect(badge).to.contain(table);
    expect(dialog).to.match(/On purchase \(primary goal\), 'bold' is \+[\d.]+% against 'control': Not significant\./);
    await expect(list).to.be.accessible();
  });

  it('say Significantly better where the fixed-horizon table does', async function () {
    this.timeout(30_000);
    const name = await experiment('agree-sig', {});
    // 80 units: 95% of bold's purchase against 50% of the control's.
    await seed(name, 80, (v, nth) => (v === 'bold' ? nth % 20 !== 0 : nth % 2 === 0));
    const table = await tableSays(name);
    expect(table).to.equal('Significantly better');
    const { list, headline, badge, dialog } = await listAndShip(name);
    expect(headline).to.match(/bold \+[\d.]+% · Significantly better/);
    expect(badge).to.contain(table);
    expect(dialog).to.contain(`against 'control': ${table}.`);
    await expect(list).to.be.accessible();
  });
});
