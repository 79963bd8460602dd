// What recommendations earn (issue 49): feed answers carry a recommendationId the service records; carts and orders
// are credited to a person's last click on the product in an issued recommendation within the feed's window; the
// report per feed counts it all. Over app.inject() against SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ServiceEvent } from '../../../wire/event.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { makeEvent } from '../helpers/events.js';
import { WRITE_AUTH, putCatalog, recommendationsConfig } from '../helpers/recommendation-fixtures.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BASE = '/v1/acme/projects/shop';
const HOUR = 3_600_000;
const T0 = Date.parse('2026-06-01T10:00:00.000Z');
const RANGE = `from=${new Date(T0 - HOUR).toISOString()}&to=${new Date(T0 + 48 * HOUR).toISOString()}`;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const PRICES: Record<string, number> = { 'cfg-1': 12.5, 'rp-a': 20, 'rp-b': 30, 'rp-c': 40, 'rp-d': 50 };

function config() {
  const c = recommendationsConfig();
  c.organizations.acme!.adminKeys = ['adm1.s3cret'];
  c.organizations.acme!.projects.shop!.limits = { writeKeyPerSecond: 100_000 };
  return c;
}

interface Feed { products: { id: string }[]; recommendationId: string }

async function feed(app: FastifyInstance, profileId: string, id = 1, limit = 4): Promise<Feed> {
  const res = await app.inject({
    method: 'POST', url: `${BASE}/feeds/${id}/data`, headers: WRITE_AUTH, payload: { profileId, sourceId: 'web', limit, fields: ['title'] },
  });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as Feed;
}

async function send(app: FastifyInstance, batch: ServiceEvent[]): Promise<void> {
  const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: WRITE_AUTH, payload: { batch } });
  assert.equal(res.statusCode, 200, res.body);
}

const at = (ms: number): string => new Date(ms).toISOString();
/** A card event as `<svc-recommendations>` sends it. */
const card = (name: 'Product impression' | 'Product clicked', profileId: string, f: Feed, index: number, time: number, rid = f.recommendationId) =>
  makeEvent({ type: 'product', name, profileId, sessionId: `s-${profileId}`, timestamp: at(time), data: { productId: f.products[index]!.id, position: index + 1, feed: 1, recommendationId: rid } });
const product = (name: 'Added to cart' | 'Product ordered', profileId: string, productId: string, time: number, extra: Record<string, unknown> = {}) =>
  makeEvent({ type: 'product', name, profileId, sessionId: `s-${profileId}`, timestamp: at(time), data: { productId, quantity: 1, ...extra } });
const identify = (profileId: string, userId: string, time: number) =>
  makeEvent({ type: 'identify', name: 'Identify', profileId, sessionId: `s-${profileId}`, timestamp: at(time), userId, data: {} });

async function report(app: FastifyInstance, query = RANGE, id = '1') {
  return app.inject({ method: 'GET', url: `${BASE}/feeds/${id}/report?${query}`, headers: ADMIN });
}

