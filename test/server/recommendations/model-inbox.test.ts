// The recommendation models' inbox: ingestion appends a batch's model events, an applier folds them into the models
// in chunks after the answer, each exactly once. On SQLite (the writer thread) and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import { ingestBatch } from '../../../server/programs.js';
import { upsertProducts } from '../../../server/recommendations/catalog-store.js';
import { applyModelInbox, applyModelsNow } from '../../../server/recommendations/model-inbox.js';
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import { makeEvent } from '../helpers/events.js';
import { WRITE_AUTH, feedIds, productEvent, putCatalog, recommendationsConfig } from '../helpers/recommendation-fixtures.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp, useStorage } from '../helpers/use-test-app.js';

const P = 'acme/shop';

async function count(storage: Storage, sql: string, ...params: string[]): Promise<number> {
  return storage.run(function* () {
    return Number((yield op(sql, ...params)).rows[0]?.n);
  });
}

const inboxRows = (storage: Storage): Promise<number> => count(storage, 'SELECT COUNT(*) AS n FROM model_inbox');

const MODEL_COLUMNS = {
  product_scores: 'product_id, score',
  baskets: 'kind, basket_id, product_id',
  co_occurrence: 'kind, a, b, count',
  profile_recent: 'profile_id, product_id, last_seen',
};

/** Every model row of a project, table by table (scores to 12 digits: sums of the same terms in another order). */
async function models(storage: Storage, project: string): Promise<Record<string, string[]>> {
  const out: Record<string, string[]> = {};
  for (const [table, columns] of Object.entries(MODEL_COLUMNS)) {
    const rows = await storage.run(function* () {
      return (yield op(`SELECT ${columns} FROM ${table} WHERE project = ? ORDER BY ${columns}`, project)).rows;
    });
    out[table] = rows.map((r) => Object.values(r).map((v) => (typeof v === 'number' && !Number.isSafeInteger(v) ? v.toPrecision(12) : String(v))).join(' '));
  }
  return out;
}

