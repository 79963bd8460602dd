// The feed report's counts kept as card events arrive (feed_card_counts): stored events counted by migration 26 and
// new ones counted by the models' applier give the same rows, by the report's rules (issued ids only, products of that
// answer, the recorded feed, strategy and place, the day of the skew-corrected time clamped to receipt, a resend
// counting nothing); and a report over whole days (read from the counts) answers as one over the events. Run on
// SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ingestBatch } from '../../../server/programs.js';
import { FEED_REPORT } from '../../../server/recommendations/feed-report-program.js';
import { applyModelsNow } from '../../../server/recommendations/model-inbox.js';
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { migrateUpTo } from '../helpers/migrate-up-to.js';
import { DRIVERS, type TestDatabase } from '../helpers/storage-drivers.js';

const PROJECT = 'acme/shop';
const HOUR = 3_600_000;
const DAY_MS = 86_400_000;
const D = Date.parse('2026-06-01T00:00:00.000Z');
const DAY = D / DAY_MS;

const ISSUED: [string, number, string, string[]][] = [
  ['r1', 1, 'popular', ['a', 'b', 'say "hi"', 'back\\slash', ',lead']],
  ['r2', 2, 'viewed-together', ['b', 'a']],
  ['r3', 1, 'popular', ['a', 'a', 'c']],
  ['r4', 1, 'trending', ['c']],
];

const card = (name: string, rec: string, productId: string, at: number, type: ServiceEvent['type'] = 'product'): ServiceEvent =>
  makeEvent({ type, name, profileId: 'p1', sessionId: 's1', timestamp: new Date(at).toISOString(), data: { productId, recommendationId: rec } });

/** Two batches: [events, receivedAt, sentAt]. */
function batches(): [ServiceEvent[], number, number | null][] {
  const t = D + 9 * HOUR;
  const first = [
    card('Product impression', 'r1', 'a', t),
    card('Product impression', 'r1', 'say "hi"', t),
    card('Product impression', 'r1', 'back\\slash', t),
    card('Product impression', 'r1', ',lead', t),
    card('Product impression', 'r1', 'zzz', t), // not in the answer
    card('Product impression', 'forged', 'a', t), // never issued
    card('Product clicked', 'r1', 'b', t),
    card('Product impression', 'r2', 'a', t),
    card('Product impression', 'r3', 'a', t), // listed twice: the first place
    card('Product clicked', 'r3', 'c', t),
    card('Product impression', 'r1', 'a', t, 'track'), // not a product event
    card('Product impression', 'r4', 'c', D + DAY_MS + 5 * HOUR), // after its receipt: counted at the receipt
    card('Product viewed', 'r1', 'a', t),
  ];
  // Sent with a clock 30 minutes ahead (sentAt): counted on the day the corrected time falls on.
  const second = [
    card('Product impression', 'r1', 'b', D + DAY_MS + HOUR),
    card('Product clicked', 'r1', 'a', D + DAY_MS + 90 * 60_000),
  ];
  return [[first, D + 10 * HOUR, null], [second, D + DAY_MS + 30 * 60_000, D + DAY_MS + 2 * HOUR]];
}

const EXPECTED = [
  [1, DAY, 'popular', 1, 2, 0],
  [1, DAY, 'popular', 2, 1, 1],
  [1, DAY, 'popular', 3, 1, 1],
  [1, DAY, 'popular', 4, 1, 0],
  [1, DAY, 'popular', 5, 1, 0],
  [1, DAY, 'trending', 1, 1, 0],
  [1, DAY + 1, 'popular', 1, 0, 1],
  [2, DAY, 'viewed-together', 2, 1, 0],
];

