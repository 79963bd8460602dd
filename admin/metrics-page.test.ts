// <svc-admin-metrics> against our running service (test/helpers/service-under-test.mjs): project acme/shop has the
// file metrics purchase (binomial), orders (count) and revenue (sum of price), all on "Product ordered". The service
// outlives this file, so every metric and experiment made here has a name of its own, made by the test that uses it.
// Then the form's logic as data: what it refuses before sending, and the item it sends.
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import { ADMIN_KEY, adminFetch, fill, find, get, keyApi, shop, text, unique, until } from './admin-test-helpers.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { defineAdmin } from './define-admin.js';
import { capText, metricItemOf, type Metric, type MetricItem } from './metric.js';
import { metricDraftErrors, metricDraftItem, metricDraftOf, type MetricDraft, type MetricField } from './metric-form.js';
import type { SvcAdminMetrics } from './metrics-page.js';

defineAdmin();

const made = { experiences: [] as string[], metrics: [] as string[] };

/** DELETE without a body (adminFetch's JSON content type would make it `invalid_json`). */
const remove = (path: string): Promise<Response> => fetch(`${shop}/${path}`, { method: 'DELETE', headers: { Authorization: `Bearer ${ADMIN_KEY}` } });

async function putMetric(item: MetricItem, version?: number): Promise<Metric> {
  const res = await adminFetch(`metrics/${encodeURIComponent(item.name)}`, {
    method: 'PUT', body: JSON.stringify(item), headers: version === undefined ? {} : { 'If-Match': `"${version}"` },
  });
  expect(res.status, await res.clone().text()).to.be.oneOf([200, 201]);
  return res.json() as Promise<Metric>;
}

/** A metric of the test's own, stored through the API (not the page). */
async function metricOfItsOwn(prefix: string, item: Partial<MetricItem> = {}): Promise<string> {
  const name = unique(prefix);
  made.metrics.push(name);
  await putMetric({ name, type: 'binomial', event: 'Signed up', ...item });
  return name;
}

async function page(): Promise<SvcAdminMetrics> {
  const api = await keyApi();
  const el = await fixture<SvcAdminMetrics>(html`<svc-admin-metrics .api=${api}></svc-admin-metrics>`);
  return until(() => el.status === 'ready' && el, 'the metric list');
}

const row = (el: SvcAdminMetrics, name: string, holds: (r: HTMLElement) => boolean = () => true) => until(() => {
  const r = find(el, `tr[data-name="${CSS.escape(name)}"]`);
  return r && holds(r) ? r : null;
}, `the row of ${name}`);

/** A cell's value, without the column's name it shows on a phone. */
function cell(r: HTMLElement, column: string): string {
  const td = [...r.querySelectorAll('td')].find((c) => text(c.querySelector('.cell-label')) === column);
  if (!td) throw new Error(`no column ${column}`);
  return text(td).slice(column.length).trim();
}

/** Opens the form from the list (New metric, or a row's Edit) and waits for it. */
async function openForm(el: SvcAdminMetrics, name?: string): Promise<HTMLFormElement> {
  const button = name ? (await row(el, name)).querySelector<HTMLButtonElement>('button[data-action="edit"]')! : get<HTMLButtonElement>(el, '.toolbar button.primary');
  button.click();
  return until(() => el.status === 'ready' && find<HTMLFormElement>(el, 'form'), 'the form');
}

async function choose(el: SvcAdminMetrics, selector: string): Promise<void> {
  get<HTMLInputElement>(el, selector).click();
  await el.updateComplete;
}

const field = <T extends HTMLElement = HTMLInputElement>(el: SvcAdminMetrics, id: string) => get<T>(el, `#${id}`);
const submit = (el: SvcAdminMetrics) => get<HTMLButtonElement>(el, 'button[type="submit"]').click();

/** The notices the page sends up (to <svc-admin>'s status region). */
function notices(el: SvcAdminMetrics): string[] {
  const seen: string[] = [];
  el.addEventListener('svc-admin:notice', (e) => seen.push(e.detail));
  return seen;
}

