// The catalog's merchandising fields (brand, tags, inventory) and its partial update, PATCH …/catalog, as a shop's stock
// webhook calls it, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { op } from '../../../server/storage/sql-program.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { API_KEY, feedIds, putCatalog, recommendationsConfig, WRITE_AUTH } from '../helpers/recommendation-fixtures.js';
import { useApp } from '../helpers/use-test-app.js';

const URL = `/v1/acme/projects/shop/catalog?apiKey=${API_KEY}`;

for (const driver of DRIVERS) {
  describe(`catalog PATCH and merchandising fields (${driver.name})`, () => {
    const h = useApp(driver, { config: recommendationsConfig() });
    const patch = (payload: unknown, url = URL, headers: Record<string, string> = {}) =>
      h.app.inject({ method: 'PATCH', url, headers, payload: payload as Record<string, unknown> });
    const stored = async (id: string): Promise<Record<string, unknown> | undefined> => {
      const rows = await h.storage.run(function* () {
        return (yield op('SELECT data FROM catalog_products WHERE project = ? AND product_id = ?', 'acme/shop', id)).rows;
      });
      return rows[0] ? JSON.parse(String(rows[0].data)) as Record<string, unknown> : undefined;
    };
    const prices = async (id: string): Promise<number[]> => {
      const rows = await h.storage.run(function* () {
        return (yield op('SELECT price FROM catalog_prices WHERE project = ? AND product_id = ? ORDER BY since', 'acme/shop', id)).rows;
      });
      return rows.map((r) => Number(r.price));
    };

    it('stores brand, tags and inventory beside the other fields', async () => {
      await putCatalog(h.app, [{ id: 'mf-1', title: 'Mug', price: 12, brand: 'acme', tags: ['ceramic', 'gift'], inventory: 7 }]);
      assert.deepEqual(await stored('mf-1'), { id: 'mf-1', title: 'Mug', price: 12, brand: 'acme', tags: ['ceramic', 'gift'], inventory: 7 });
    });

    it('refuses a product whose brand, tags or inventory has the wrong type, naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ id: 'mf-x', brand: 3 }, 'products[0].brand: must be a string'],
        [{ id: 'mf-x', tags: 'gift' }, 'products[0].tags: must be an array of strings'],
        [{ id: 'mf-x', tags: ['gift', 2] }, 'products[0].tags: must be an array of strings'],
        [{ id: 'mf-x', inventory: '4' }, 'products[0].inventory: must be a number'],
      ];
      for (const [product, message] of cases) {
        const res = await h.app.inject({ method: 'PUT', url: URL, payload: [product] });
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json(), { error: { code: 'invalid_product', message } });
      }
      assert.equal(await stored('mf-x'), undefined);
    });

    it('sets inventory, availability and price of stored products, keeping their other fields', async () => {
      await putCatalog(h.app, [{ id: 'pa-1', title: 'Kettle', price: 40, currency: 'EUR', inventory: 3 }, { id: 'pa-2', title: 'Pot', price: 20 }]);
      const res = await patch([{ id: 'pa-1', inventory: 0, available: false }, { id: 'pa-2', price: 18.5 }]);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { updated: 2, notFound: [] });
      assert.deepEqual(await stored('pa-1'), { id: 'pa-1', title: 'Kettle', price: 40, currency: 'EUR', inventory: 0, available: false });
      assert.deepEqual(await stored('pa-2'), { id: 'pa-2', title: 'Pot', price: 18.5 });
    });

    it('adds a price history row when the price changes, and none when it does not', async () => {
      await putCatalog(h.app, [{ id: 'ph-1', price: 10 }]);
      assert.deepEqual(await prices('ph-1'), [10]);
      await patch([{ id: 'ph-1', inventory: 5 }]);
      await patch([{ id: 'ph-1', price: 10 }]);
      assert.deepEqual(await prices('ph-1'), [10]);
      await patch([{ id: 'ph-1', price: 12 }]);
      assert.deepEqual((await prices('ph-1')).at(-1), 12);
    });

    it('reports ids the catalog does not hold as notFound, creates nothing for them, and applies the rest', async () => {
      await putCatalog(h.app, [{ id: 'nf-1', price: 5 }]);
      const res = await patch([{ id: 'nf-missing', inventory: 3 }, { id: 'nf-1', inventory: 2 }]);
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual(res.json(), { updated: 1, notFound: ['nf-missing'] });
      assert.equal(await stored('nf-missing'), undefined);
      assert.equal((await stored('nf-1'))?.inventory, 2);
    });

    it('applies a repeated id\'s updates in order', async () => {
      await putCatalog(h.app, [{ id: 'rp-1', price: 5 }]);
      await patch([{ id: 'rp-1', inventory: 9, price: 6 }, { id: 'rp-1', inventory: 8 }]);
      assert.deepEqual(await stored('rp-1'), { id: 'rp-1', price: 6, inventory: 8 });
    });

    it('refuses bad input with 400 naming the item, and changes nothing (not even the good items before it)', async () => {
      await putCatalog(h.app, [{ id: 'bad-1', price: 5, inventory: 1 }]);
      const cases: [unknown, string, string][] = [
        [{ id: 'bad-1', inventory: 2 }, 'invalid_catalog', 'The body must be a JSON array of {id, available?, inventory?, price?}.'],
        [[], 'invalid_catalog', 'The body holds no updates.'],
        [[{ id: 'bad-1', inventory: 2 }, { id: 'bad-1', price: -1 }], 'invalid_product', 'updates[1].price: must be >= 0'],
        [[{ id: 'bad-1', inventory: 2 }, { id: 'bad-1', available: 'no' }], 'invalid_product', 'updates[1].available: must be a boolean'],
        [[{ id: 'bad-1', inventory: '2' }], 'invalid_product', 'updates[0].inventory: must be a number'],
        [[{ id: 'bad-1', title: 'New' }], 'invalid_product', 'updates[0].title: is not changed by PATCH (available, inventory, price); PUT the whole product to change it'],
        [[{ id: 'bad-1' }], 'invalid_product', 'updates[0]: must set at least one of available, inventory, price'],
        [[{ inventory: 2 }], 'invalid_product', 'updates[0].id: must be a non-empty string'],
      ];
      for (const [body, code, message] of cases) {
        const res = await patch(body);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json(), { error: { code, message } });
      }
      assert.deepEqual(await stored('bad-1'), { id: 'bad-1', price: 5, inventory: 1 });
    });

    it('takes an apiKey only: a writeKey may not change stock or prices', async () => {
      await putCatalog(h.app, [{ id: 'wk-1', price: 5 }]);
      const res = await patch([{ id: 'wk-1', price: 0 }], '/v1/acme/projects/shop/catalog', WRITE_AUTH);
      assert.equal(res.statusCode, 401, res.body);
      assert.equal((await stored('wk-1'))?.price, 5);
    });

    it('a product made unavailable by PATCH leaves the feeds at once', async () => {
      await putCatalog(h.app, [{ id: 'gone-1', title: 'Gone' }]);
      assert.ok((await feedIds(h.app, 1, { limit: 100 })).includes('gone-1'));
      await patch([{ id: 'gone-1', available: false }]);
      assert.ok(!(await feedIds(h.app, 1, { limit: 100 })).includes('gone-1'));
    });
  });
}
