// The console's feed report and feed list against our running service (test/helpers/service-under-test.mjs, whose
// fixture's project acme/shop has feed 1): impressions, a click and an order are sent as <svc-recommendations> and
// the SDK send them (the feed's answer first, for its recommendationId), and the page shows what the service answers.
import { expect, fixture, html } from '@open-wc/testing';
import type { FeedReportAnswer } from '../wire/feed-report.js';
import type { AdminView } from './admin-events.js';
import { hashOf, viewOf } from './admin-routes.js';
import { ADMIN_KEY, find, get, keyApi, shop, text, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import { reportRange, type SvcAdminFeedReport } from './feed-report-page.js';
import type { SvcAdminFeeds } from './feeds-page.js';

defineAdmin();

const WRITE_AUTH = `Basic ${btoa('web1:p4ss')}`;

async function write(path: string, body: unknown): Promise<Response> {
  const response = await fetch(`${shop}/${path}`, {
    method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: WRITE_AUTH }, body: JSON.stringify(body),
  });
  expect(response.status, path).to.equal(200);
  return response;
}

/** A visitor sees feed 1's cards, clicks the first and orders two of it at 12.50 EUR. */
async function seed(): Promise<void> {
  const profileId = crypto.randomUUID();
  const sessionId = crypto.randomUUID();
  const answer = await (await write('feeds/1/data', { profileId, sourceId: 'web', limit: 3, fields: ['title'] })).json() as { products: { id: string }[]; recommendationId: string };
  expect(answer.products.length).to.be.greaterThan(0);
  const at = (ago: number) => new Date(Date.now() - ago).toISOString();
  const event = (name: string, data: Record<string, unknown>, ago: number) => ({
    eventId: crypto.randomUUID(), type: 'product', name, profileId, sessionId, pageId: crypto.randomUUID(), timestamp: at(ago), data,
  });
  const card = (name: string, i: number, ago: number) =>
    event(name, { productId: answer.products[i]!.id, position: i + 1, feed: 1, recommendationId: answer.recommendationId }, ago);
  const first = answer.products[0]!.id;
  await write('sources/web/track', {
    sentAt: new Date().toISOString(),
    batch: [
      ...answer.products.map((_, i) => card('Product impression', i, 4000)),
      card('Product clicked', 0, 3000),
      event('Added to cart', { productId: first, quantity: 2, price: 12.5, currency: 'EUR' }, 2000),
      event('Product ordered', { productId: first, quantity: 2, price: 12.5, currency: 'EUR', orderId: crypto.randomUUID() }, 1000),
    ],
  });
}

/** The service's own answer for the range the page shows. */
async function serviceAnswer(range: { from: string; to: string }, by: string): Promise<FeedReportAnswer> {
  const response = await fetch(`${shop}/feeds/1/report?from=${range.from}&to=${range.to}&by=${by}`, { headers: { Authorization: `Bearer ${ADMIN_KEY}` } });
  expect(response.status).to.equal(200);
  return response.json() as Promise<FeedReportAnswer>;
}

const fact = (el: Element, key: string): string => text(get(el, `[data-fact="${key}"] dd`));

