// The catalog API and the feed endpoint over app.inject(), and Choose's feed-backed experiences, on SQLite and
// PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { API_KEY, WRITE_AUTH, feedIds, productEvent, recommendationsConfig, track } from '../helpers/recommendation-fixtures.js';
import { useApp } from '../helpers/use-test-app.js';
import { recommend } from '../../../server/recommendations/catalog-store.js';

const CATALOG = `/v1/acme/projects/shop/catalog?apiKey=${API_KEY}`;
const FEED_1 = '/v1/acme/projects/shop/feeds/1/data';
const GOOD_FEED_BODY = { profileId: 'api-p', sourceId: 'web', limit: 4, fields: ['title', 'price'] };

// Spec as data: each broken product and the message naming its index and field.
const INVALID_PRODUCTS: { name: string; product: unknown; message: string }[] = [
  { name: 'price a string', product: { id: 'x', price: '12' }, message: 'products[2].price: must be a number' },
  { name: 'negative price', product: { id: 'x', price: -1 }, message: 'products[2].price: must be >= 0' },
  { name: 'id missing', product: { title: 'No id' }, message: 'products[2].id: must be a non-empty string' },
  { name: 'id a number', product: { id: 7 }, message: 'products[2].id: must be a non-empty string' },
  { name: 'title an object', product: { id: 'x', title: {} }, message: 'products[2].title: must be a string' },
  { name: 'available a string', product: { id: 'x', available: 'no' }, message: 'products[2].available: must be a boolean' },
  { name: 'not an object', product: 'x', message: 'products[2]: must be an object' },
];

// Spec as data: feed bodies refused with 400 invalid_request.
const INVALID_FEED_BODIES: { name: string; body: Record<string, unknown>; message: string }[] = [
  { name: 'limit 0', body: { ...GOOD_FEED_BODY, limit: 0 }, message: 'limit: must be an integer between 1 and 100' },
  { name: 'limit 101', body: { ...GOOD_FEED_BODY, limit: 101 }, message: 'limit: must be an integer between 1 and 100' },
  { name: 'limit 2.5', body: { ...GOOD_FEED_BODY, limit: 2.5 }, message: 'limit: must be an integer between 1 and 100' },
  { name: 'fields a string', body: { ...GOOD_FEED_BODY, fields: 'title' }, message: 'fields: must be an array of strings' },
  { name: 'a field a number', body: { ...GOOD_FEED_BODY, fields: ['title', 3] }, message: 'fields[1]: must be a non-empty string of at most 64 characters' },
  { name: 'too many fields', body: { ...GOOD_FEED_BODY, fields: Array.from({ length: 51 }, (_, i) => `f${i}`) }, message: 'fields: must have at most 50 entries' },
  { name: 'profileId missing', body: { ...GOOD_FEED_BODY, profileId: undefined }, message: 'profileId: must be a non-empty string' },
  { name: 'sourceId missing', body: { ...GOOD_FEED_BODY, sourceId: undefined }, message: 'sourceId: must be a non-empty string' },
];

const ndjson = (items: readonly unknown[]): string => items.map((p) => JSON.stringify(p)).join('\n') + '\n';

