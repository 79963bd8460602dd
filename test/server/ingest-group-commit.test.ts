// Concurrent ingestion: batches arriving together share one commit on SQLite (group commit); on both drivers
// every batch is answered as if stored alone, each event is stored once, and a resend after a restart is a
// duplicate. The SQLite-only cases make the database itself fail one batch of a group (a trigger) and check
// that the others are stored and answered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../server/app.js';
import type { IngestResult } from '../../server/ingest/ingest-program.js';
import type { ServiceEvent } from '../../src/event.js';
import { makeEvent } from './helpers/events.js';
import { DRIVERS } from './helpers/storage-drivers.js';
import { basic, testConfig } from './helpers/test-config.js';
import { useSqliteWithSide, useStorage } from './helpers/use-test-app.js';
import { getProfileAttributes, resolveUser } from '../../server/identity/identity-store.js';
import { ingestBatch } from '../../server/ingest/event-store.js';
import { listEvents } from './helpers/stored-rows.js';

const PROJECT = 'acme/shop';
const TRACK = '/v1/acme/projects/shop/sources/web/track';

/** 20 batches of 5 where each batch repeats one event of the previous one: 81 distinct events. */
function overlappingBatches(profileId: string): ServiceEvent[][] {
  const batches: ServiceEvent[][] = [];
  for (let i = 0; i < 20; i++) {
    const batch = Array.from({ length: 4 }, () => makeEvent({ profileId }));
    const previous = batches[i - 1];
    batch.push(previous ? (previous[0] as ServiceEvent) : makeEvent({ profileId }));
    batches.push(batch);
  }
  return batches;
}

function total(results: IngestResult[]): { accepted: number; duplicates: number } {
  return results.reduce((sum, r) => ({ accepted: sum.accepted + r.accepted, duplicates: sum.duplicates + r.duplicates }), { accepted: 0, duplicates: 0 });
}

for (const driver of DRIVERS) {
  describe(`concurrent ingestion (${driver.name})`, () => {
    const h = useStorage(driver);

    it('acknowledges every concurrent batch and stores each event exactly once', async () => {
      const batches = overlappingBatches('gc-once');
      const results = await Promise.all(batches.map((batch) => ingestBatch(h.storage, PROJECT, 'web', batch)));
      results.forEach((r, i) => assert.equal(r.accepted + r.duplicates, (batches[i] as ServiceEvent[]).length));
      assert.deepEqual(total(results), { accepted: 81, duplicates: 19 });
      assert.equal((await listEvents(h.storage, PROJECT, { profileId: 'gc-once' })).length, 81);
    });

    it('applies identity effects of batches stored in one group', async () => {
      const [identify, attributes] = await Promise.all([
        ingestBatch(h.storage, PROJECT, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'gc-p', userId: 'gc-u' })]),
        ingestBatch(h.storage, PROJECT, 'web', [makeEvent({ profileId: 'gc-p', userAttributes: { plan: 'pro' } })]),
      ]);
      assert.deepEqual([identify, attributes], [{ accepted: 1, duplicates: 0, identityChanged: true }, { accepted: 1, duplicates: 0, identityChanged: false }]);
      assert.equal(await resolveUser(h.storage, PROJECT, 'gc-u'), 'gc-p');
      assert.deepEqual(await getProfileAttributes(h.storage, PROJECT, 'gc-p'), { plan: 'pro' });
    });

    it('answers a concurrent resend after a restart with duplicates only', async () => {
      const batches = overlappingBatches('gc-restart');
      await Promise.all(batches.map((batch) => ingestBatch(h.storage, PROJECT, 'web', batch)));
      await h.reopen();
      const results = await Promise.all(batches.map((batch) => ingestBatch(h.storage, PROJECT, 'web', batch)));
      assert.deepEqual(total(results), { accepted: 0, duplicates: 100 });
      assert.equal((await listEvents(h.storage, PROJECT, { profileId: 'gc-restart' })).length, 81);
    });

    it('answers concurrent HTTP requests each with its own counts', async () => {
      const app = await buildApp({ config: testConfig(), storage: h.storage });
      try {
        const batches = overlappingBatches('gc-http');
        const responses = await Promise.all(batches.map((batch) => app.inject({
          method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch },
        })));
        assert.deepEqual(responses.map((r) => r.statusCode), batches.map(() => 200));
        assert.deepEqual(total(responses.map((r) => r.json<IngestResult>())), { accepted: 81, duplicates: 19 });
      } finally {
        await app.close();
      }
    });
  });
}

describe('group commit: a database error fails only its own batch (sqlite)', () => {
  const h = useSqliteWithSide();

  // ABORT undoes the failing statement (the batch's savepoint is rolled back); ROLLBACK ends the whole shared
  // transaction, which the group answers by retrying each batch alone.
  for (const raise of ['ABORT', 'ROLLBACK'] as const) {
    it(`stores and acknowledges the other batches of the group (RAISE(${raise}))`, async () => {
      h.side.exec(`CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.profile_id = 'poison'
        BEGIN SELECT RAISE(${raise}, 'poisoned batch'); END`);
      try {
        const good = [makeEvent({ profileId: `ok-${raise}` }), makeEvent({ profileId: `ok-${raise}` })];
        // The poisoned batch's first event is valid and sorts anywhere: none of it may be kept.
        const bad = [makeEvent({ profileId: `bad-${raise}` }), makeEvent({ profileId: 'poison' })];
        const later = [makeEvent({ profileId: `ok-${raise}` })];
        const outcomes = await Promise.allSettled([
          ingestBatch(h.storage, PROJECT, 'web', good),
          ingestBatch(h.storage, PROJECT, 'web', bad),
          ingestBatch(h.storage, PROJECT, 'web', later),
        ]);
        assert.deepEqual(outcomes[0], { status: 'fulfilled', value: { accepted: 2, duplicates: 0, identityChanged: false } });
        assert.equal(outcomes[1]?.status, 'rejected');
        assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /poisoned batch/);
        assert.deepEqual(outcomes[2], { status: 'fulfilled', value: { accepted: 1, duplicates: 0, identityChanged: false } });
        assert.equal((await listEvents(h.storage, PROJECT, { profileId: `ok-${raise}` })).length, 3);
        assert.equal((await listEvents(h.storage, PROJECT, { profileId: `bad-${raise}` })).length, 0);
      } finally {
        h.side.exec('DROP TRIGGER poison');
      }
    });
  }

  it('answers the failed request with 500 and the others with 200', async () => {
    h.side.exec(`CREATE TRIGGER poison BEFORE INSERT ON events WHEN NEW.profile_id = 'poison'
      BEGIN SELECT RAISE(ABORT, 'poisoned batch'); END`);
    const app = await buildApp({ config: testConfig(), storage: h.storage });
    try {
      const post = (batch: ServiceEvent[]) => app.inject({
        method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch },
      });
      const responses = await Promise.all([
        post([makeEvent({ profileId: 'http-ok' })]),
        post([makeEvent({ profileId: 'poison' })]),
        post([makeEvent({ profileId: 'http-ok' })]),
      ]);
      assert.deepEqual(responses.map((r) => r.statusCode), [200, 500, 200]);
      assert.equal(responses[1]?.json<{ error: { code: string } }>().error.code, 'internal_error');
      assert.equal((await listEvents(h.storage, PROJECT, { profileId: 'http-ok' })).length, 2);
    } finally {
      await app.close();
      h.side.exec('DROP TRIGGER poison');
    }
  });
});