describe('<svc-admin-feed-report>', () => {
  it('shows the numbers the service reports, a chart per day with its table, the table by position and the CSV link', async function () {
    this.timeout(20_000);
    const api = await keyApi();
    await seed();
    const el = await fixture<SvcAdminFeedReport>(html`<svc-admin-feed-report .feed=${1} .api=${api}></svc-admin-feed-report>`);
    await until(() => el.status === 'ready', 'the report');
    expect(text(get(el, 'h1'))).to.equal('Feed 1 report');
    // Default: the last 30 UTC days, up to today.
    const range = el.range;
    expect(range).to.deep.equal(reportRange(undefined, undefined));
    expect((Date.parse(range.to) - Date.parse(range.from)) / 86_400_000).to.equal(29);
    expect(get<HTMLInputElement>(el, '#from').value).to.equal(range.from);
    expect(get<HTMLInputElement>(el, '#to').value).to.equal(range.to);

    const service = await serviceAnswer(range, 'day');
    const t = service.totals;
    expect(t.impressions).to.be.at.least(1);
    expect(t.clicks).to.be.at.least(1);
    expect(t.revenue.EUR).to.be.at.least(25);
    const f = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
    expect(fact(el, 'impressions')).to.equal(f.format(t.impressions));
    expect(fact(el, 'clicks')).to.equal(f.format(t.clicks));
    expect(fact(el, 'orders')).to.equal(f.format(t.orders));
    expect(fact(el, 'revenue')).to.equal(new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(t.revenue.EUR!));
    expect(fact(el, 'ctr')).to.match(/%.*\(.*%.*–.*%\)/);
    expect(fact(el, 'window')).to.equal('24 hours after a click');
    expect(fact(el, 'sources')).to.contain('from events');

    // The chart: a bar per day of the range, named and described; the same numbers in the table by day.
    const chart = get(el, 'svg[role="img"]');
    expect(text(chart.querySelector('title'))).to.equal('Clicks per day');
    expect(text(chart.querySelector('desc'))).to.contain(`from ${range.from} to ${range.to}`);
    expect(chart.querySelectorAll('rect')).to.have.length(30);
    const today = [...el.shadowRoot!.querySelectorAll('#day-caption ~ tbody tr')].find((r) => text(r.querySelector('th')) === range.to);
    expect(today, 'today\'s row').to.exist;
    const todayRow = service.rows!.find((r) => r.day === range.to)!;
    expect(text(today!.querySelectorAll('td')[1]!).endsWith(f.format(todayRow.clicks))).to.equal(true);
    // Revenue can be charted instead of clicks.
    const measure = get<HTMLSelectElement>(el, '#measure');
    measure.value = 'revenue:EUR';
    measure.dispatchEvent(new Event('change'));
    await el.updateComplete;
    expect(text(get(el, 'svg[role="img"] title'))).to.equal('Revenue (EUR) per day');

    // By position: position 1 holds the click.
    const positions = [...el.shadowRoot!.querySelectorAll('#position-caption ~ tbody tr')];
    expect(text(positions[0]!.querySelector('th'))).to.equal('1');

    // Download CSV: the same report by day, as a file the session cookie may fetch.
    const link = get<HTMLAnchorElement>(el, 'a.button');
    const csv = new URL(link.href);
    expect(csv.pathname).to.equal('/v1/acme/projects/shop/feeds/1/report');
    expect(Object.fromEntries(csv.searchParams)).to.deep.equal({ from: range.from, to: range.to, by: 'day', format: 'csv' });
    const download = await fetch(link.href);
    expect(download.status).to.equal(200);
    expect(download.headers.get('content-type')).to.contain('text/csv');
    expect((await download.text()).split('\r\n')[0]).to.match(/^"?day"?,"?impressions"?/);
    await expect(el).to.be.accessible();
  });

  it('moves its address to the range chosen, and refuses a range that ends before it starts', async function () {
    this.timeout(20_000);
    const el = await fixture<SvcAdminFeedReport>(html`<svc-admin-feed-report .feed=${1} from="2026-01-01" to="2026-01-31" .api=${await keyApi()}></svc-admin-feed-report>`);
    await until(() => el.status === 'ready' || el.status === 'empty', 'the report');
    const moved: AdminView[] = [];
    el.addEventListener('svc-admin:navigate', (e) => moved.push((e as CustomEvent<AdminView>).detail));
    get<HTMLInputElement>(el, '#from').value = '2026-02-10';
    get<HTMLInputElement>(el, '#to').value = '2026-02-01';
    get<HTMLButtonElement>(el, 'form.range button[type="submit"]').click();
    await el.updateComplete;
    expect(moved).to.deep.equal([]);
    expect(text(get(el, '#range-error'))).to.equal('The first day must not be after the last one.');
    expect(get(el, '#from').getAttribute('aria-invalid')).to.equal('true');
    get<HTMLInputElement>(el, '#to').value = '2026-02-20';
    get<HTMLButtonElement>(el, 'form.range button[type="submit"]').click();
    expect(moved).to.deep.equal([{ name: 'feed-report', feed: 1, from: '2026-02-10', to: '2026-02-20' }]);
    expect(hashOf(moved[0]!)).to.equal('#/feeds/1/report?from=2026-02-10&to=2026-02-20');
    expect(viewOf(hashOf(moved[0]!))).to.deep.equal(moved[0]);
  });

  it('says a range without impressions has none, with zeros, and shows the service\'s message for an unknown feed', async function () {
    this.timeout(20_000);
    const api = await keyApi();
    const el = await fixture<SvcAdminFeedReport>(html`<svc-admin-feed-report .feed=${1} from="2020-01-01" to="2020-01-31" .api=${api}></svc-admin-feed-report>`);
    await until(() => el.status === 'empty', 'the empty report');
    expect(text(get(el, '.state.empty'))).to.equal('No impressions in this range.');
    expect(fact(el, 'impressions')).to.equal('0');
    expect(fact(el, 'range')).to.equal('2020-01-01 to 2020-01-31');
    expect(fact(el, 'revenue')).to.equal('none');
    expect(find(el, 'svg')).to.equal(null);
    await expect(el).to.be.accessible();

    el.feed = 99;
    await until(() => el.status === 'error', 'the error');
    expect(text(get(el, '.alert.error'))).to.contain('There is no feed').and.contain('99');
    await expect(el).to.be.accessible();
  });
});

describe('<svc-admin-feeds>', () => {
  it('lists the project\'s feeds, each linking to its report', async function () {
    this.timeout(20_000);
    const el = await fixture<SvcAdminFeeds>(html`<svc-admin-feeds .api=${await keyApi()}></svc-admin-feeds>`);
    await until(() => el.status === 'ready', 'the feeds');
    const row = get(el, 'tr[data-feed="1"]');
    expect(text(row.querySelector('th'))).to.equal('Feed 1');
    expect(text(row)).to.contain('popular');
    expect(row.querySelector('a')!.getAttribute('href')).to.equal('#/feeds/1/report');
    expect(viewOf(row.querySelector('a')!.getAttribute('href')!)).to.deep.equal({ name: 'feed-report', feed: 1 });
    await expect(el).to.be.accessible();
  });
});
