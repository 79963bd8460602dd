// A feed's merchandising rules applied to its answers, through the real catalog, track and feed endpoints, on SQLite and
// PostgreSQL. Each test has a project of its own (its own catalog and models), so that no test sees another's products.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { FeedConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { op } from '../../../server/storage/sql-program.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { productEvent } from '../helpers/recommendation-fixtures.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const FEEDS: FeedConfig[] = [
  // The contract's example.
  {
    id: 1, strategy: 'bought-together', limit: 8, dedupe: true,
    rules: [
      { pin: 'p9', position: 1 },
      { filter: { category: { same: true }, price: { gte: 10 } } },
      { boost: { brand: 'acme' }, factor: 2 },
      { bury: { tags: 'clearance' } },
    ],
    exclude: ['in-cart', 'purchased'], purchasedDays: 30,
    fallback: ['popular-in-category', 'popular'],
  },
  { id: 3, strategy: 'popular', rules: [{ filter: { price: { gte: { same: 0.5 }, lte: { same: 2 } } } }] },
  { id: 4, strategy: 'popular', rules: [{ filter: { brand: 'acme' } }], fallback: [] },
  { id: 5, strategy: 'popular', rules: [{ boost: { brand: 'acme' }, factor: 2.5 }, { bury: { tags: 'clearance' }, factor: 4 }] },
  { id: 6, strategy: 'viewed-together', rules: [{ filter: { category: { same: true } } }], fallback: ['popular-in-category', 'popular'] },
  { id: 7, strategy: 'popular', exclude: ['viewed', 'x1', { ids: ['x2'] }] },
  { id: 8, strategy: 'popular', limit: 5, rules: [{ pin: 'gone', position: 1 }, { pin: 'ok', position: 3 }] },
  { id: 9, strategy: 'recently-viewed', fallback: [] },
  { id: 10, strategy: 'recently-viewed', fallback: [{ feed: 4 }] },
];

const PROJECTS = 13;

function config(): ServiceConfigFile {
  const projects: ServiceConfigFile['organizations'][string]['projects'] = {};
  for (let i = 0; i < PROJECTS; i++) {
    projects[`r${i}`] = { apiKeys: [`srvr${i}.k`], writeKeys: [`webr${i}.k`], sources: ['web'], feeds: FEEDS };
  }
  return { organizations: { acme: { projects } } };
}

/** A project of the test's own (the suite's `used`-th), with its catalog, events and feeds. */
function shop(app: () => FastifyInstance, used: { count: number }) {
  const i = used.count++;
  assert.ok(i < PROJECTS, 'add projects to config()');
  const base = `/v1/acme/projects/r${i}`;
  return {
    key: `acme/r${i}`,
    async catalog(products: Record<string, unknown>[]): Promise<void> {
      const res = await app().inject({ method: 'PUT', url: `${base}/catalog?apiKey=srvr${i}.k`, payload: products as unknown as Record<string, unknown> });
      assert.equal(res.statusCode, 200, res.body);
    },
    async patch(updates: Record<string, unknown>[]): Promise<void> {
      const res = await app().inject({ method: 'PATCH', url: `${base}/catalog?apiKey=srvr${i}.k`, payload: updates as unknown as Record<string, unknown> });
      assert.equal(res.statusCode, 200, res.body);
    },
    async track(events: ServiceEvent[]): Promise<void> {
      const res = await app().inject({
        method: 'POST', url: `${base}/sources/web/track`, headers: { authorization: basic(`webr${i}.k`) }, payload: { batch: events },
      });
      assert.equal(res.statusCode, 200, res.body);
      await app().svc.models.settle();
    },
    async feed(id: number, body: { limit: number; productId?: string; profileId?: string }): Promise<{ ids: string[]; recommendationId: string }> {
      const res = await app().inject({
        method: 'POST', url: `${base}/feeds/${id}/data`, headers: { authorization: basic(`webr${i}.k`) },
        payload: { profileId: body.profileId ?? 'anyone', sourceId: 'web', limit: body.limit, fields: ['title'], ...(body.productId ? { productId: body.productId } : {}) },
      });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json() as { products: { id: string }[]; recommendationId: string };
      return { ids: answer.products.map((p) => p.id), recommendationId: answer.recommendationId };
    },
  };
}

/** `count` orders of `page` with `other`, each by its own buyer. */
function orders(page: string, other: string, count: number): ServiceEvent[] {
  return Array.from({ length: count }, (_, n) => [page, other].map((p) => productEvent('Product ordered', p, {
    orderId: `o-${page}-${other}-${n}`, profileId: `buyer-${other}-${n}`, sessionId: `s-${other}-${n}`,
  }))).flat();
}

