// The popular ranking's head kept per project (popular-ranking.ts), on SQLite and PostgreSQL: what it holds, and that
// it is read again once older than its lifetime (a clock of the test's own, no sleeping).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { upsertProducts } from '../../../server/recommendations/catalog-store.js';
import { PopularRankings, RANKING_TTL_MS } from '../../../server/recommendations/popular-ranking.js';
import { op } from '../../../server/storage/sql-program.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useStorage } from '../helpers/use-test-app.js';

for (const driver of DRIVERS) {
  describe(`popular ranking head (${driver.name})`, () => {
    const h = useStorage(driver);
    const score = (project: string, id: string, value: number) => h.storage.transaction(function* () {
      yield op(
        `INSERT INTO product_scores (project, product_id, score) VALUES (?, ?, ?)
         ON CONFLICT (project, product_id) DO UPDATE SET score = excluded.score`,
        project, id, value,
      );
    });

    it('holds available scored products best first, with category and brand, and the places of each value', async () => {
      await upsertProducts(h.storage, 'acme/r1', [
        { id: 'a', category: 'mugs', brand: 'acme' }, { id: 'b', category: 'plates' }, { id: 'c', category: 'mugs' }, { id: 'x', available: false },
      ]);
      for (const [id, value] of [['a', 1], ['b', 3], ['c', 2], ['x', 9]] as const) await score('acme/r1', id, value);
      const ranking = await new PopularRankings(h.storage).get('acme/r1');
      assert.deepEqual(ranking.products, [['b', 'plates', null], ['c', 'mugs', null], ['a', 'mugs', 'acme']]);
      assert.equal(ranking.complete, true);
      assert.deepEqual(ranking.places.category.get('mugs'), [1, 2]);
      assert.deepEqual(ranking.places.brand.get('acme'), [2]);
    });

    it('answers the kept ranking within its lifetime and reads it again after', async () => {
      await upsertProducts(h.storage, 'acme/r2', [{ id: 'a' }, { id: 'b' }]);
      await score('acme/r2', 'a', 2);
      await score('acme/r2', 'b', 1);
      let now = 1_000_000;
      const rankings = new PopularRankings(h.storage, () => now);
      const first = await rankings.get('acme/r2');
      await score('acme/r2', 'b', 5);
      now += RANKING_TTL_MS - 1;
      assert.equal(await rankings.get('acme/r2'), first);
      now += 1;
      assert.deepEqual((await rankings.get('acme/r2')).products.map((p) => p[0]), ['b', 'a']);
    });
  });
}
