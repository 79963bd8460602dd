// The console's feed preview (`POST …/feeds/preview`) and catalog search (`GET …/catalog?q=`), through the real catalog,
// track and management endpoints, on SQLite and PostgreSQL: who may ask, a bad feed refused and nothing stored, and
// why the rules left each product out. Each test has a project of its own, so that none sees another's products.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { op } from '../../../server/storage/sql-program.js';
import type { ServiceEvent } from '../../../wire/event.js';
import type { FeedPreviewAnswer } from '../../../wire/feed-preview.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { productEvent } from '../helpers/recommendation-fixtures.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const PROJECTS = 6;

function config(): ServiceConfigFile {
  const projects: ServiceConfigFile['organizations'][string]['projects'] = {};
  for (let i = 0; i < PROJECTS; i++) {
    projects[`r${i}`] = { apiKeys: [`srvr${i}.k`], writeKeys: [`webr${i}.k`], sources: ['web'], feeds: [{ id: 1, strategy: 'popular' }] };
  }
  // Half of everybody held out of recommendations: a preview must neither answer them nothing nor expose them.
  projects.held = { apiKeys: ['srvheld.k'], writeKeys: ['webheld.k'], sources: ['web'], feeds: [{ id: 1, strategy: 'popular' }], recommendations: { holdout: 50 } };
  return { organizations: { acme: { adminKeys: [ADMIN], projects } } };
}

/** The contract's example feed, with two pins that cannot be placed. */
const FEED: FeedConfig = {
  id: 2, strategy: 'bought-together', limit: 8,
  rules: [
    { pin: 'p9', position: 1 },
    { filter: { category: { same: true }, price: { gte: 10 } } },
    { pin: 'gone', position: 2 },
    { pin: 'nope', position: 3 },
  ],
  exclude: ['in-cart'],
  fallback: ['popular-in-category', 'popular'],
};

const MUG_SHOP = [
  { id: 'page', title: 'Page mug', category: 'mugs', price: 20 },
  { id: 'a', title: 'Mug A', category: 'mugs', price: 15 },
  { id: 'b', category: 'mugs', price: 5 },
  { id: 'c', category: 'plates', price: 30 },
  { id: 'd', category: 'mugs', price: 12 },
  { id: 'e', category: 'mugs', price: 11 },
  { id: 'f', category: 'mugs', price: 50 },
  { id: 'g', category: 'plates', price: 50 },
  { id: 'p9', category: 'plates', price: 1 },
  { id: 'gone', category: 'mugs', price: 20, available: false },
];

/** `count` orders of `page` with `other`, each by its own buyer. */
function orders(page: string, other: string, count: number): ServiceEvent[] {
  return Array.from({ length: count }, (_, n) => [page, other].map((p) => productEvent('Product ordered', p, {
    orderId: `o-${page}-${other}-${n}`, profileId: `buyer-${other}-${n}`, sessionId: `s-${other}-${n}`,
  }))).flat();
}

type Answer = { statusCode: number; json(): any; body: string };