for (const driver of DRIVERS) {
  describe(`recommendation models' inbox (${driver.name})`, () => {
    const h = useApp(driver, { config: recommendationsConfig() });

    it('a visitor sees their own views in their next feed, and the inbox is empty once applied', async () => {
      const at = Date.now() - 3000;
      await putCatalog(h.app, ['in-1', 'in-2', 'in-3'].map((id) => ({ id })));
      // Posted as the SDK does (not through track(), which waits for the models): the feed read itself waits.
      const batch = ['in-1', 'in-2', 'in-3'].map((id, i) => productEvent('Product viewed', id, { profileId: 'in-p', sessionId: 'in-s', at: at + i }));
      assert.equal((await h.app.inject({ method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers: WRITE_AUTH, payload: { batch } })).statusCode, 200);
      assert.deepEqual(await feedIds(h.app, 4, { profileId: 'in-p', limit: 3 }), ['in-3', 'in-2', 'in-1']);
      assert.equal(await inboxRows(h.storage), 0);
      assert.match((await h.app.inject({ url: '/metrics' })).body, /\nsvc_model_events_behind 0\n/);
    });

    it('appends one row per batch with model events, none for a batch without any or for a resend', async () => {
      const before = await inboxRows(h.storage);
      const views = [productEvent('Product viewed', 'ap-1', { sessionId: 'ap-s' }), productEvent('Product viewed', 'ap-2', { sessionId: 'ap-s' })];
      assert.equal((await ingestBatch(h.storage, P, 'web', [...views, makeEvent()])).handedOn, 2);
      const unweighted = makeEvent({ type: 'product', name: 'Compared', data: { productId: 'ap-1' } });
      assert.equal((await ingestBatch(h.storage, P, 'web', [makeEvent(), unweighted])).handedOn, 0);
      assert.deepEqual(await ingestBatch(h.storage, P, 'web', views), { accepted: 0, duplicates: 2, identityChanged: false, handedOn: 0 });
      assert.equal(await inboxRows(h.storage), before + 1);
      await applyModelsNow(h.storage);
      assert.equal(await inboxRows(h.storage), 0);
      assert.deepEqual((await models(h.storage, P)).co_occurrence.filter((r) => r.includes('ap-')), ['session ap-1 ap-2 1', 'session ap-2 ap-1 1']);
    });

    it('applies the same models in chunks of one event as all at once, each row once', async () => {
      const sessions = Array.from({ length: 30 }, (_, s) => Array.from({ length: 4 }, (_, i) => productEvent(
        i === 3 ? 'Added to cart' : 'Product viewed', `ch-${(s + i) % 7}`,
        { profileId: `ch-p${s % 5}`, sessionId: `ch-s${s}`, at: Date.parse('2026-01-01') + s * 1000 + i },
      )));
      // A crawler's session past the basket cap (50 products), over three batches: which products pair depends on
      // their order, which chunks must keep.
      const crawl = Array.from({ length: 55 }, (_, i) => productEvent('Product viewed', `chb-${i}`, {
        profileId: 'ch-crawler', sessionId: 'ch-crawl', at: Date.parse('2026-01-02') + i,
      }));
      sessions.push(crawl.slice(0, 20), crawl.slice(20, 40), crawl.slice(40));
      // The app's own applier polls the inbox too: stopped first (this is the suite's last test), so that the chunks
      // below are all this loop's, one row each, whatever the timing.
      await h.app.svc.models.close();
      // The same batches to two projects: one applied a row at a time, the other all at once.
      for (const batch of sessions) await ingestBatch(h.storage, 'acme/blog', 'web', batch);
      let chunks = 0;
      for (let more = true; more; chunks++) ({ more } = await h.storage.transaction(() => applyModelInbox(1)));
      assert.ok(chunks >= 30, `${chunks} chunks`);
      for (const batch of sessions) await ingestBatch(h.storage, 'acme/other', 'web', batch);
      await applyModelsNow(h.storage);
      const blog = await models(h.storage, 'acme/blog');
      assert.equal(blog.product_scores!.length, 7 + 55);
      assert.equal(blog.baskets!.filter((r) => r.includes('ch-crawl')).length, 50, 'the crawl stops pairing at 50 products');
      assert.ok(!blog.co_occurrence!.some((r) => /chb-5[0-4]\b/.test(r)), 'the products past the cap pair with nothing');
      assert.deepEqual(await models(h.storage, 'acme/other'), blog);
      await applyModelsNow(h.storage);
      assert.deepEqual(await models(h.storage, 'acme/blog'), blog, 'a second drain adds nothing');
    });
  });
}

for (const driver of DRIVERS) {
  describe(`recommendation models' inbox after a crash (${driver.name})`, () => {
    const h = useStorage(driver);

    it('applies what a crash left in the inbox when the service starts again, before its first feed read', async () => {
      // Stored and acknowledged, then the process died before its applier ran: the rows wait in the inbox.
      const at = Date.now() - 1000;
      await ingestBatch(h.storage, P, 'web', [
        productEvent('Product viewed', 'cr-1', { profileId: 'cr-p', sessionId: 'cr-s', at }),
        productEvent('Product viewed', 'cr-2', { profileId: 'cr-p', sessionId: 'cr-s', at: at + 1 }),
      ]);
      assert.equal(await inboxRows(h.storage), 1);
      await upsertProducts(h.storage, P, [{ id: 'cr-1' }, { id: 'cr-2' }]);
      const app = await buildApp({ config: recommendationsConfig(), storage: h.storage });
      try {
        assert.deepEqual(await feedIds(app, 4, { profileId: 'cr-p', limit: 2 }), ['cr-2', 'cr-1']);
        assert.deepEqual(await feedIds(app, 2, { productId: 'cr-1', limit: 1 }), ['cr-2']);
        assert.equal(await inboxRows(h.storage), 0);
      } finally {
        await app.close();
      }
    });
  });
}
