// The console's feeds against our running service (test/helpers/service-under-test.mjs, whose fixture's project acme/shop
// has a catalog of mugs, a teapot and coasters): a feed created, edited and deleted through the list and the form, the
// service's message next to the field it names, a conflict that keeps what was typed, and the live preview.
import { expect, fixture, html, oneEvent } from '@open-wc/testing';
import type { AdminView } from './admin-events.js';
import { ADMIN_KEY, fill, find, get, keyApi, shop, text, until } from './admin-test-helpers.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { defineAdmin } from './define-admin.js';
import type { FeedItem, FeedRecord } from './feed.js';
import type { SvcAdminFeedEditor } from './feed-editor.js';
import type { SvcAdminFeeds } from './feeds-page.js';

defineAdmin();

/** A feed id no other test uses. */
const freshId = (): number => 100_000 + Math.floor(Math.random() * 800_000_000);

async function feedCall(method: string, id: number, body?: unknown, version?: number): Promise<Response> {
  return fetch(`${shop}/feeds/${id}`, {
    method,
    headers: {
      authorization: `Bearer ${ADMIN_KEY}`, ...(body ? { 'content-type': 'application/json' } : {}), ...(version ? { 'if-match': `"${version}"` } : {}),
    },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
}
const storedFeed = async (id: number): Promise<FeedRecord | undefined> => {
  const res = await feedCall('GET', id);
  return res.status === 200 ? res.json() as Promise<FeedRecord> : undefined;
};
const input = (el: Element, selector: string) => get<HTMLInputElement>(el, selector);
const choose = (select: HTMLSelectElement, value: string): void => {
  select.value = value;
  select.dispatchEvent(new Event('change'));
};

async function editor(feed: number | null): Promise<SvcAdminFeedEditor> {
  const el = await fixture<SvcAdminFeedEditor>(html`<svc-admin-feed-editor .feed=${feed} .api=${await keyApi()}></svc-admin-feed-editor>`);
  await until(() => el.status === 'ready', 'the form');
  return el;
}

describe('<svc-admin-feed-editor>', () => {
  it('creates a feed from the form\'s fields: a pin, a filter condition, excluded ids, fallbacks in order', async function () {
    this.timeout(20_000);
    const id = freshId();
    const el = await editor(null);
    fill(input(el, '#id'), String(id));
    choose(get<HTMLSelectElement>(el, '#strategy'), 'popular');
    fill(input(el, '#limit'), '4');
    get<HTMLButtonElement>(el, 'button[data-add="pin"]').click();
    await el.updateComplete;
    fill(get(el, '.rule[data-rule="0"] input[id$="-pin"]'), 'p3');
    get<HTMLButtonElement>(el, 'button[data-add="filter"]').click();
    await el.updateComplete;
    const condition = get(el, '.rule[data-rule="1"] .condition');
    fill(condition.querySelector<HTMLInputElement>('input[id$="-field"]')!, 'price');
    choose(condition.querySelector('select')!, 'gte');
    await el.updateComplete;
    fill(get(el, '.rule[data-rule="1"] input[id$="-value"]'), '10');
    fill(input(el, '#exclude-ids'), 'p2, p5');
    input(el, 'input[name="in-cart"]').click();
    choose(get<HTMLSelectElement>(el, '#add-fallback'), 'popular-in-category');
    await el.updateComplete;
    // popular-in-category first, then popular.
    get<HTMLButtonElement>(el, '.fallbacks li:nth-child(2) button').click();
    await el.updateComplete;
    await expect(el).to.be.accessible();
    const moved = oneEvent(el, 'svc-admin:navigate');
    get<HTMLButtonElement>(el, 'button[type="submit"]').click();
    await el.updateComplete;
    await until(() => !el.saving, 'the save');
    expect(text(find(el, '.form-actions [role="alert"]'))).to.equal('');
    expect(((await moved) as CustomEvent<AdminView>).detail).to.deep.equal({ name: 'feeds' });
    const { version, source, ...item } = (await storedFeed(id))!;
    expect([version, source]).to.deep.equal([1, 'api']);
    expect(item).to.deep.equal({
      id, strategy: 'popular', limit: 4, dedupe: true,
      rules: [{ pin: 'p3', position: 1 }, { filter: { price: { gte: 10 } } }],
      exclude: ['in-cart', { ids: ['p2', 'p5'] }],
      fallback: ['popular-in-category', 'popular'],
    } satisfies FeedItem);
    expect((await feedCall('DELETE', id)).status).to.equal(204);
  });

  it('shows the service\'s refusal next to the rule it names, and stores nothing', async function () {
    this.timeout(20_000);
    const id = freshId();
    const el = await editor(null);
    fill(input(el, '#id'), String(id));
    fill(input(el, '#limit'), '3');
    get<HTMLButtonElement>(el, 'button[data-add="pin"]').click();
    await el.updateComplete;
    fill(get(el, '.rule[data-rule="0"] input[id$="-pin"]'), 'p1');
    fill(get(el, '.rule[data-rule="0"] input[id$="-position"]'), '5');
    get<HTMLButtonElement>(el, 'button[type="submit"]').click();
    const error = await until(() => find(el, '.rule[data-rule="0"] .field-error'), 'the error at the rule');
    expect(text(error)).to.equal('feed.rules[0].position: must be at most the feed\'s limit (3)');
    expect(text(get(el, '.form-actions [role="alert"]'))).to.contain('Not saved');
    expect(input(el, '.rule[data-rule="0"] input[id$="-position"]').value).to.equal('5');
    expect(await storedFeed(id)).to.equal(undefined);
    await expect(el).to.be.accessible();
  });

  it('keeps what was typed when someone else saved meanwhile, and saves it over theirs when asked', async function () {
    this.timeout(20_000);
    const id = freshId();
    expect((await feedCall('PUT', id, { strategy: 'popular' })).status).to.equal(201);
    const el = await editor(id);
    expect((await feedCall('PUT', id, { strategy: 'bought-together' }, 1)).status).to.equal(200);
    fill(input(el, '#limit'), '6');
    get<HTMLButtonElement>(el, 'button[type="submit"]').click();
    const alert = await until(() => find(el, '.form-actions [role="alert"]'), 'the conflict');
    expect(text(alert)).to.contain(`Someone else changed feed ${id} since you opened it`).and.contain('your changes are still in the form');
    expect(input(el, '#limit').value).to.equal('6');
    const moved = oneEvent(el, 'svc-admin:navigate');
    get<HTMLButtonElement>(el, 'button[data-action="overwrite"]').click();
    await moved;
    const saved = (await storedFeed(id))!;
    expect([saved.version, saved.strategy, saved.limit]).to.deep.equal([3, 'popular', 6]);
    const audit = await (await fetch(`${shop}/audit?kind=feed&name=${id}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` } })).json() as { entries: unknown[] };
    expect(audit.entries.length).to.equal(3);
    expect((await feedCall('DELETE', id)).status).to.equal(204);
  });

  it('deletes the feed from its form after a confirmation, goes back to the feeds and says so', async function () {
    this.timeout(20_000);
    const id = freshId();
    expect((await feedCall('PUT', id, { strategy: 'popular' })).status).to.equal(201);
    const el = await editor(id);
    get<HTMLButtonElement>(el, 'button.danger').click();
    const dialog = get<SvcAdminConfirm>(el, 'svc-admin-confirm');
    expect(text(await until(() => find(dialog, 'h2'), 'the dialog'))).to.equal(`Delete feed ${id}?`);
    const moved = oneEvent(el, 'svc-admin:navigate');
    const notice = oneEvent(el, 'svc-admin:notice');
    get<HTMLButtonElement>(dialog, 'button[value="confirm"]').click();
    expect(((await moved) as CustomEvent<AdminView>).detail).to.deep.equal({ name: 'feeds' });
    expect(((await notice) as CustomEvent<string>).detail).to.equal(`Deleted feed ${id}.`);
    expect(await storedFeed(id)).to.equal(undefined);
  });

  it('deletes nothing when someone else saved the feed meanwhile, and focuses the alert that says so', async function () {
    this.timeout(20_000);
    const id = freshId();
    expect((await feedCall('PUT', id, { strategy: 'popular' })).status).to.equal(201);
    const el = await editor(id);
    expect((await feedCall('PUT', id, { strategy: 'bought-together' }, 1)).status).to.equal(200);
    get<HTMLButtonElement>(el, 'button.danger').click();
    const dialog = get<SvcAdminConfirm>(el, 'svc-admin-confirm');
    (await until(() => find<HTMLButtonElement>(dialog, 'button[value="confirm"]'), 'the dialog')).click();
    const alert = await until(() => find(el, '.form-actions [role="alert"]'), 'the conflict');
    await until(() => el.shadowRoot!.activeElement === alert, 'the alert focused');
    expect(text(alert)).to.contain(`Someone else changed feed ${id} since you opened it`);
    expect((await storedFeed(id))?.version).to.equal(2);
    expect((await feedCall('DELETE', id)).status).to.equal(204);
  });

  it('previews the unsaved feed for a product picked by title: the pin first, an excluded id named, and follows edits', async function () {
    this.timeout(20_000);
    const el = await editor(null);
    choose(get<HTMLSelectElement>(el, '#strategy'), 'popular');
    get<HTMLButtonElement>(el, 'button[data-add="pin"]').click();
    await el.updateComplete;
    fill(get(el, '.rule[data-rule="0"] input[id$="-pin"]'), 'p3');
    fill(input(el, '#exclude-ids'), 'p2');
    const preview = get(el, 'svc-admin-feed-preview');
    fill(input(preview, '#preview-product'), 'mug');
    await until(() => find(preview, '#preview-products option[value="p1"]'), 'the catalog\'s mug suggested');
    fill(input(preview, '#preview-product'), 'p1');
    get<HTMLButtonElement>(preview, 'button[data-action="preview"]').click();
    await until(() => find(preview, '.feed-list li'), 'the preview');
    expect(text(get(preview, '.feed-list li'))).to.equal('p3 Coaster set');
    expect(text(get(preview, '[data-removed="p2"] .why'))).to.equal('excluded: its id is in the feed\'s exclude list');
    expect(text(get(preview, '[data-strategy="popular"]'))).to.contain('p2');
    expect(text(get(preview, '.feed-list'))).not.to.contain('p1 ');
    await expect(el).to.be.accessible();
    fill(get(el, '.rule[data-rule="0"] input[id$="-pin"]'), 'p4');
    await until(() => find(preview, '[data-removed="p4"]'), 'the preview after the edit');
    expect(text(get(preview, '[data-removed="p4"] .why'))).to.equal('pin at 1 skipped: unavailable');
  });
});