const text = (v: string | number | null): string => (v === null ? 'NULL' : typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`);
const issuedSql = `INSERT INTO recommendations (project, recommendation_id, feed_id, strategy, profile_id, products, issued_at) VALUES ${
  ISSUED.map(([id, feed, strategy, products]) => `(${[PROJECT, id, feed, strategy, 'p1', JSON.stringify(products), D].map(text).join(', ')})`).join(', ')}`;

async function counts(storage: Storage): Promise<unknown[][]> {
  return storage.run(function* () {
    const { rows } = yield op(`SELECT feed_id, day, strategy, position, impressions, clicks FROM feed_card_counts WHERE project = ?
      ORDER BY feed_id, day, strategy, position`, PROJECT);
    return rows.map((r) => [Number(r.feed_id), Number(r.day), r.strategy, Number(r.position), Number(r.impressions), Number(r.clicks)]);
  });
}

for (const driver of DRIVERS) {
  describe(`feed card counts (${driver.name})`, () => {
    const open: { db: TestDatabase; storage?: Storage }[] = [];
    afterEach(async () => {
      for (const o of open.splice(0)) {
        await o.storage?.close();
        await o.db.destroy();
      }
    });

    it('migration 26 counts stored card events as the report did', async () => {
      const db = await driver.create();
      const entry: { db: TestDatabase; storage?: Storage } = { db };
      open.push(entry);
      const exec = await migrateUpTo(db, 25);
      await exec(issuedSql);
      for (const [events, receivedAt, sentAt] of batches()) {
        const rows = events.map((e) => `(${[
          PROJECT, e.eventId, 'web', e.type, e.name, e.profileId, e.sessionId, e.pageId, null, null,
          e.type === 'product' ? String(e.data!.productId) : null, Date.parse(e.timestamp), receivedAt, sentAt, JSON.stringify(e),
          e.name === 'Product impression' || e.name === 'Product clicked' ? String(e.data!.recommendationId) : null,
        ].map(text).join(', ')})`);
        await exec(`INSERT INTO events (project, event_id, source_id, type, name, profile_id, session_id, page_id, user_id,
          account_id, product_id, ts, received_at, sent_at, payload, recommendation_id) VALUES ${rows.join(', ')}`);
      }
      entry.storage = await db.open();
      assert.deepEqual(await counts(entry.storage), EXPECTED);
    });

    it('new card events are counted once each by the applier, and a report over whole days answers as over the events', async () => {
      const db = await driver.create();
      const storage = await db.open();
      open.push({ db, storage });
      await storage.transaction(function* () {
        yield op(issuedSql);
      });
      const all = batches();
      for (const [events, receivedAt, sentAt] of all) {
        await ingestBatch(storage, PROJECT, 'web', events, { receivedAt, ...(sentAt !== null ? { sentAt } : {}) });
      }
      // A resend of the first batch stores nothing and counts nothing.
      const resent = await ingestBatch(storage, PROJECT, 'web', all[0]![0], { receivedAt: all[0]![1] });
      assert.equal(resent.accepted, 0);
      await applyModelsNow(storage);
      assert.deepEqual(await counts(storage), EXPECTED);
      const inbox = await storage.run(function* () {
        return Number((yield op('SELECT COUNT(*) AS n FROM model_inbox')).rows[0]!.n);
      });
      assert.equal(inbox, 0, 'the applied rows are gone');

      for (const feedId of [1, 2]) {
        for (const by of [undefined, 'position', 'day', 'strategy'] as const) {
          const args = { project: PROJECT, feedId, attributionHours: 24, windows: [], defaultHours: 24, ...(by ? { by } : {}) };
          // [D, D + 1 day) is a whole day (the counts); a millisecond earlier, no whole day is in it (the events).
          const counted = await storage.place(FEED_REPORT, { ...args, from: D, to: D + DAY_MS });
          const stored = await storage.place(FEED_REPORT, { ...args, from: D - 1, to: D + DAY_MS - 1 });
          assert.deepEqual(counted, stored, `feed ${feedId} by ${by}`);
          assert.ok(counted.totals.impressions > 0);
        }
      }
      // Two days and a part of a third: counts for whole days, events for the part.
      const longer = await storage.place(FEED_REPORT, {
        project: PROJECT, feedId: 1, attributionHours: 24, windows: [], defaultHours: 24, by: 'day', from: D - DAY_MS, to: D + DAY_MS + HOUR,
      });
      assert.deepEqual(longer.rows!.map((r) => [r.day, r.impressions, r.clicks]), [['2026-06-01', 7, 2], ['2026-06-02', 0, 1]]);
    });
  });
}