describe('<svc-admin-metrics>', () => {
  after(async () => {
    for (const name of made.experiences) await remove(`experiences/${encodeURIComponent(name)}`);
    for (const name of made.metrics) await remove(`metrics/${encodeURIComponent(name)}`);
  });

  afterEach(() => setViewport({ width: 800, height: 600 }));

  it('lists the file metrics: type, what they count, source and version, in a table that scrolls at 390 px', async () => {
    const el = await page();
    expect(text(get(el, 'h1'))).to.equal('Metrics');
    const purchase = await row(el, 'purchase');
    expect([cell(purchase, 'Type'), cell(purchase, 'Counts'), cell(purchase, 'Source')]).to.deep.equal(['binomial', 'Product ordered', 'file']);
    expect(cell(await row(el, 'revenue'), 'Counts')).to.equal('Product ordered sum of price');
    expect(cell(await row(el, 'orders'), 'Version')).to.equal('1');
    const region = get(el, '.table-scroll');
    expect(region.getAttribute('role')).to.equal('region');
    expect(region.tabIndex).to.equal(0);
    await expect(el).to.be.accessible();
    await setViewport({ width: 390, height: 800 });
    expect(document.documentElement.scrollWidth, 'the page does not scroll sideways').to.be.at.most(390);
  });

  it('opens the new-metric form when its address names it (creating), and says so up when New metric or Cancel is pressed', async () => {
    const api = await keyApi();
    const el = await fixture<SvcAdminMetrics>(html`<svc-admin-metrics .api=${api} creating></svc-admin-metrics>`);
    await until(() => el.status === 'ready' && find(el, 'form'), 'the form');
    expect(text(get(el, 'h1'))).to.equal('New metric');
    const addresses: unknown[] = [];
    el.addEventListener('svc-admin:navigate', (e) => addresses.push(e.detail));
    [...el.shadowRoot!.querySelectorAll<HTMLButtonElement>('.form-actions button')].find((b) => text(b) === 'Cancel')!.click();
    await until(() => el.status === 'ready' && find(el, 'table'), 'the list');
    await openForm(el);
    expect(addresses).to.deep.equal([{ name: 'metrics' }, { name: 'metrics', new: true }]);
    el.creating = false;
    await until(() => find(el, 'table'), 'the list again, the address having left the form');
  });

  it('creates a sum metric from the form; it is listed as version 1 from the API and stored as typed', async () => {
    const name = unique('metrics-sum');
    made.metrics.push(name);
    const el = await page();
    const said = notices(el);
    await openForm(el);
    await until(() => el.shadowRoot!.activeElement?.matches('h1'), 'the focus on the form\'s heading');
    expect(text(get(el, 'h1'))).to.equal('New metric');
    fill(field(el, 'name'), name);
    await choose(el, 'input[name="type"][value="sum"]');
    fill(field(el, 'event'), 'Product ordered');
    fill(field(el, 'value'), 'price');
    fill(field<HTMLTextAreaElement>(el, 'where'), '{"currency": "EUR"}');
    fill(field(el, 'windowHours'), '72');
    await choose(el, 'input[name="cap"][value="absolute"]');
    fill(field(el, 'capValue'), '500');
    await el.updateComplete;
    await expect(el).to.be.accessible();
    submit(el);
    const created = await row(el, name);
    expect(['Type', 'Counts', 'Window', 'Cap', 'Source', 'Version'].map((column) => cell(created, column))).to.deep.equal([
      'sum', 'Product ordered sum of price where {"currency":"EUR"}', '72 h', 'at 500', 'api', '1',
    ]);
    expect(said).to.deep.equal([`Metric '${name}' saved (version 1).`]);
    const stored = metricItemOf(await (await adminFetch(`metrics/${name}`)).json() as Metric);
    expect(stored).to.deep.equal({
      name, type: 'sum', event: 'Product ordered', value: 'price', where: { currency: 'EUR' }, windowHours: 72, cap: { type: 'absolute', value: 500 },
    });
  });

  it('creates a ratio of two metrics chosen among the project\'s metrics that are not ratios', async () => {
    const name = unique('metrics-ratio');
    made.metrics.unshift(name);
    const el = await page();
    await openForm(el);
    fill(field(el, 'name'), name);
    await choose(el, 'input[name="type"][value="ratio"]');
    expect(find(el, '#event'), 'a ratio counts no event').to.equal(null);
    const numerator = field<HTMLSelectElement>(el, 'numerator');
    const offered = [...numerator.options].map((o) => o.value);
    expect(offered).to.include.members(['', 'purchase', 'orders', 'revenue']);
    const ratios = el.metrics.filter((m) => m.type === 'ratio').map((m) => m.name);
    expect(offered.filter((o) => ratios.includes(o))).to.deep.equal([]);
    await expect(el).to.be.accessible();
    for (const [id, value] of [['numerator', 'revenue'], ['denominator', 'orders']] as const) {
      const select = field<HTMLSelectElement>(el, id);
      select.value = value;
      select.dispatchEvent(new Event('change'));
    }
    submit(el);
    expect(cell(await row(el, name), 'Counts')).to.equal('revenue ÷ orders');
    const stored = metricItemOf(await (await adminFetch(`metrics/${name}`)).json() as Metric);
    expect(stored).to.deep.equal({ name, type: 'ratio', numerator: 'revenue', denominator: 'orders' });
  });

  it('refuses a where that is not JSON on that field, and sends nothing', async () => {
    const name = unique('metrics-where');
    const el = await page();
    await openForm(el);
    fill(field(el, 'name'), name);
    fill(field(el, 'event'), 'Product ordered');
    const where = field<HTMLTextAreaElement>(el, 'where');
    fill(where, '{"plan": ');
    await el.updateComplete;
    expect(text(get(el, '#where-error'))).to.contain('Not valid JSON');
    expect(where.getAttribute('aria-invalid')).to.equal('true');
    expect(where.getAttribute('aria-describedby')).to.equal('where-hint where-error');
    submit(el);
    await until(() => el.shadowRoot!.activeElement === where, 'the focus on the where field');
    expect((await adminFetch(`metrics/${name}`)).status).to.equal(404);
  });

  it('says which required fields are missing once Save is pressed, and focuses the first', async () => {
    const el = await page();
    await openForm(el);
    expect(find(el, '.field-error'), 'no error before a save is tried').to.equal(null);
    submit(el);
    await until(() => el.shadowRoot!.activeElement?.id === 'name', 'the focus on the name');
    expect(text(get(el, '#name-error'))).to.equal('Enter a name.');
    expect(text(get(el, '#event-error'))).to.equal('Enter the name of the event to count.');
    await expect(el).to.be.accessible();
  });

  it('shows the service\'s invalid_config message next to the form and stays on it', async () => {
    const name = unique('metrics-refused');
    const item = { name, type: 'count', event: 'Product ordered', cap: { type: 'percentile', value: 1.5 } };
    const refused = await (await adminFetch(`metrics/${name}`, { method: 'PUT', body: JSON.stringify(item) })).json() as { error: { code: string; message: string } };
    expect(refused.error.code).to.equal('invalid_config');
    const el = await page();
    await openForm(el);
    fill(field(el, 'name'), name);
    await choose(el, 'input[name="type"][value="count"]');
    fill(field(el, 'event'), 'Product ordered');
    await choose(el, 'input[name="cap"][value="percentile"]');
    fill(field(el, 'capValue'), '1.5');
    submit(el);
    const alert = await until(() => find(el, '.form-actions [role="alert"]'), 'the refusal');
    expect(text(alert)).to.contain('Not saved').and.contain(refused.error.message);
    expect(refused.error.message).to.contain('metric.cap.value');
    expect(el.shadowRoot!.activeElement).to.equal(alert);
    expect(find(el, 'form'), 'the form stays').not.to.equal(null);
  });

  it('says by the name field that a metric of that name but for its case exists, naming it', async () => {
    const name = await metricOfItsOwn('metrics-case');
    const el = await page();
    await openForm(el);
    fill(field(el, 'name'), name.toUpperCase());
    await choose(el, 'input[name="type"][value="count"]');
    fill(field(el, 'event'), 'Product ordered');
    submit(el);
    await until(() => el.shadowRoot!.activeElement?.id === 'name', 'the focus on the name');
    expect(text(get(el, '#name-error'))).to.contain(`There is a metric "${name}" already`);
    expect(field(el, 'name').getAttribute('aria-describedby')).to.contain('name-error');
    expect(find(el, '.form-actions [role="alert"]')).to.equal(null);
    await expect(el).to.be.accessible();
    fill(field(el, 'name'), `${name}-2`);
    await el.updateComplete;
    expect(find(el, '#name-error'), 'a new name clears it').to.equal(null);
  });

  it('says someone else changed the metric when its version is stale, and loads theirs on request', async () => {
    const name = await metricOfItsOwn('metrics-stale');
    const el = await page();
    await openForm(el, name);
    expect(field(el, 'name').readOnly).to.equal(true);
    expect(text(get(el, '#name-hint'))).to.contain('Version 1');
    await putMetric({ name, type: 'binomial', event: 'Signed up', windowHours: 24 }, 1);
    await choose(el, '#inverse');
    submit(el);
    const alert = await until(() => find(el, '.form-actions [role="alert"]'), 'the conflict');
    expect(text(alert)).to.contain(`Someone else changed '${name}' since you opened it`);
    [...alert.querySelectorAll('button')].find((b) => text(b) === 'Load their version')!.click();
    await until(() => el.status === 'ready' && find(el, 'form') && text(find(el, '#name-hint')).includes('Version 2'), 'their version');
    expect(field(el, 'windowHours').value).to.equal('24');
    expect(field(el, 'inverse').checked, 'what was typed is discarded').to.equal(false);
    submit(el);
    await row(el, name, (r) => cell(r, 'Version') === '3' && cell(r, 'Window') === '24 h');
  });

  it('deletes a metric after a confirmation; Cancel keeps it', async () => {
    const name = await metricOfItsOwn('metrics-delete');
    const el = await page();
    const said = notices(el);
    const dialog = get<SvcAdminConfirm>(el, 'svc-admin-confirm');
    (await row(el, name)).querySelector<HTMLButtonElement>('button[data-action="delete"]')!.click();
    let open = await until(() => find<HTMLDialogElement>(dialog, 'dialog[open]'), 'the confirmation');
    expect(text(open.querySelector('h2'))).to.equal(`Delete metric '${name}'?`);
    get<HTMLButtonElement>(dialog, 'button[value="cancel"]').click();
    await until(() => !open.open, 'the dialog to close');
    expect((await adminFetch(`metrics/${name}`)).status).to.equal(200);
    (await row(el, name)).querySelector<HTMLButtonElement>('button[data-action="delete"]')!.click();
    open = await until(() => find<HTMLDialogElement>(dialog, 'dialog[open]'), 'the confirmation');
    get<HTMLButtonElement>(dialog, 'button[value="confirm"]').click();
    await until(() => !find(el, `tr[data-name="${CSS.escape(name)}"]`), 'the row to go');
    expect(said).to.deep.equal([`Metric '${name}' deleted.`]);
    expect((await adminFetch(`metrics/${name}`)).status).to.equal(404);
  });

  it('keeps a metric an experiment is judged by, with the service\'s item_in_use message', async () => {
    const name = await metricOfItsOwn('metrics-in-use');
    const experiment = unique('metrics-judged');
    made.experiences.unshift(experiment);
    const put = await adminFetch(`experiences/${experiment}`, {
      method: 'PUT',
      body: JSON.stringify({
        name: experiment, status: 'draft', goals: [name],
        variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }],
      }),
    });
    expect(put.status, await put.clone().text()).to.equal(201);
    // What the service says when asked directly (and a refused delete deletes nothing).
    const refused = await (await remove(`metrics/${name}`)).json() as { error: { code: string; message: string } };
    expect(refused.error.code).to.equal('item_in_use');
    const el = await page();
    (await row(el, name)).querySelector<HTMLButtonElement>('button[data-action="delete"]')!.click();
    const dialog = get<SvcAdminConfirm>(el, 'svc-admin-confirm');
    await until(() => find(dialog, 'dialog[open]'), 'the confirmation');
    get<HTMLButtonElement>(dialog, 'button[value="confirm"]').click();
    const alert = await until(() => find(el, '.toolbar + [role="alert"]'), 'the refusal');
    expect(text(alert)).to.contain('Not deleted').and.contain(refused.error.message);
    expect(refused.error.message).to.contain(experiment);
    expect(find(el, `tr[data-name="${CSS.escape(name)}"]`), 'the row stays').not.to.equal(null);
    expect((await adminFetch(`metrics/${name}`)).status).to.equal(200);
    await expect(el).to.be.accessible();
  });
});

