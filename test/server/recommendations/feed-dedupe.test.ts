// One page, no duplicates: the feed batch endpoint (`POST …/feeds/data`) and `excludeProducts` of the feed endpoint, on
// SQLite and PostgreSQL. The catalog has no events, so popular products come by id (p01, p02, …): every list below
// follows from the configured catalog alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { op } from '../../../server/storage/sql-program.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const FEEDS: FeedConfig[] = [
  { id: 1, strategy: 'popular' },
  { id: 2, strategy: 'popular', dedupe: false },
  { id: 3, strategy: 'popular', rules: [{ filter: { category: 'mugs' } }], fallback: [] },
  // A visitor without views: the strategy has nothing, the fallback fills the list.
  { id: 4, strategy: 'recently-viewed', fallback: ['popular'] },
  { id: 5, strategy: 'popular', limit: 3, rules: [{ pin: 'p02', position: 1 }] },
];
// p01 … p12; odd ones are mugs, even ones plates.
const CATALOG = Array.from({ length: 12 }, (_, i) => ({
  id: `p${String(i + 1).padStart(2, '0')}`, title: `Product ${i + 1}`, category: i % 2 === 0 ? 'mugs' : 'plates',
}));
const p = (...n: number[]): string[] => n.map((i) => `p${String(i).padStart(2, '0')}`);

function config(): ServiceConfigFile {
  const project = (holdout?: number) => ({
    apiKeys: [`srv${holdout ?? 0}.k`], writeKeys: [`web${holdout ?? 0}.k`], sources: ['web'], feeds: FEEDS, catalog: CATALOG,
    limits: { writeKeyPerSecond: 1_000_000 }, ...(holdout !== undefined ? { recommendations: { holdout } } : {}),
  });
  return { organizations: { acme: { projects: { shop: project(), held: project(50) } } } };
}

const AUTH = { authorization: basic('web0.k') };
const BATCH = '/v1/acme/projects/shop/feeds/data';
const VISITOR = { profileId: 'visitor', sourceId: 'web' };
const entry = (feed: unknown, limit = 4, more: Record<string, unknown> = {}) => ({ feed, limit, fields: ['title'], ...more });

interface Answer {
  feed?: number | string;
  products?: { id: string; title?: string }[];
  recommendationId?: string;
  holdout?: boolean;
  error?: { code: string; message: string };
}

// Spec as data: batches refused as a whole, with the feed endpoint's messages for the shared fields.
const MALFORMED: { name: string; body: unknown; message: string }[] = [
  { name: 'not an object', body: [entry(1)], message: 'body: must be a JSON object' },
  { name: 'no requests', body: { ...VISITOR }, message: 'requests: must be an array of 1 to 20 feed requests' },
  { name: 'no request in the list', body: { ...VISITOR, requests: [] }, message: 'requests: must be an array of 1 to 20 feed requests' },
  { name: '21 requests', body: { ...VISITOR, requests: Array.from({ length: 21 }, () => entry(1)) }, message: 'requests: must be an array of 1 to 20 feed requests' },
  { name: 'requests an object', body: { ...VISITOR, requests: { 0: entry(1) } }, message: 'requests: must be an array of 1 to 20 feed requests' },
  { name: 'profileId missing', body: { sourceId: 'web', requests: [entry(1)] }, message: 'profileId: must be a non-empty string' },
  { name: 'productId an object', body: { ...VISITOR, productId: {}, requests: [entry(1)] }, message: 'productId: must be a non-empty string' },
  { name: '201 excluded products', body: { ...VISITOR, excludeProducts: Array.from({ length: 201 }, (_, i) => `x${i}`), requests: [entry(1)] }, message: 'excludeProducts: must be an array of at most 200 product ids' },
  { name: 'excludeProducts a string', body: { ...VISITOR, excludeProducts: 'p01', requests: [entry(1)] }, message: 'excludeProducts: must be an array of at most 200 product ids' },
  { name: 'an excluded product an object', body: { ...VISITOR, excludeProducts: ['p01', {}], requests: [entry(1)] }, message: 'excludeProducts[1]: must be a non-empty string' },
];