describe('<svc-admin-feeds> for editors and viewers', () => {
  it('deletes a feed after a confirmation, with If-Match of the version listed', async function () {
    this.timeout(20_000);
    const id = freshId();
    expect((await feedCall('PUT', id, { strategy: 'popular', rules: [{ filter: { brand: 'acme' } }] })).status).to.equal(201);
    const el = await fixture<SvcAdminFeeds>(html`<svc-admin-feeds .api=${await keyApi()}></svc-admin-feeds>`);
    await until(() => el.status === 'ready', 'the feeds');
    const row = get(el, `tr[data-feed="${id}"]`);
    expect(text(row)).to.contain('1 rule').and.contain('falls back on popular');
    await expect(el).to.be.accessible();
    get<HTMLButtonElement>(row, 'button[data-action="delete"]').click();
    const dialog = get<SvcAdminConfirm>(el, 'svc-admin-confirm');
    (await until(() => find<HTMLButtonElement>(dialog, 'button[value="confirm"]'), 'the dialog')).click();
    await until(() => !find(el, `tr[data-feed="${id}"]`), 'the row gone');
    expect(await storedFeed(id)).to.equal(undefined);
  });

  it('shows a viewer the feeds without New feed, Edit or Delete', async function () {
    this.timeout(20_000);
    const el = await fixture<SvcAdminFeeds>(html`<svc-admin-feeds .readOnly=${true} .api=${await keyApi()}></svc-admin-feeds>`);
    await until(() => el.status === 'ready', 'the feeds');
    expect(find(el, 'tr[data-feed="1"] a')).not.to.equal(null);
    expect(el.shadowRoot!.querySelectorAll('button.primary, button[data-action]').length).to.equal(0);
  });
});
