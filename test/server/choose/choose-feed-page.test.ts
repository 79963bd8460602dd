// Feed-backed experiences in Choose answers: the request's `productId` is the page's product, as on the feed endpoint
// (`same` conditions, `popular-in-category`, never the product itself), and an answer's feeds that dedupe repeat no
// product across them. Through the real Choose endpoint, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const URL = '/v1/acme/projects/shop/optimization/choose-api';
const AUTH = { authorization: basic('web1.p4ss') };
const MUGS = ['m1', 'm2', 'm3'];
const PLATES = ['t1', 't2'];

function config(): ServiceConfigFile {
  return { organizations: { acme: { projects: { shop: {
    apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
    feeds: [
      { id: 1, strategy: 'popular', rules: [{ filter: { category: { same: true } } }], fallback: [] },
      { id: 2, strategy: 'recently-viewed', fallback: ['popular-in-category'] },
      { id: 3, strategy: 'popular' },
      { id: 4, strategy: 'popular' },
      { id: 5, strategy: 'popular', dedupe: false },
    ],
    experiences: [
      { name: 'same-category', feed: 1, limit: 10 },
      { name: 'category-popular', feed: 2, limit: 10 },
      { name: 'recs-a', feed: 3, limit: 3 },
      { name: 'recs-b', feed: 4, limit: 3 },
      { name: 'recs-keep', feed: 5, limit: 3 },
    ],
    catalog: [
      { id: 'page', category: 'mugs' }, ...MUGS.map((id) => ({ id, category: 'mugs' })), ...PLATES.map((id) => ({ id, category: 'plates' })),
    ],
  } } } } };
}

type Choices = { name: string; body: { products: { id: string }[] } }[];

for (const driver of DRIVERS) {
  describe(`Choose: feed-backed experiences on a product page (${driver.name})`, () => {
    const h = useApp(driver, () => ({ config: config() }));
    const choose = async (body: Record<string, unknown>): Promise<Record<string, string[]>> => {
      const res = await h.app.inject({
        method: 'POST', url: URL, headers: AUTH,
        payload: { identification: { sourceId: 'web', profileId: 'visitor' }, deferExposure: true, ...body },
      });
      assert.equal(res.statusCode, 200, res.body);
      return Object.fromEntries((res.json() as { choices: Choices }).choices.map((c) => [c.name, c.body.products.map((p) => p.id).sort()]));
    };

    it('a same-category filter holds for the request\'s productId, and the page product is left out', async () => {
      assert.deepEqual((await choose({ names: ['same-category'], productId: 'page' }))['same-category'], MUGS);
      assert.deepEqual((await choose({ names: ['same-category'] }))['same-category'], ['page', ...MUGS, ...PLATES].sort(),
        'without a productId the relative condition is left out');
    });

    it('popular-in-category fills from the page product\'s category; nothing without a productId', async () => {
      assert.deepEqual((await choose({ names: ['category-popular'], productId: 'page' }))['category-popular'], MUGS);
      assert.deepEqual((await choose({ names: ['category-popular'] }))['category-popular'], []);
    });

    it('a numeric productId is the product with that id, as on the feed endpoint', async () => {
      const res = await h.app.inject({ method: 'POST', url: URL, headers: AUTH, payload: { identification: { sourceId: 'web', profileId: 'v' }, names: ['recs-a'], productId: 7 } });
      assert.equal(res.statusCode, 200, res.body);
    });

    it('two deduping feeds of one answer repeat no product, and the page product is in neither', async () => {
      const answer = await choose({ names: ['recs-a', 'recs-b'], productId: 'page' });
      assert.equal(answer['recs-a']!.length, 3);
      // Five products besides the page's: the second feed gets the two the first left.
      assert.deepEqual([...answer['recs-a']!, ...answer['recs-b']!].sort(), [...MUGS, ...PLATES].sort());
    });

    it('a deduping feed asked before one that does not dedupe still repeats none of its products', async () => {
      const answer = await choose({ names: ['recs-a', 'recs-keep'] });
      const alone = await choose({ names: ['recs-keep'] });
      assert.deepEqual(answer['recs-keep'], alone['recs-keep'], 'dedupe: false leaves nothing out');
      assert.deepEqual(answer['recs-a']!.filter((id) => answer['recs-keep']!.includes(id)), []);
    });

    const refused: [string, unknown, string][] = [
      ['an empty productId', '', 'productId: must be a non-empty string'],
      ['an object', { id: 'p1' }, 'productId: must be a non-empty string'],
      ['a boolean', true, 'productId: must be a non-empty string'],
    ];
    for (const [what, productId, message] of refused) {
      it(`refuses ${what} as productId with the feed endpoint's message`, async () => {
        const res = await h.app.inject({ method: 'POST', url: URL, headers: AUTH, payload: { identification: { sourceId: 'web', profileId: 'v' }, names: ['recs-a'], productId } });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { error: { code: 'invalid_request', message } });
      });
    }

    it('a body refused before keeps its code and message whatever its productId', async () => {
      const res = await h.app.inject({ method: 'POST', url: URL, headers: AUTH, payload: { identification: { sourceId: 'web', profileId: 'v' }, productId: '' } });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { error: { code: 'names_or_groups_required', message: "Send 'names' or 'groups' to choose experiences." } });
    });
  });
}