const stored: Metric[] = [
  { name: 'signup', type: 'binomial', event: 'Signed up', where: { plan: { $in: ['pro', 'team'] } }, windowHours: 72, version: 2, source: 'api' },
  { name: 'refunds', type: 'count', event: 'Refunded', inverse: true, cap: { type: 'absolute', value: 3 }, version: 1, source: 'file' },
  {
    name: 'revenue', type: 'sum', event: 'Product ordered', value: 'price', cap: { type: 'percentile', value: 0.99, ignoreZeros: true },
    cuped: true, cupedDays: 28, version: 4, source: 'api',
  },
  { name: 'aov', type: 'ratio', numerator: 'revenue', denominator: 'orders', cuped: true, version: 1, source: 'api' },
  { name: 'kept', type: 'count', event: 'Viewed', description: 'a field the console does not edit', version: 1, source: 'api' },
];

const refusals: { name: string; change: Partial<MetricDraft>; field: MetricField }[] = [
  { name: 'a name with a comma', change: { name: 'a,b' }, field: 'name' },
  { name: 'a name of 65 characters', change: { name: 'x'.repeat(65) }, field: 'name' },
  { name: 'no event', change: { event: ' ' }, field: 'event' },
  { name: 'a sum without its value field', change: { type: 'sum' }, field: 'value' },
  { name: 'a where that does not parse', change: { where: '{"plan": ' }, field: 'where' },
  { name: 'a where that is a list', change: { where: '["pro"]' }, field: 'where' },
  { name: 'a window that is not a number', change: { windowHours: 'three days' }, field: 'windowHours' },
  { name: 'a cap without a value', change: { type: 'count', cap: 'absolute' }, field: 'capValue' },
  { name: 'CUPED days that are not a number', change: { cuped: true, cupedDays: 'two weeks' }, field: 'cupedDays' },
  { name: 'a ratio without a numerator', change: { type: 'ratio', denominator: 'orders' }, field: 'numerator' },
];