/** `count` views of a product, each by its own visitor. */
function views(product: string, count: number): ServiceEvent[] {
  return Array.from({ length: count }, (_, n) => productEvent('Product viewed', product, { profileId: `v-${product}-${n}`, sessionId: `vs-${product}-${n}` }));
}

/** The contract example's shop: a mug page bought with mugs and a plate, products of every kind a rule names. */
const MUG_SHOP = [
  { id: 'page', category: 'mugs', price: 20 },
  { id: 'a', category: 'mugs', price: 15, brand: 'other' },
  { id: 'b', category: 'mugs', price: 5 },
  { id: 'c', category: 'plates', price: 30 },
  { id: 'd', category: 'mugs', price: 12, tags: ['clearance'] },
  { id: 'e', category: 'mugs', price: 11, brand: 'acme' },
  { id: 'f', category: 'mugs', price: 50 },
  { id: 'g', category: 'plates', price: 50 },
  { id: 'p9', category: 'plates', price: 1 },
];
const MUG_ORDERS = [...orders('page', 'a', 10), ...orders('page', 'b', 9), ...orders('page', 'c', 8), ...orders('page', 'd', 7), ...orders('page', 'e', 6)];

for (const driver of DRIVERS) {
  describe(`merchandising rules in feed answers (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    const app = () => h.app;
    const used = { count: 0 };

    it('the contract example: pin first, same category and price ≥ 10, acme boosted, clearance buried, then the category\'s popular', async () => {
      const s = shop(app, used);
      await s.catalog(MUG_SHOP);
      await s.track(MUG_ORDERS);
      // Strategy: a, b, c, d, e; b and c fail the filter; e (1/3 × 2) passes d (1/2 ÷ 2); f fills from the category.
      assert.deepEqual((await s.feed(1, { limit: 20, productId: 'page' })).ids, ['p9', 'a', 'e', 'd', 'f']);
    });

    it('a product made unavailable leaves a filtered popular fill at once, though the popular ranking is kept for seconds', async () => {
      const s = shop(app, used);
      await s.catalog(MUG_SHOP);
      await s.track([...MUG_ORDERS, ...views('f', 3)]);
      assert.deepEqual((await s.feed(1, { limit: 20, productId: 'page' })).ids, ['p9', 'a', 'e', 'd', 'f']);
      await s.patch([{ id: 'f', available: false }]);
      assert.deepEqual((await s.feed(1, { limit: 20, productId: 'page' })).ids, ['p9', 'a', 'e', 'd']);
    });

    it('a product in the cart leaves the list on the next request, and stays out once ordered (purchased)', async () => {
      const s = shop(app, used);
      await s.catalog(MUG_SHOP);
      await s.track(MUG_ORDERS);
      const now = Date.now();
      await s.track([productEvent('Added to cart', 'e', { profileId: 'shopper', sessionId: 'shop-s', at: now - 2000 })]);
      assert.deepEqual((await s.feed(1, { limit: 8, productId: 'page', profileId: 'shopper' })).ids, ['p9', 'a', 'd', 'f']);
      assert.deepEqual((await s.feed(1, { limit: 8, productId: 'page', profileId: 'someone-else' })).ids, ['p9', 'a', 'e', 'd', 'f']);
      await s.track([productEvent('Product ordered', 'e', { profileId: 'shopper', sessionId: 'shop-s', orderId: 'shopper-1', at: now - 1000 })]);
      assert.deepEqual((await s.feed(1, { limit: 8, productId: 'page', profileId: 'shopper' })).ids, ['p9', 'a', 'd', 'f']);
    });

    it('an order older than purchasedDays no longer excludes the product', async () => {
      const s = shop(app, used);
      await s.catalog(MUG_SHOP);
      await s.track(MUG_ORDERS);
      const old = Date.now() - 40 * 24 * 3600 * 1000;
      await s.track([productEvent('Product ordered', 'e', { profileId: 'old-buyer', orderId: 'old-1', at: old })]);
      assert.deepEqual((await s.feed(1, { limit: 8, productId: 'page', profileId: 'old-buyer' })).ids, ['p9', 'a', 'e', 'd', 'f']);
    });

    it('a price range relative to the page product keeps 0.5× to 2× its price', async () => {
      const s = shop(app, used);
      await s.catalog([5, 9, 10, 25, 40, 41].map((price) => ({ id: `pr${price}`, price })).concat([{ id: 'page', price: 20 }]));
      assert.deepEqual((await s.feed(3, { limit: 10, productId: 'page' })).ids, ['pr10', 'pr25', 'pr40']);
    });

    it('never answers fewer than the strategy could: a filter matching the least popular products still fills the list', async () => {
      const s = shop(app, used);
      const products = Array.from({ length: 300 }, (_, n) => ({ id: `n${String(n).padStart(3, '0')}`, brand: n >= 294 ? 'acme' : 'other' }));
      await s.catalog(products);
      await s.track(products.slice(0, 200).flatMap((p) => views(p.id, 1)));
      const { ids } = await s.feed(4, { limit: 5 });
      assert.deepEqual(ids, ['n294', 'n295', 'n296', 'n297', 'n298']);
    });

    it('boost and bury move products by their factor without removing them', async () => {
      const s = shop(app, used);
      await s.catalog([{ id: 's1' }, { id: 's2' }, { id: 's3', brand: 'acme' }, { id: 's4', tags: ['clearance'] }, { id: 's5' }]);
      await s.track([...views('s1', 5), ...views('s2', 4), ...views('s3', 3), ...views('s4', 2), ...views('s5', 1)]);
      // Scores: s1 1, s2 1/2, s3 1/3 × 2.5, s4 1/4 ÷ 4, s5 1/5.
      assert.deepEqual((await s.feed(5, { limit: 5 })).ids, ['s1', 's3', 's2', 's5', 's4']);
    });

    it('a same-category filter holds on a product page, and is left out on a page about no product', async () => {
      const s = shop(app, used);
      await s.catalog([{ id: 'page', category: 'A' }, { id: 'x', category: 'A' }, { id: 'y', category: 'B' }, { id: 'z', category: 'A' }, { id: 'w', category: 'B' }]);
      await s.track([...['x', 'y'].flatMap((p) => [productEvent('Product viewed', 'page', { sessionId: `vt-${p}` }), productEvent('Product viewed', p, { sessionId: `vt-${p}` })]), ...views('w', 3)]);
      assert.deepEqual((await s.feed(6, { limit: 10, productId: 'page' })).ids, ['x', 'z']);
      await s.patch([{ id: 'page', available: false, inventory: 0 }]);
      assert.deepEqual((await s.feed(6, { limit: 10, productId: 'page' })).ids, ['x', 'z'], 'a sold-out page product still has its category');
      assert.deepEqual(new Set((await s.feed(6, { limit: 10 })).ids), new Set(['w', 'x', 'y', 'z']));
    });

    it('excludes what the profile viewed and the ids the feed names', async () => {
      const s = shop(app, used);
      await s.catalog(['v1', 'v2', 'v3', 'x1', 'x2'].map((id) => ({ id })));
      await s.track([productEvent('Product viewed', 'v1', { profileId: 'looker' })]);
      assert.deepEqual((await s.feed(7, { limit: 10, profileId: 'looker' })).ids.sort(), ['v2', 'v3']);
    });

    it('a pinned product is at its position; an unavailable one is skipped and never appears; the feed limit caps the request', async () => {
      const s = shop(app, used);
      await s.catalog([{ id: 'gone', available: false }, { id: 'ok' }, ...['q1', 'q2', 'q3', 'q4', 'q5', 'q6'].map((id) => ({ id }))]);
      const { ids } = await s.feed(8, { limit: 10 });
      assert.deepEqual(ids, ['q1', 'q2', 'ok', 'q3', 'q4']);
      await s.patch([{ id: 'gone', available: true }, { id: 'ok', available: false }]);
      assert.deepEqual((await s.feed(8, { limit: 10 })).ids, ['gone', 'q1', 'q2', 'q3', 'q4']);
    });

    it('fallback [] adds nothing; a fallback feed lends its strategy (not its rules)', async () => {
      const s = shop(app, used);
      await s.catalog([{ id: 'k1', brand: 'acme' }, { id: 'k2' }]);
      assert.deepEqual((await s.feed(9, { limit: 5, profileId: 'new' })).ids, []);
      assert.deepEqual((await s.feed(10, { limit: 5, profileId: 'new' })).ids, ['k1', 'k2']);
    });

    it('records the ruled answer under its recommendationId', async () => {
      const s = shop(app, used);
      await s.catalog(MUG_SHOP);
      await s.track(MUG_ORDERS);
      const answer = await s.feed(1, { limit: 8, productId: 'page', profileId: 'rec' });
      const rows = await h.storage.run(function* () {
        return (yield op('SELECT feed_id, strategy, products FROM recommendations WHERE project = ? AND recommendation_id = ?', s.key, answer.recommendationId)).rows;
      });
      assert.equal(rows.length, 1);
      assert.equal(Number(rows[0]!.feed_id), 1);
      assert.equal(rows[0]!.strategy, 'bought-together');
      assert.deepEqual(JSON.parse(String(rows[0]!.products)), answer.ids);
    });
  });
}