for (const driver of DRIVERS) {
  describe(`catalog API and feed endpoint (${driver.name})`, () => {
    const h = useApp(driver, { config: recommendationsConfig() });

    const put = (payload: string, contentType = 'application/json', url = CATALOG, headers: Record<string, string> = {}) =>
      h.app.inject({ method: 'PUT', url, payload, headers: { 'content-type': contentType, ...headers } });
    const feed = (body: unknown, headers: Record<string, string> = WRITE_AUTH, url = FEED_1) =>
      h.app.inject({ method: 'POST', url, headers, payload: body as Record<string, unknown> });

    it('seeds the configured catalog: its available products are served, unavailable ones never', async () => {
      const res = await feed({ ...GOOD_FEED_BODY, limit: 100 });
      assert.equal(res.statusCode, 200);
      const ids = (res.json() as { products: { id: string }[] }).products.map((p) => p.id);
      assert.ok(ids.includes('cfg-1'));
      assert.ok(!ids.includes('cfg-2'));
    });

    it('answers a relative url and image against the service\'s own origin, and leaves absolute ones as they are', async () => {
      assert.equal((await put(JSON.stringify([{ id: 'abs-1', title: 'Abs', url: 'https://cdn.example.net/p/abs-1', image: 'https://cdn.example.net/abs-1.jpg' }]))).statusCode, 200);
      const res = await feed({ ...GOOD_FEED_BODY, limit: 100, fields: ['url', 'image'] }, { ...WRITE_AUTH, host: 'svc.example.com:8787' });
      assert.equal(res.statusCode, 200, res.body);
      const products = (res.json() as { products: { id: string; url: string; image: string }[] }).products;
      assert.deepEqual(products.find((p) => p.id === 'cfg-1'), { id: 'cfg-1', url: 'http://svc.example.com:8787/p/cfg-1', image: 'http://svc.example.com:8787/img/cfg-1.jpg' });
      assert.deepEqual(products.find((p) => p.id === 'abs-1'), { id: 'abs-1', url: 'https://cdn.example.net/p/abs-1', image: 'https://cdn.example.net/abs-1.jpg' });
    });

    it('PUT catalog takes a JSON array and answers {upserted}', async () => {
      const res = await put(JSON.stringify([{ id: 'arr-1', title: 'One', price: 1 }, { id: 'arr-2', title: 'Two', price: 2, color: 'red' }]));
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { upserted: 2 });
    });

    it('PUT catalog takes an NDJSON stream (blank lines ignored, a repeated id keeps its last version)', async () => {
      const body = `${JSON.stringify({ id: 'nd-1', title: 'Old' })}\n\n${JSON.stringify({ id: 'nd-2' })}\n${JSON.stringify({ id: 'nd-1', title: 'New' })}`;
      const res = await put(body, 'application/x-ndjson');
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { upserted: 2 });
      const products = (await recommend(h.storage, 'acme/shop', { strategy: 'popular', limit: 100, profileId: 'x' }));
      assert.equal(products.find((p) => p.id === 'nd-1')?.title, 'New');
    });

    for (const c of INVALID_PRODUCTS) {
      it(`PUT catalog refuses the whole upload naming the item: ${c.name}`, async () => {
        const items = [{ id: 'never-1' }, { id: 'never-2' }, c.product];
        for (const [payload, type] of [[JSON.stringify(items), 'application/json'], [ndjson(items), 'application/x-ndjson']] as const) {
          const res = await put(payload, type);
          assert.equal(res.statusCode, 400, type);
          assert.deepEqual(res.json(), { error: { code: 'invalid_product', message: c.message } }, type);
        }
        const all = await recommend(h.storage, 'acme/shop', { strategy: 'popular', limit: 100, profileId: 'x' });
        assert.ok(!all.some((p) => p.id.startsWith('never-')), 'nothing of a refused upload is stored');
      });
    }

    it('PUT catalog names an NDJSON line that is not JSON', async () => {
      const res = await put(`${JSON.stringify({ id: 'ok' })}\n{"id": broken\n`, 'application/x-ndjson');
      assert.deepEqual(res.json(), { error: { code: 'invalid_product', message: 'products[1]: is not valid JSON' } });
    });

    it('PUT catalog refuses a body that is not an array, or an empty one (invalid_catalog)', async () => {
      for (const payload of ['{"id":"x"}', '[]']) {
        const res = await put(payload);
        assert.equal(res.statusCode, 400);
        assert.equal((res.json() as { error: { code: string } }).error.code, 'invalid_catalog');
      }
      assert.equal((await put('\n\n', 'application/x-ndjson')).json().error.code, 'invalid_catalog');
    });

    it('PUT catalog is for apiKey callers only: a writeKey 401, no key 401, another project\'s apiKey 403', async () => {
      const items = JSON.stringify([{ id: 'auth-x' }]);
      const writeKey = await put(items, 'application/json', '/v1/acme/projects/shop/catalog', { authorization: basic('web1.p4ss') });
      assert.equal(writeKey.statusCode, 401);
      assert.equal(writeKey.json().error.code, 'invalid_credentials');
      const none = await put(items, 'application/json', '/v1/acme/projects/shop/catalog');
      assert.equal(none.statusCode, 401);
      assert.equal(none.json().error.code, 'missing_credentials');
      const other = await put(items, 'application/json', '/v1/acme/projects/shop/catalog?apiKey=srvblog.x');
      assert.equal(other.statusCode, 403);
      assert.equal(other.json().error.code, 'key_not_for_project');
    });

    it('PUT catalog stores 100,000 products in one NDJSON call', async () => {
      const lines: string[] = [];
      for (let i = 0; i < 100_000; i++) {
        lines.push(JSON.stringify({ id: `bulk-${String(i).padStart(6, '0')}`, title: `Bulk ${i}`, price: i % 500, currency: 'EUR', url: `/p/${i}`, image: `/i/${i}.jpg`, category: 'bulk', available: true }));
      }
      const res = await put(lines.join('\n'), 'application/x-ndjson');
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { upserted: 100_000 });
      const tooMany = await put(`${lines.join('\n')}\n${JSON.stringify({ id: 'one-more' })}`, 'application/x-ndjson');
      assert.equal(tooMany.statusCode, 400);
      assert.equal(tooMany.json().error.code, 'invalid_catalog');
    });

    it('feed endpoint answers {products:[{id, …requested fields}], recommendationId}: only those fields, unknown ones absent', async () => {
      await put(JSON.stringify([{ id: 'fld-1', title: 'Field one', price: 9, secret: 'internal', available: true }]));
      await track(h.app, [productEvent('Product ordered', 'fld-1', { orderId: 'fld-o' }), productEvent('Product ordered', 'fld-1', { orderId: 'fld-o2' })]);
      const res = await feed({ ...GOOD_FEED_BODY, limit: 1, fields: ['title', 'price', 'nope'] });
      assert.equal(res.statusCode, 200);
      const { recommendationId, ...rest } = res.json() as { recommendationId: string };
      assert.deepEqual(rest, { products: [{ id: 'fld-1', title: 'Field one', price: 9 }] });
      assert.match(recommendationId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    });

    it('feed endpoint takes an apiKey too', async () => {
      const res = await feed(GOOD_FEED_BODY, {}, `${FEED_1}?apiKey=${API_KEY}`);
      assert.equal(res.statusCode, 200);
      assert.equal((res.json() as { products: unknown[] }).products.length, 4);
    });

    for (const c of INVALID_FEED_BODIES) {
      it(`feed endpoint refuses ${c.name} with 400 invalid_request`, async () => {
        const res = await feed(c.body);
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { error: { code: 'invalid_request', message: c.message } });
      });
    }

    it('feed endpoint: unknown feed 404 feed_not_found, foreign source 403, no key 401, other project 403', async () => {
      for (const id of ['9', 'abc', '0']) {
        const res = await feed(GOOD_FEED_BODY, WRITE_AUTH, `/v1/acme/projects/shop/feeds/${id}/data`);
        assert.equal(res.statusCode, 404, id);
        assert.equal(res.json().error.code, 'feed_not_found');
      }
      const source = await feed({ ...GOOD_FEED_BODY, sourceId: 'app' });
      assert.equal(source.statusCode, 403);
      assert.equal(source.json().error.code, 'source_not_allowed');
      assert.equal((await feed(GOOD_FEED_BODY, {})).statusCode, 401);
      const other = await feed(GOOD_FEED_BODY, { authorization: basic('webblog.y') });
      assert.equal(other.statusCode, 403);
      assert.equal(other.json().error.code, 'key_not_for_project');
    });

    it('Choose: a feed-backed experience returns the same list as the feed endpoint', async () => {
      await track(h.app, [productEvent('Product viewed', 'arr-2', { profileId: 'ch-p' }), productEvent('Product viewed', 'arr-1', { profileId: 'ch-p' })]);
      const res = await h.app.inject({
        method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api', headers: WRITE_AUTH,
        payload: { identification: { sourceId: 'web', profileId: 'ch-p' }, names: ['recs'] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const choice = (res.json() as { choices: { name: string; body: { products: { id: string; title?: string }[] } }[] }).choices[0];
      assert.equal(choice?.name, 'recs');
      const fromFeed = await feedIds(h.app, 1, { profileId: 'ch-p', limit: 5 });
      assert.equal(fromFeed.length, 5);
      assert.deepEqual(choice?.body.products.map((p) => p.id), fromFeed);
    });

    it('Choose: a second device of an identified person gets the feed of its own profile, as the feed endpoint answers it', async () => {
      // Assignments follow the person (its first profile, dv-1); a profile-dependent feed follows the profile asked for.
      await track(h.app, [
        { ...productEvent('Product viewed', 'arr-4', { profileId: 'dv-1' }) },
        { ...productEvent('Product viewed', 'arr-1', { profileId: 'dv-1' }), type: 'identify', name: 'Identify', userId: 'dv-user' },
      ]);
      await track(h.app, [
        { ...productEvent('Product viewed', 'arr-2', { profileId: 'dv-2' }), type: 'identify', name: 'Identify', userId: 'dv-user' },
        productEvent('Product viewed', 'arr-2', { profileId: 'dv-2' }),
      ]);
      const res = await h.app.inject({
        method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api', headers: WRITE_AUTH,
        payload: { identification: { sourceId: 'web', profileId: 'dv-2' }, names: ['recent-recs'] },
      });
      assert.equal(res.statusCode, 200, res.body);
      const choice = (res.json() as { choices: { body: { products: { id: string }[] } }[] }).choices[0];
      const own = await feedIds(h.app, 4, { profileId: 'dv-2', limit: 3 });
      assert.notDeepEqual(own, await feedIds(h.app, 4, { profileId: 'dv-1', limit: 3 }), 'the two profiles viewed different products');
      assert.deepEqual(choice?.body.products.map((p) => p.id), own);
    });
  });
}