for (const driver of DRIVERS) {
  describe(`feed preview (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    let used = 0;
    const call = (method: string, url: string, key: string | undefined, payload?: unknown): Promise<Answer> => h.app.inject({
      method: method as 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {}, ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    /** A project of the test's own, with its catalog and the orders given. */
    const shop = async (products: object[], events: ServiceEvent[] = []) => {
      const i = used++;
      assert.ok(i < PROJECTS, 'add projects to config()');
      const base = `/v1/acme/projects/r${i}`;
      assert.equal((await call('PUT', `${base}/catalog?apiKey=srvr${i}.k`, undefined, products)).statusCode, 200);
      if (events.length) {
        const res = await h.app.inject({ method: 'POST', url: `${base}/sources/web/track`, headers: { authorization: basic(`webr${i}.k`) }, payload: { batch: events } });
        assert.equal(res.statusCode, 200, res.body);
        await h.app.svc.models.settle();
      }
      return { base, name: `r${i}`, key: `acme/r${i}` };
    };
    const makeKey = async (role: string, projects: string[]): Promise<string> => {
      const res = await call('POST', '/v1/acme/keys', ADMIN, { name: `${role} ${projects.join()}`, role, projects });
      assert.equal(res.statusCode, 201, res.body);
      return res.json().key as string;
    };

    it('takes an editor of the project: a viewer, another project\'s editor and the project\'s apiKey are refused', async () => {
      const s = await shop(MUG_SHOP);
      const body = { feed: { id: 1, strategy: 'popular' } };
      assert.equal((await call('POST', `${s.base}/feeds/preview`, await makeKey('viewer', [s.name]), body)).statusCode, 403);
      assert.equal((await call('POST', `${s.base}/feeds/preview`, await makeKey('editor', ['r5']), body)).statusCode, 403);
      assert.equal((await call('POST', `${s.base}/feeds/preview`, `srv${s.name}.k`, body)).statusCode, 403);
      assert.equal((await call('POST', `${s.base}/feeds/preview`, undefined, body)).statusCode, 401);
      const res = await call('POST', `${s.base}/feeds/preview`, await makeKey('editor', [s.name]), body);
      assert.equal(res.statusCode, 200, res.body);
      assert.ok((res.json() as FeedPreviewAnswer).feed.products.length > 0);
    });

    it('refuses a bad feed with 400 invalid_config naming the field, and stores nothing', async () => {
      const s = await shop(MUG_SHOP);
      const cases: [unknown, string][] = [
        [{ id: 2, strategy: 'trending' }, 'feed.strategy: must be one of'],
        [{ ...FEED, rules: [{ pin: 'p9', position: 9 }] }, 'feed.rules[0].position: must be at most the feed\'s limit (8)'],
        [{ ...FEED, rules: [{ filter: { price: 'cheap' } }] }, 'feed.rules[0].filter.price: must be a number'],
        [{ ...FEED, fallback: [{ feed: 7 }] }, 'feed.fallback[0].feed: no feed with id 7'],
        [{ ...FEED, id: 1, fallback: [{ feed: 1 }] }, 'feed.fallback[0].feed'],
      ];
      for (const [feed, message] of cases) {
        const res = await call('POST', `${s.base}/feeds/preview`, ADMIN, { feed });
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error.code, 'invalid_config');
        assert.ok(String(res.json().error.message).startsWith(message), res.json().error.message);
      }
      assert.deepEqual((await call('GET', `${s.base}/feeds`, ADMIN)).json().feeds.map((f: FeedConfig) => f.id), [1]);
      assert.deepEqual((await call('GET', `${s.base}/audit`, ADMIN)).json().entries, []);
    });

    it('answers each strategy\'s list and the feed\'s, with why each product left, and records no recommendation', async () => {
      const s = await shop(MUG_SHOP, [...orders('page', 'a', 10), ...orders('page', 'b', 9), ...orders('page', 'c', 8), ...orders('page', 'd', 7), ...orders('page', 'e', 6),
        productEvent('Added to cart', 'e', { profileId: 'shopper', sessionId: 'shop-s', at: Date.now() - 1000 })]);
      const res = await call('POST', `${s.base}/feeds/preview`, ADMIN, { feed: { ...FEED, version: 3, source: 'api' }, productId: 'page', profileId: 'shopper' });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json() as FeedPreviewAnswer & { recommendationId?: string };
      assert.equal(answer.recommendationId, undefined);
      assert.deepEqual(answer.strategies.find((x) => x.strategy === 'bought-together')?.products,
        [{ id: 'a', title: 'Mug A' }, { id: 'b' }, { id: 'c' }, { id: 'd' }, { id: 'e' }]);
      assert.deepEqual(answer.strategies.map((x) => x.strategy), ['popular', 'viewed-together', 'bought-together', 'recently-viewed', 'personalized']);
      // a and d pass; e is in the shopper's cart; b is too cheap, c and g are plates; f fills from the category.
      assert.deepEqual(answer.feed.products.map((p) => p.id), ['p9', 'a', 'd', 'f']);
      assert.deepEqual([...answer.feed.removed].sort((x, y) => x.id.localeCompare(y.id)), [
        { id: 'b', reason: 'filtered', rule: 1, field: 'price' },
        { id: 'c', reason: 'filtered', rule: 1, field: 'category' },
        { id: 'e', reason: 'in-cart' },
        { id: 'g', reason: 'filtered', rule: 1, field: 'category' },
        { id: 'gone', reason: 'unavailable', pin: 2 },
        { id: 'nope', reason: 'not-in-catalog', pin: 3 },
      ]);
      const rows = await h.storage.run(function* () {
        return (yield op('SELECT COUNT(*) AS n FROM recommendations WHERE project = ?', s.key)).rows;
      });
      assert.equal(Number(rows[0]!.n), 0);
    });

    it('names a pin the feed excludes, and products pins push past the limit', async () => {
      const s = await shop(MUG_SHOP, [...orders('page', 'a', 10), ...orders('page', 'b', 9), ...orders('page', 'c', 8)]);
      const feed = { id: 2, strategy: 'bought-together', limit: 3, rules: [{ pin: 'g', position: 1 }, { pin: 'd', position: 2 }], exclude: ['d'] };
      const answer = (await call('POST', `${s.base}/feeds/preview`, ADMIN, { feed, productId: 'page' })).json() as FeedPreviewAnswer;
      assert.deepEqual(answer.feed.products.map((p) => p.id), ['g', 'a', 'b']);
      assert.deepEqual(answer.feed.removed, [{ id: 'd', reason: 'excluded-id', pin: 2 }, { id: 'c', reason: 'cut' }]);
    });

    it('answers every profile products in a project with a holdout, and assigns or exposes nobody', async () => {
      assert.equal((await call('PUT', '/v1/acme/projects/held/catalog?apiKey=srvheld.k', undefined, MUG_SHOP)).statusCode, 200);
      for (let n = 0; n < 12; n++) {
        const res = await call('POST', '/v1/acme/projects/held/feeds/preview', ADMIN, { feed: { id: 1, strategy: 'popular' }, profileId: `person-${n}` });
        assert.equal(res.statusCode, 200, res.body);
        assert.ok((res.json() as FeedPreviewAnswer).feed.products.length > 0, `person-${n}`);
      }
      for (const table of ['assignments', 'exposures']) {
        const rows = await h.storage.run(function* () {
          return (yield op(`SELECT COUNT(*) AS n FROM ${table} WHERE project = ?`, 'acme/held')).rows;
        });
        assert.equal(Number(rows[0]!.n), 0, table);
      }
    });

    it('finds catalog products by id prefix or title for a viewer, matching % and _ as typed', async () => {
      const s = await shop([
        { id: 'p1', title: 'Blue Mug' }, { id: 'p2', title: '100% cotton_tee' }, { id: 'mug-9', title: 'Plate', available: false }, { id: 'x', title: '100 cotton tee' },
      ]);
      const viewer = await makeKey('viewer', [s.name]);
      const find = async (q: string): Promise<string[]> => {
        const res = await call('GET', `${s.base}/catalog?q=${encodeURIComponent(q)}`, viewer);
        assert.equal(res.statusCode, 200, res.body);
        return res.json().products.map((p: { id: string }) => p.id);
      };
      assert.deepEqual(await find('mug'), ['mug-9', 'p1']);
      assert.deepEqual(await find('0%'), ['p2']);
      assert.deepEqual(await find('n_t'), ['p2']);
      assert.deepEqual(await find(''), ['mug-9', 'p1', 'p2', 'x']);
      assert.deepEqual((await call('GET', `${s.base}/catalog?q=mug`, viewer)).json().products[0], { id: 'mug-9', title: 'Plate', available: false });
      assert.equal((await call('GET', `${s.base}/catalog?q=${'x'.repeat(201)}`, viewer)).statusCode, 400);
    });
  });
}