describe('metric form', () => {
  for (const m of stored) {
    it(`gives back the stored ${m.name} (${m.type}) as it was`, () => {
      const d = metricDraftOf(m);
      expect(metricDraftErrors(d, false)).to.deep.equal({});
      expect(metricDraftItem(d, m)).to.deep.equal(metricItemOf(m));
    });
  }

  it('makes a new metric of the name and event typed, and nothing at its default', () => {
    const d = { ...metricDraftOf(), name: ' signup ', event: 'Signed up ' };
    expect(metricDraftErrors(d, true)).to.deep.equal({});
    expect(metricDraftItem(d)).to.deep.equal({ name: 'signup', type: 'binomial', event: 'Signed up' });
  });

  it('writes only the fields of the type chosen: a capped sum made binomial loses its value and cap, a ratio its event', () => {
    const revenue = stored[2]!;
    const binomial = metricDraftItem({ ...metricDraftOf(revenue), type: 'binomial' }, revenue);
    expect(binomial).to.deep.equal({ name: 'revenue', type: 'binomial', event: 'Product ordered', cuped: true, cupedDays: 28 });
    const ratio = metricDraftItem({ ...metricDraftOf(revenue), type: 'ratio', numerator: 'orders', denominator: 'purchase', cuped: false }, revenue);
    expect(ratio).to.deep.equal({ name: 'revenue', type: 'ratio', numerator: 'orders', denominator: 'purchase' });
  });

  for (const r of refusals) {
    it(`refuses ${r.name} (field ${r.field})`, () => {
      const d = { ...metricDraftOf(), name: 'm', event: 'Signed up', ...r.change };
      expect(Object.keys(metricDraftErrors(d, true))).to.deep.equal([r.field]);
    });
  }

  it('leaves an edited metric\'s name alone: it is not typed', () => {
    expect(metricDraftErrors({ ...metricDraftOf(stored[0]), name: '' }, false)).to.deep.equal({});
  });

  it('says a cap as a table cell does', () => {
    expect([
      capText({ type: 'absolute', value: 3 }), capText({ type: 'percentile', value: 0.995 }),
      capText({ type: 'percentile', value: 0.29, ignoreZeros: true }),
    ]).to.deep.equal(['at 3', 'at p99.5', 'at p29, zeros ignored']);
  });
});