for (const driver of DRIVERS) {
  describe(`feed report and attribution (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });

    it('every feed answer, from the feed endpoint and from Choose, carries a new recommendationId', async () => {
      const a = await feed(h.app, 'rid-p');
      const b = await feed(h.app, 'rid-p');
      assert.match(a.recommendationId, UUID);
      assert.notEqual(a.recommendationId, b.recommendationId);
      const res = await h.app.inject({
        method: 'POST', url: `${BASE}/optimization/choose-api`, headers: WRITE_AUTH,
        payload: { identification: { sourceId: 'web', profileId: 'rid-p' }, names: ['recs'] },
      });
      const body = (res.json() as { choices: { body: { recommendationId: string; products: unknown[] } }[] }).choices[0]!.body;
      assert.match(body.recommendationId, UUID);
      assert.ok(body.products.length > 0);
    });

    it('the story: a click on card 2, a cart, an order on another device after sign-in → credited to the feed and position 2; never-clicked, too-late and forged orders → nothing', async () => {
      await putCatalog(h.app, Object.entries(PRICES).filter(([id]) => id !== 'cfg-1').map(([id, price]) => ({ id, title: id, price, currency: 'EUR' })));
      const seen = await feed(h.app, 'dev-a');
      assert.equal(seen.products.length, 4);
      const second = seen.products[1]!.id;
      const never = seen.products[2]!.id;
      // Device A: sees the four cards, clicks the second, adds it to the cart with the platform's price, signs in.
      await send(h.app, [
        ...seen.products.map((_, i) => card('Product impression', 'dev-a', seen, i, T0 + 60_000)),
        card('Product clicked', 'dev-a', seen, 1, T0 + 120_000),
        product('Added to cart', 'dev-a', second, T0 + 180_000, { price: 19.5, currency: 'EUR' }),
        identify('dev-a', 'story-user', T0 + 240_000),
      ]);
      // Device B, ten hours later: signs in, orders two of it, and one of a product nobody clicked.
      await send(h.app, [
        identify('dev-b', 'story-user', T0 + 10 * HOUR),
        product('Product ordered', 'dev-b', second, T0 + 10 * HOUR + 1000, { quantity: 2, price: 19.5, currency: 'EUR', orderId: 'o-1' }),
        product('Product ordered', 'dev-b', never, T0 + 10 * HOUR + 1000, { price: 1000, currency: 'EUR', orderId: 'o-1' }),
      ]);
      // Another visitor clicks the first card and orders it 25 hours later: outside the 24-hour window.
      const late = await feed(h.app, 'late-p');
      await send(h.app, [
        card('Product clicked', 'late-p', late, 0, T0 + 60_000),
        product('Product ordered', 'late-p', late.products[0]!.id, T0 + 25 * HOUR + 60_000, { price: 5, currency: 'EUR' }),
      ]);
      // A forger clicks with an id the service never issued, then orders.
      await send(h.app, [
        card('Product clicked', 'forger', seen, 3, T0 + 60_000, randomUUID()),
        product('Product ordered', 'forger', seen.products[3]!.id, T0 + 120_000, { price: 7, currency: 'EUR' }),
      ]);

      const res = await report(h.app, `${RANGE}&by=position`);
      assert.equal(res.statusCode, 200, res.body);
      const body = res.json();
      assert.equal(body.feed, 1);
      assert.equal(body.attributionHours, 24);
      assert.equal(body.from, at(T0 - HOUR));
      assert.equal(body.to, at(T0 + 48 * HOUR));
      const t = body.totals;
      assert.equal(t.impressions, 4);
      assert.equal(t.clicks, 2, 'dev-a and late-p: the forged click counts nowhere');
      assert.equal(t.ctr, 0.5);
      assert.equal(t.carts, 1);
      assert.equal(t.orders, 1, 'only the order of the clicked product within the window');
      assert.deepEqual(t.revenue, { EUR: 39 });
      assert.deepEqual(t.revenuePer1000, { EUR: 39 / 4 * 1000 });
      assert.deepEqual(t.revenueSources, { event: 1, catalog: 0, unpriced: 0 });
      const byPosition = Object.fromEntries((body.rows as Record<string, any>[]).map((r) => [r.position, r]));
      assert.deepEqual(Object.keys(byPosition), ['1', '2', '3', '4']);
      assert.equal(byPosition[2].clicks, 1);
      assert.equal(byPosition[2].carts, 1);
      assert.equal(byPosition[2].orders, 1);
      assert.deepEqual(byPosition[2].revenue, { EUR: 39 });
      assert.equal(byPosition[1].clicks, 1);
      assert.equal(byPosition[1].orders, 0);
      assert.deepEqual(byPosition[3].revenue, {});

      // A window of 48 hours (the feed's setting, through the management API) credits the late order too.
      const put = await h.app.inject({ method: 'PUT', url: `${BASE}/feeds/1`, headers: ADMIN, payload: { strategy: 'popular', attributionHours: 48 } });
      assert.equal(put.statusCode, 200, put.body);
      const wider = (await report(h.app)).json();
      assert.equal(wider.attributionHours, 48);
      assert.equal(wider.totals.orders, 2);
      assert.deepEqual(wider.totals.revenue, { EUR: 44 });
      const put24 = await h.app.inject({ method: 'PUT', url: `${BASE}/feeds/1`, headers: ADMIN, payload: { strategy: 'popular' } });
      assert.equal(put24.statusCode, 200, put24.body);

      // By strategy and by day; CSV with a header row.
      const byStrategy = (await report(h.app, `${RANGE}&by=strategy`)).json();
      assert.deepEqual(byStrategy.rows.map((r: { strategy: string; orders: number }) => [r.strategy, r.orders]), [['popular', 1]]);
      const byDay = (await report(h.app, `${RANGE}&by=day`)).json();
      assert.deepEqual(byDay.rows.map((r: { day: string; clicks: number; orders: number }) => [r.day, r.clicks, r.orders]), [['2026-06-01', 2, 1]]);
      // The whole day (impressions from the counts kept as events arrive, right after tracking): the same numbers.
      const wholeDay = (await report(h.app, 'from=2026-06-01&to=2026-06-01&by=position')).json();
      assert.deepEqual(wholeDay.rows, body.rows);
      const csv = await report(h.app, `${RANGE}&by=position&format=csv`);
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const lines = csv.body.trimEnd().split('\r\n');
      assert.equal(lines[0], 'position,impressions,clicks,ctr,ctrLow,ctrHigh,carts,orders,revenue_EUR,revenuePer1000_EUR,pricedByEvent,pricedByCatalog,unpriced');
      assert.equal(lines.length, 5);
      assert.match(lines[2]!, /^2,1,1,1,[0-9.]+,1,1,1,39,39000,1,0,0$/);
    });

    it('an order without a price is priced from the catalog, and the report says so', async () => {
      const seen = await feed(h.app, 'cat-p', 3);
      assert.ok(seen.products.length > 0);
      const first = seen.products[0]!.id;
      await send(h.app, [
        card('Product clicked', 'cat-p', seen, 0, T0 + 60_000),
        product('Product ordered', 'cat-p', first, T0 + 120_000, { quantity: 3 }),
      ]);
      const body = (await report(h.app, RANGE, '3')).json();
      assert.equal(body.totals.orders, 1);
      assert.deepEqual(body.totals.revenueSources, { event: 0, catalog: 1, unpriced: 0 });
      assert.deepEqual(body.totals.revenue, { EUR: PRICES[first]! * 3 });
      assert.equal(body.totals.ctrInterval, null, 'no impressions: no interval');
    });

    it('an order without a price is priced as the catalog priced the product when it was ordered', async () => {
      // Times on the real clock: the catalog's writes are stamped with it. A busy wait of a millisecond or two keeps
      // each write strictly after the order before it (no sleep: nothing here waits for anything to happen).
      const past = (t: number): void => { while (Date.now() <= t) { /* the next millisecond */ } };
      await putCatalog(h.app, [{ id: 'rp-then', title: 'Then', price: 10, currency: 'EUR' }]);
      const firstOrder = Date.now();
      const seen = await feed(h.app, 'then-p', 3, 100);
      const index = seen.products.findIndex((p) => p.id === 'rp-then');
      assert.ok(index >= 0, 'the product is in the feed');
      await send(h.app, [card('Product clicked', 'then-p', seen, index, firstOrder - 1000), product('Product ordered', 'then-p', 'rp-then', firstOrder)]);
      past(firstOrder);
      await putCatalog(h.app, [{ id: 'rp-then', title: 'Then', price: 99, currency: 'EUR' }]);
      const secondOrder = Date.now();
      await send(h.app, [product('Product ordered', 'then-p', 'rp-then', secondOrder)]);
      past(secondOrder);
      const res = await report(h.app, `from=${at(firstOrder - HOUR)}&to=${at(Date.now() + 1)}`, '3');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json().totals.revenue, { EUR: 109 });
      assert.deepEqual(res.json().totals.revenueSources, { event: 0, catalog: 2, unpriced: 0 });
    });

    it('impressions count at their place in the issued list, whatever the product ids hold (quotes, backslashes, commas)', async () => {
      // A day of its own: the suite's app is shared, and other tests' impressions are at T0.
      const t1 = T0 + 10 * 24 * HOUR;
      const impressions = (f: Feed) => f.products.map((_, i) => card('Product impression', 'odd-p', f, i, t1));
      // A list of plain ids, and impressions under its id of ids it does not hold, though their quoted text is in it.
      await putCatalog(h.app, ['plain-a', 'plain-b'].map((id) => ({ id, title: id, price: 1, currency: 'EUR' })));
      const plain = await feed(h.app, 'odd-p', 1, 100);
      assert.ok(plain.products.length >= 2);
      const strays = [',', `${plain.products[0]!.id}","${plain.products[1]!.id}`].map((productId) => makeEvent({
        type: 'product', name: 'Product impression', profileId: 'odd-p', sessionId: 's-odd-p', timestamp: at(t1),
        data: { productId, position: 1, feed: 1, recommendationId: plain.recommendationId },
      }));
      const odd = ['say "hi"', 'back\\slash', ',lead', 'comma,inside'];
      await putCatalog(h.app, odd.map((id) => ({ id, title: id, price: 1, currency: 'EUR' })));
      const oddList = await feed(h.app, 'odd-p', 1, 100);
      for (const id of odd) assert.ok(oddList.products.some((p) => p.id === id), `${id} is in the list`);
      await send(h.app, [...impressions(plain), ...strays, ...impressions(oddList)]);
      const body = (await report(h.app, `from=${at(t1 - HOUR)}&to=${at(t1 + HOUR)}&by=position`)).json();
      assert.equal(body.totals.impressions, plain.products.length + oddList.products.length);
      const expected = new Map<number, number>();
      for (const f of [plain, oddList]) f.products.forEach((_, i) => expected.set(i + 1, (expected.get(i + 1) ?? 0) + 1));
      assert.deepEqual(body.rows.map((r: { position: number; impressions: number }) => [r.position, r.impressions]), [...expected]);
    });

    it('clicks count at their place in the issued list, whatever the product ids hold (quotes, backslashes, commas)', async () => {
      const t1 = T0 + 11 * 24 * HOUR;
      const clicks = (f: Feed) => f.products.map((_, i) => card('Product clicked', 'odd-c', f, i, t1));
      await putCatalog(h.app, ['say "hi"', 'back\\slash', ',lead', 'comma,inside', 'plain-a'].map((id) => ({ id, title: id, price: 1, currency: 'EUR' })));
      const list = await feed(h.app, 'odd-c', 1, 100);
      for (const id of ['say "hi"', 'back\\slash', ',lead']) assert.ok(list.products.some((p) => p.id === id), `${id} is in the list`);
      // Clicks under the list's id of products it does not hold, though their quoted text is in it, count nowhere.
      const strays = [',', `${list.products[0]!.id}","${list.products[1]!.id}`].map((productId) => makeEvent({
        type: 'product', name: 'Product clicked', profileId: 'odd-c', sessionId: 's-odd-c', timestamp: at(t1),
        data: { productId, position: 1, feed: 1, recommendationId: list.recommendationId },
      }));
      await send(h.app, [...clicks(list), ...strays]);
      const body = (await report(h.app, `from=${at(t1 - HOUR)}&to=${at(t1 + HOUR)}&by=position`)).json();
      assert.equal(body.totals.clicks, list.products.length);
      assert.deepEqual(
        body.rows.map((r: { position: number; clicks: number }) => [r.position, r.clicks]),
        list.products.map((_, i) => [i + 1, 1]),
      );
    });

    // Spec as data: bad queries, each 400 invalid_request naming the parameter.
    const BAD_QUERIES: [string, string][] = [
      ['from=2026-06-02&to=2026-06-01', 'from: must be before to'],
      ['from=yesterday', 'from: must be an ISO 8601 date or date-time (2026-11-24 or 2026-11-24T10:00:00Z)'],
      ['to=2026-02-30', 'to: must be an ISO 8601 date or date-time (2026-11-24 or 2026-11-24T10:00:00Z)'],
      ['by=product', 'by: must be one of position, day, strategy, not "product"'],
      ['format=xml', 'format: must be json or csv'],
      ['attributionHours=0', 'attributionHours: must be a whole number of hours from 1 to 720'],
      ['attributionHours=721', 'attributionHours: must be a whole number of hours from 1 to 720'],
      ['from=2024-01-01&to=2026-01-01', 'from: must be at most 366 days before to'],
      ['by=day&by=position', 'by: must be given once'],
    ];
    for (const [query, message] of BAD_QUERIES) {
      it(`the report refuses ${query}: 400 invalid_request`, async () => {
        const res = await report(h.app, query);
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { error: { code: 'invalid_request', message } });
      });
    }

    it('the report of an unknown feed is 404 feed_not_found; without credentials 401, with a writeKey 403', async () => {
      for (const id of ['9', 'abc', '0']) {
        const res = await report(h.app, RANGE, id);
        assert.equal(res.statusCode, 404, id);
        assert.equal(res.json().error.code, 'feed_not_found');
      }
      const none = await h.app.inject({ method: 'GET', url: `${BASE}/feeds/1/report` });
      assert.equal(none.statusCode, 401);
      const writeKey = await h.app.inject({ method: 'GET', url: `${BASE}/feeds/1/report`, headers: WRITE_AUTH });
      assert.equal(writeKey.statusCode, 403);
    });

    it('a feed\'s attributionHours outside 1–720 (or not a whole number) is refused and changes nothing', async () => {
      for (const attributionHours of [0, 721, 1.5, '24', -1]) {
        const res = await h.app.inject({ method: 'PUT', url: `${BASE}/feeds/2`, headers: ADMIN, payload: { strategy: 'viewed-together', attributionHours } });
        assert.equal(res.statusCode, 400, String(attributionHours));
        assert.deepEqual(res.json().error, { code: 'invalid_config', message: 'feed.attributionHours: must be a whole number of hours from 1 to 720' });
      }
      const stored = await h.app.inject({ method: 'GET', url: `${BASE}/feeds/2`, headers: ADMIN });
      assert.equal(stored.json().attributionHours, undefined);
      assert.equal(stored.json().source, 'file');
    });
  });
}