for (const driver of DRIVERS) {
  describe(`one page, no duplicates (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    const batch = async (body: Record<string, unknown>, url = BATCH, headers: Record<string, string> = AUTH): Promise<Answer[]> => {
      const res = await h.app.inject({ method: 'POST', url, headers, payload: body });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { answers: Answer[] }).answers;
    };
    const single = async (id: number, body: Record<string, unknown>) => {
      const res = await h.app.inject({ method: 'POST', url: `/v1/acme/projects/shop/feeds/${id}/data`, headers: AUTH, payload: { ...VISITOR, fields: ['title'], ...body } });
      return res;
    };
    const ids = (a: Answer | undefined): string[] => (a?.products ?? []).map((x) => x.id);

    it('two widgets of one feed in a batch: the second shows the next products, each answer recorded under its own id', async () => {
      const answers = await batch({ ...VISITOR, requests: [entry(1), entry(1)] });
      assert.deepEqual(answers.map(ids), [p(1, 2, 3, 4), p(5, 6, 7, 8)]);
      assert.deepEqual(answers[0]!.products![0], { id: 'p01', title: 'Product 1' });
      const rids = answers.map((a) => a.recommendationId!);
      assert.notEqual(rids[0], rids[1]);
      const rows = await h.storage.run(function* () {
        return (yield op('SELECT recommendation_id, feed_id, products FROM recommendations WHERE project = ? AND recommendation_id IN (?, ?)', 'acme/shop', ...rids)).rows;
      });
      const recorded = new Map(rows.map((r) => [String(r.recommendation_id), JSON.parse(String(r.products)) as string[]]));
      assert.deepEqual(rids.map((id) => recorded.get(id)), [p(1, 2, 3, 4), p(5, 6, 7, 8)]);
    });

    it('answers in the requests\' order, each with its feed', async () => {
      const answers = await batch({ ...VISITOR, requests: [entry(3, 2), entry('1', 2)] });
      assert.deepEqual(answers.map((a) => a.feed), [3, '1']);
      assert.deepEqual(answers.map(ids), [p(1, 3), p(2, 4)]);
    });

    it('a feed with rules leaves earlier answers out inside its rules: a filter still fills its list from the over-fetch', async () => {
      // Feed 1 shows p01–p05; feed 3 keeps mugs only (odd ids), so p07, p09, p11 remain of the six mugs.
      const answers = await batch({ ...VISITOR, requests: [entry(1, 5), entry(3, 4)] });
      assert.deepEqual(answers.map(ids), [p(1, 2, 3, 4, 5), p(7, 9, 11)]);
    });

    it('a strategy with nothing to show still fills from its fallback, leaving out what the page shows', async () => {
      const answers = await batch({ ...VISITOR, requests: [entry(1, 3), entry(4, 3)] });
      assert.deepEqual(answers.map(ids), [p(1, 2, 3), p(4, 5, 6)]);
    });

    it('a pin already shown by another widget is skipped, and its place goes to the next product', async () => {
      const answers = await batch({ ...VISITOR, requests: [entry(1, 2), entry(5, 3)] });
      assert.deepEqual(answers.map(ids), [p(1, 2), p(3, 4, 5)]);
      // Alone, the feed pins p02 first.
      assert.deepEqual(ids((await batch({ ...VISITOR, requests: [entry(5, 3)] }))[0]), p(2, 1, 3));
    });

    it('dedupe: false is never trimmed, and what it shows is left out of the deduping feeds, before or after it', async () => {
      const answers = await batch({ ...VISITOR, requests: [entry(1, 3), entry(2, 3), entry(1, 3)] });
      assert.deepEqual(answers.map(ids), [p(4, 5, 6), p(1, 2, 3), p(7, 8, 9)]);
      // Told what the page shows, it shows it all the same.
      const kept = await batch({ ...VISITOR, excludeProducts: p(1, 2), requests: [entry(2, 3)] });
      assert.deepEqual(ids(kept[0]), p(1, 2, 3));
    });

    it('the page\'s productId and excludeProducts apply to every request; a request\'s own productId wins', async () => {
      const answers = await batch({ ...VISITOR, productId: 'p01', excludeProducts: ['p02'], requests: [entry(1, 2), entry(1, 2, { productId: 'p04' })] });
      assert.deepEqual(answers.map(ids), [p(3, 4), p(1, 5)]);
    });

    it('a widget added later: excludeProducts of the feed endpoint leaves them out, unless the feed keeps duplicates', async () => {
      const res = await single(1, { limit: 4, excludeProducts: ['p01', 'p03', 'unknown'] });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((res.json() as Answer).products!.map((x) => x.id), p(2, 4, 5, 6));
      const rules = await single(3, { limit: 2, excludeProducts: ['p01', 'p03'] });
      assert.deepEqual((rules.json() as Answer).products!.map((x) => x.id), p(5, 7));
      const kept = await single(2, { limit: 2, excludeProducts: ['p01'] });
      assert.deepEqual((kept.json() as Answer).products!.map((x) => x.id), p(1, 2));
    });

    it('the feed endpoint refuses more than 200 excluded products, or one that is not an id, and answers nothing', async () => {
      for (const [excludeProducts, message] of [
        [Array.from({ length: 201 }, (_, i) => `x${i}`), 'excludeProducts: must be an array of at most 200 product ids'],
        [['p01', ''], 'excludeProducts[1]: must be a non-empty string'],
        [{ p01: true }, 'excludeProducts: must be an array of at most 200 product ids'],
      ] as const) {
        const res = await single(1, { limit: 4, excludeProducts });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { error: { code: 'invalid_request', message } });
      }
      assert.equal((await single(1, { limit: 4, excludeProducts: Array.from({ length: 200 }, (_, i) => `x${i}`) })).statusCode, 200);
    });

    for (const { name, body, message } of MALFORMED) {
      it(`a malformed batch is refused as a whole: ${name}`, async () => {
        const res = await h.app.inject({ method: 'POST', url: BATCH, headers: AUTH, payload: body as Record<string, unknown> });
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json(), { error: { code: 'invalid_request', message } });
      });
    }

    it('a bad request of a batch answers its own error, with the feed endpoint\'s code and message; the others are answered', async () => {
      const answers = await batch({
        ...VISITOR,
        requests: [entry(1, 0), entry(99), 'x', { limit: 2, fields: [] }, entry(1, 2, { fields: 'title' }), entry(1, 2), entry('abc')],
      });
      assert.deepEqual(answers.slice(0, 5).concat(answers.slice(6)), [
        { feed: 1, error: { code: 'invalid_request', message: 'limit: must be an integer between 1 and 100' } },
        { feed: 99, error: { code: 'feed_not_found', message: 'There is no feed "99" in this project.' } },
        { error: { code: 'invalid_request', message: 'request: must be a JSON object' } },
        { error: { code: 'invalid_request', message: 'feed: must be a feed id' } },
        { feed: 1, error: { code: 'invalid_request', message: 'fields: must be an array of strings' } },
        { feed: 'abc', error: { code: 'feed_not_found', message: 'There is no feed "abc" in this project.' } },
      ]);
      assert.deepEqual(ids(answers[5]), p(1, 2));
      // The feed endpoint says the same of the same bodies.
      const limit0 = await single(1, { limit: 0 });
      assert.deepEqual(limit0.json(), { error: answers[0]!.error });
      const unknown = await single(99, { limit: 4 });
      assert.deepEqual([unknown.statusCode, unknown.json()], [404, { error: answers[1]!.error }]);
    });

    it('checks credentials and the source as the feed endpoint does; an apiKey may ask too', async () => {
      const body = { ...VISITOR, requests: [entry(1, 2)] };
      for (const [headers, url] of [[{}, BATCH], [{ authorization: basic('web0.wrong') }, BATCH], [AUTH, '/v1/acme/projects/held/feeds/data']] as const) {
        const [batchRes, singleRes] = await Promise.all([
          h.app.inject({ method: 'POST', url, headers, payload: body }),
          h.app.inject({ method: 'POST', url: url.replace('feeds/data', 'feeds/1/data'), headers, payload: { ...VISITOR, limit: 2, fields: [] } }),
        ]);
        assert.ok(batchRes.statusCode >= 400, batchRes.body);
        assert.deepEqual([batchRes.statusCode, batchRes.json()], [singleRes.statusCode, singleRes.json()]);
      }
      const other = await h.app.inject({ method: 'POST', url: BATCH, headers: AUTH, payload: { ...body, sourceId: 'ios' } });
      assert.deepEqual([other.statusCode, other.json()], [403, { error: { code: 'source_not_allowed', message: 'The source "ios" is not a source of this project.' } }]);
      assert.deepEqual((await batch(body, `${BATCH}?apiKey=srv0.k`, {})).map(ids), [p(1, 2)]);
    });

    it('a person in the recommendations holdout gets no products from any request of the batch', async () => {
      const held = '/v1/acme/projects/held';
      const auth = { authorization: basic('web50.k') };
      const people = Array.from({ length: 40 }, (_, i) => `person-${i}`);
      const heldOut: string[] = [];
      const shown: string[] = [];
      for (const profileId of people) {
        const res = await h.app.inject({ method: 'POST', url: `${held}/feeds/1/data`, headers: auth, payload: { profileId, sourceId: 'web', limit: 1, fields: [] } });
        ((res.json() as Answer).holdout === true ? heldOut : shown).push(profileId);
      }
      assert.ok(heldOut.length > 0 && shown.length > 0, 'a share of 50 % puts some of 40 people on each side');
      const requests = [entry(1, 2), entry(2, 2), entry(99)];
      assert.deepEqual(await batch({ profileId: heldOut[0], sourceId: 'web', requests }, `${held}/feeds/data`, auth), [
        { feed: 1, products: [], holdout: true },
        { feed: 2, products: [], holdout: true },
        { feed: 99, error: { code: 'feed_not_found', message: 'There is no feed "99" in this project.' } },
      ]);
      const answers = await batch({ profileId: shown[0], sourceId: 'web', requests: requests.slice(0, 2) }, `${held}/feeds/data`, auth);
      assert.deepEqual(answers.map(ids), [p(3, 4), p(1, 2)]);
    });
  });
}
