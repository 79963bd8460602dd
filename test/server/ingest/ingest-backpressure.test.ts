// Backpressure: a node holds at most `maxPendingEvents` events accepted but not yet committed. Past it a track
// request is answered 503 `overloaded` with Retry-After and nothing of its batch is stored, so a sustained overload
// slows senders (the SDK's outbox retries) instead of growing the process's memory; what was refused and sent again
// is stored once, like any resend. Product events the recommendation models have yet to count are held too, unless
// the models are failing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import pg from 'pg';
import { feedIds, putCatalog, recommendationsConfig } from '../helpers/recommendation-fixtures.js';
import { buildApp } from '../../../server/app.js';
import { DRIVERS, POSTGRES_DRIVER } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp, useSqliteWithSide } from '../helpers/use-test-app.js';
import { listEvents } from '../helpers/stored-rows.js';

const TRACK = '/v1/acme/projects/shop/sources/web/track';

for (const driver of DRIVERS) {
  describe(`ingestion backpressure (${driver.name})`, () => {
    const h = useApp(driver, { maxPendingEvents: 100 });
    const post = (batch: ServiceEvent[]) => h.app.inject({
      method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch },
    });

    it('refuses batches past the bound with 503 overloaded and Retry-After, storing nothing of them; a resend is stored once', async () => {
      const batches = Array.from({ length: 12 }, (_, b) => Array.from({ length: 40 }, () => makeEvent({ profileId: `bp-${driver.name}-${b}` })));
      const answers = await Promise.all(batches.map(post));
      const refused = answers.flatMap((a, i) => (a.statusCode === 503 ? [i] : []));
      const taken = answers.flatMap((a, i) => (a.statusCode === 200 ? [i] : []));
      assert.equal(refused.length + taken.length, batches.length, answers.map((a) => a.statusCode).join(' '));
      assert.ok(refused.length > 0, 'some batches are refused');
      assert.ok(taken.length >= 2, 'the bound lets two batches of 40 through');
      for (const i of refused) {
        assert.equal(answers[i]!.headers['retry-after'], '1');
        assert.equal(answers[i]!.json<{ error: { code: string } }>().error.code, 'overloaded');
        assert.equal((await listEvents(h.storage, 'acme/shop', { profileId: `bp-${driver.name}-${i}` })).length, 0);
      }
      for (const i of taken) assert.deepEqual(answers[i]!.json(), { accepted: 40, duplicates: 0 });

      // The senders retry what was refused (one at a time, as an outbox does), and everything is there once.
      for (const i of [...refused, taken[0]!]) {
        const again = await post(batches[i]!);
        assert.equal(again.statusCode, 200);
        assert.deepEqual(again.json(), i === taken[0] ? { accepted: 0, duplicates: 40 } : { accepted: 40, duplicates: 0 });
      }
      for (let b = 0; b < batches.length; b++) {
        assert.equal((await listEvents(h.storage, 'acme/shop', { profileId: `bp-${driver.name}-${b}` })).length, 40);
      }
    });

    it('takes a batch larger than the bound when nothing else is waiting', async () => {
      const batch = Array.from({ length: 150 }, () => makeEvent({ profileId: `bp-big-${driver.name}` }));
      const answer = await post(batch);
      assert.equal(answer.statusCode, 200);
      assert.deepEqual(answer.json(), { accepted: 150, duplicates: 0 });
    });
  });
}

/** `size` product views of one session, each of another product. */
const views = (session: string, size: number): ServiceEvent[] => Array.from({ length: size }, (_, i) => makeEvent({
  type: 'product', name: 'Product viewed', profileId: session, sessionId: session, data: { productId: `${session}-${i}` },
}));

describe('ingestion backpressure counts what the models have yet to count (postgres)', () => {
  const h = useApp(POSTGRES_DRIVER, { config: recommendationsConfig(), maxPendingEvents: 100 });
  const post = (batch: ServiceEvent[]) => h.app.inject({
    method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch },
  });

  it('refuses product events past the bound while the models lag, and takes them once they caught up', async () => {
    // Another client holds a lock the applier needs: its pass waits (slow models, not failing ones).
    const locker = new pg.Client({ connectionString: h.db.location });
    await locker.connect();
    try {
      await putCatalog(h.app, [{ id: 'mb-a-59' }]);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE product_scores IN EXCLUSIVE MODE');
      assert.equal((await post(views('mb-a', 60))).statusCode, 200);
      const refused = await post(views('mb-b', 60));
      assert.equal(refused.statusCode, 503, refused.body);
      assert.equal(refused.json<{ error: { code: string } }>().error.code, 'overloaded');
      assert.equal(refused.headers['retry-after'], '1');
      assert.equal((await post(views('mb-c', 30))).statusCode, 200, 'what fits under the bound is taken');
      // A feed read does not wait for stuck models for ever: it answers from what they hold (not yet mb-a's views).
      assert.deepEqual(await feedIds(h.app, 4, { profileId: 'mb-a', limit: 1 }), ['cfg-1']);
      await locker.query('COMMIT');
      await h.app.svc.models.settle();
      assert.equal(h.app.svc.models.behind, 0);
      assert.deepEqual(await feedIds(h.app, 4, { profileId: 'mb-a', limit: 1 }), ['mb-a-59']);
      assert.deepEqual((await post(views('mb-b', 60))).json(), { accepted: 60, duplicates: 0 });
    } finally {
      await locker.end();
    }
  });
});

describe('ingestion never waits for failing models (sqlite)', () => {
  const h = useSqliteWithSide();

  it('takes batches past the bound while the models fail, and the models count them all once they work again', async () => {
    const app = await buildApp({ config: testConfig(), storage: h.storage, maxPendingEvents: 100 });
    const post = (batch: ServiceEvent[]) => app.inject({
      method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch },
    });
    try {
      h.side.exec("CREATE TRIGGER poison BEFORE INSERT ON product_scores BEGIN SELECT RAISE(ABORT, 'poisoned'); END");
      assert.equal((await post(views('mf-a', 60))).statusCode, 200);
      await app.svc.models.settle();
      assert.equal(app.svc.models.failing, true);
      assert.equal((await post(views('mf-b', 60))).statusCode, 200);
      assert.match((await app.inject({ url: '/metrics' })).body, /\nsvc_model_events_behind 120\n/);
      h.side.exec('DROP TRIGGER poison');
      // A poll's pass may have started before the drop and fail once more: the next one finds the trigger gone.
      do await app.svc.models.settle();
      while (app.svc.models.failing);
      assert.equal(app.svc.models.failing, false);
      assert.equal(app.svc.models.behind, 0);
      const scored = h.side.prepare("SELECT COUNT(*) AS n FROM product_scores WHERE product_id LIKE 'mf-%'").get() as { n: number };
      assert.equal(scored.n, 120);
    } finally {
      await app.close();
    }
  });
});
