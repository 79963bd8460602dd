// Concurrent ingestion: batches arriving together share one commit (group commit: on SQLite the storage's, on
// PostgreSQL event-store.ts stores them in one statement); on both drivers every batch is answered as if stored
// alone, each event is stored once, models come out as if the batches had come one by one, and a resend after a
// restart is a duplicate. The last cases make the database itself fail one batch of a group (a trigger) and check
// that the others are stored and answered.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import type { IngestResult } from '../../../server/ingest/ingest-program.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS, POSTGRES_DRIVER } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useSqliteWithSide, useStorage } from '../helpers/use-test-app.js';
import { resolveUser } from '../../../server/identity/identity-store.js';
import { ingestBatch } from '../../../server/programs.js';
import { applyModelsNow } from '../../../server/recommendations/model-inbox.js';
import { getProfileAttributes, listEvents } from '../helpers/stored-rows.js';
import pg from 'pg';
import { openPostgresStorage } from '../../../server/storage/postgres/postgres-storage.js';
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import { SCHEMA } from '../../../server/schema.js';

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
      assert.deepEqual([identify, attributes], [{ accepted: 1, duplicates: 0, identityChanged: true, handedOn: 0 }, { accepted: 1, duplicates: 0, identityChanged: false, handedOn: 0 }]);
      assert.equal(await resolveUser(h.storage, PROJECT, 'gc-u'), 'gc-p');
      assert.deepEqual(await getProfileAttributes(h.storage, PROJECT, 'gc-p'), { plan: 'pro' });
    });

    it('updates the models from concurrent batches exactly as from the same batches one by one', async () => {
      // 24 batches: product views of 6 shared products (hot rows) by 4 shared profiles, each batch its own session,
      // every third batch an order of two products. The same batches go to one project concurrently, applied to the
      // models by three concurrent appliers in chunks of a few events, and to another one by one, each applied before
      // the next is stored, with the same receipt time; every model table must hold the same rows for both.
      const batches = Array.from({ length: 24 }, (_, b) => {
        const events = Array.from({ length: 5 }, (_, i) => makeEvent({
          type: 'product', name: 'Product viewed', profileId: `mp-${(b + i) % 4}`, sessionId: `ms-${b}`,
          data: { productId: `mp${(b * 5 + i) % 6}` },
        }));
        if (b % 3 === 0) {
          for (const productId of [`mp${b % 6}`, `mp${(b + 1) % 6}`]) {
            events.push(makeEvent({ type: 'product', name: 'Product ordered', profileId: `mp-${b % 4}`, sessionId: `ms-${b}`, data: { productId, orderId: `mo-${b}` } }));
          }
        }
        return events;
      });
      const receivedAt = Date.parse('2025-06-01T00:00:00.000Z');
      const results = await Promise.all(batches.map((batch) => ingestBatch(h.storage, 'acme/par', 'web', batch, { receivedAt })));
      await Promise.all([7, 11, 13].map((chunk) => applyModelsNow(h.storage, chunk)));
      for (const batch of batches) {
        await ingestBatch(h.storage, 'acme/seq', 'web', batch, { receivedAt });
        await applyModelsNow(h.storage);
      }
      assert.deepEqual(total(results), { accepted: batches.flat().length, duplicates: 0 });
      for (const table of Object.keys(MODEL_TABLES) as (keyof typeof MODEL_TABLES)[]) {
        const [par, seq] = [await modelRows(h.storage, table, 'acme/par'), await modelRows(h.storage, table, 'acme/seq')];
        assert.ok(seq.length > 0, `${table} has rows`);
        assert.deepEqual(par, seq, table);
      }
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

/**
 * The recommendation models' tables, each read in full for a project (without the project column), in key order.
 * Scores are sums of floating-point terms, added in another order by a group: compared to 12 significant digits.
 */
const MODEL_TABLES = {
  product_scores: 'product_id, score',
  baskets: 'kind, basket_id, product_id',
  co_occurrence: 'kind, a, b, count',
  profile_recent: 'profile_id, product_id, last_seen',
} as const;

async function modelRows(storage: Storage, table: keyof typeof MODEL_TABLES, project: string): Promise<unknown[]> {
  const columns = MODEL_TABLES[table];
  const rows = await storage.run(function* () {
    return (yield op(`SELECT ${columns} FROM ${table} WHERE project = ? ORDER BY ${columns}`, project)).rows;
  });
  return rows.map((r) => Object.values(r).map((v) => (typeof v === 'number' && !Number.isSafeInteger(v) ? v.toPrecision(12) : String(v))));
}

describe('two nodes on one PostgreSQL database, one session each side (postgres)', () => {
  const h = useStorage(POSTGRES_DRIVER);

  it('pair products viewed in one session as if the batches had come one after the other', async () => {
    // Another node: its own pool on the same database. Each session's two views arrive at the same moment, one on
    // each node, and the nodes' appliers fold them into the models concurrently: the second to store its product
    // must pair it with the first's.
    const other = await openPostgresStorage(h.db.location, SCHEMA);
    try {
      const sessions = Array.from({ length: 40 }, (_, i) => i);
      await Promise.all(sessions.flatMap((i) => [
        ingestBatch(h.storage, 'acme/nodes', 'web', [makeEvent({ type: 'product', name: 'Product viewed', sessionId: `ns-${i}`, data: { productId: `na${i}` } })]),
        ingestBatch(other, 'acme/nodes', 'web', [makeEvent({ type: 'product', name: 'Product viewed', sessionId: `ns-${i}`, data: { productId: `nb${i}` } })]),
      ]));
      // Both nodes' appliers at once, a batch per chunk: two of them may hold the two halves of a session.
      await Promise.all([applyModelsNow(h.storage, 1), applyModelsNow(other, 1), applyModelsNow(h.storage, 1), applyModelsNow(other, 1)]);
      const pairs = await modelRows(h.storage, 'co_occurrence', 'acme/nodes');
      const expected = sessions.flatMap((i) => [['session', `na${i}`, `nb${i}`, '1'], ['session', `nb${i}`, `na${i}`, '1']])
        .sort((x, y) => (x.join() < y.join() ? -1 : 1));
      assert.deepEqual([...pairs].sort((x, y) => ((x as string[]).join() < (y as string[]).join() ? -1 : 1)), expected);
    } finally {
      await other.close();
    }
  });
});

describe('group commit: a database error fails only its own batch (postgres)', () => {
  const h = useStorage(POSTGRES_DRIVER);

  it('stores and acknowledges the other batches of the group', async () => {
    const side = new pg.Client({ connectionString: h.db.location });
    await side.connect();
    await side.query(`CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.profile_id = 'poison' THEN RAISE EXCEPTION 'poisoned batch'; END IF; RETURN NEW; END $$;
      CREATE TRIGGER poison BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION poison();`);
    try {
      // Enough concurrent batches that several share a group with the poisoned one.
      const good = Array.from({ length: 12 }, () => [makeEvent({ profileId: 'pg-ok' }), makeEvent({ profileId: 'pg-ok' })]);
      const bad = [makeEvent({ profileId: 'pg-bad' }), makeEvent({ profileId: 'poison' })];
      const outcomes = await Promise.allSettled([...good.slice(0, 6), bad, ...good.slice(6)].map((batch) => ingestBatch(h.storage, PROJECT, 'web', batch)));
      assert.equal(outcomes[6]?.status, 'rejected');
      assert.match(String((outcomes[6] as PromiseRejectedResult).reason), /poisoned batch/);
      const fulfilled = outcomes.filter((o) => o.status === 'fulfilled') as PromiseFulfilledResult<IngestResult>[];
      assert.equal(fulfilled.length, 12);
      for (const o of fulfilled) assert.deepEqual(o.value, { accepted: 2, duplicates: 0, identityChanged: false, handedOn: 0 });
      assert.equal((await listEvents(h.storage, PROJECT, { profileId: 'pg-ok' })).length, 24);
      assert.equal((await listEvents(h.storage, PROJECT, { profileId: 'pg-bad' })).length, 0);
    } finally {
      await side.query('DROP TRIGGER poison ON events; DROP FUNCTION poison();');
      await side.end();
    }
  });
});

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
        assert.deepEqual(outcomes[0], { status: 'fulfilled', value: { accepted: 2, duplicates: 0, identityChanged: false, handedOn: 0 } });
        assert.equal(outcomes[1]?.status, 'rejected');
        assert.match(String((outcomes[1] as PromiseRejectedResult).reason), /poisoned batch/);
        assert.deepEqual(outcomes[2], { status: 'fulfilled', value: { accepted: 1, duplicates: 0, identityChanged: false, handedOn: 0 } });
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
