// Erasure and export of one person, end to end through the service's own endpoints, on SQLite and PostgreSQL: a
// person with two devices (identified on one, aliased on the other), events, assignments, exposures, consent, a share
// in the recommendation models and a batch still in their outbox; another person beside them. After the erasure no
// table holds any of their ids (but the suppression list, which keeps them erased), the models equal models rebuilt
// from the remaining events, results no longer count them, and the late batch is not stored. The export taken before
// holds exactly the rows the erasure removed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { ingestBatch } from '../../../server/programs.js';
import { applyModelInbox } from '../../../server/recommendations/model-inbox.js';
import { openSqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { readAllRows, type AllRows } from '../helpers/all-rows.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { ADMIN, PRIVACY, requestDone, send } from '../helpers/privacy-api.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';
import { SCHEMA } from '../../../server/schema.js';

const CHOOSE = '/v1/acme/projects/shop/optimization/choose-api';
const TRACK = '/v1/acme/projects/shop/sources/web/track';
const CONSENT = '/v1/acme/projects/shop/consents/data';
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');

/** The erased person's ids: distinctive, so that a search of every table finds nothing else by chance. */
const PAT = {
  phone: 'prof-pat-phone-7c1e', laptop: 'prof-pat-laptop-9d2f', user: 'user-pat-4b8a', oldUser: 'user-pat-old-6e3c',
  email: 'pat.erase-me@example.com', phoneSession: 'sess-pat-phone-31a7', laptopSession: 'sess-pat-laptop-58c0', order: 'order-pat-2f91',
};
const SAM = { profile: 'prof-sam-0a4d', session: 'sess-sam-77e2', order: 'order-sam-1c3b' };

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.experiences = [{
    name: 'hero', variations: [{ name: 'control', weight: 50, body: { v: 'a' } }, { name: 'bold', weight: 50, body: { v: 'b' } }],
  }];
  shop.metrics = [{ name: 'purchase', event: 'Product ordered', type: 'binomial' }];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

const product = (name: string, profileId: string, sessionId: string, productId: string, extra: Record<string, unknown> = {}): ServiceEvent =>
  makeEvent({ type: 'product', name, profileId, sessionId, data: { productId, ...extra } });

/** What each person did: Pat on two devices, Sam on one. */
function history(): ServiceEvent[] {
  const phone = { profileId: PAT.phone, sessionId: PAT.phoneSession };
  const laptop = { profileId: PAT.laptop, sessionId: PAT.laptopSession };
  return [
    makeEvent({ ...phone, type: 'page', name: 'Home' }),
    product('Product viewed', PAT.phone, PAT.phoneSession, 'X'),
    product('Product viewed', PAT.phone, PAT.phoneSession, 'Y'),
    product('Added to cart', PAT.phone, PAT.phoneSession, 'X'),
    makeEvent({ ...phone, type: 'identify', name: 'identify', userId: PAT.user, userAttributes: { plan: 'pro' } }),
    makeEvent({ ...phone, type: 'group', name: 'group', userId: PAT.user, accountId: 'acct-shared-1' }),
    { ...product('Product ordered', PAT.phone, PAT.phoneSession, 'X', { orderId: PAT.order, price: 10 }), userId: PAT.user },
    { ...product('Product ordered', PAT.phone, PAT.phoneSession, 'Y', { orderId: PAT.order, price: 5 }), userId: PAT.user },
    makeEvent({ ...laptop, type: 'identify', name: 'identify', userId: PAT.oldUser }),
    makeEvent({ ...laptop, type: 'alias', name: 'alias', userId: PAT.user, anotherUserId: PAT.oldUser }),
    product('Product viewed', PAT.laptop, PAT.laptopSession, 'Y'),
    product('Product viewed', PAT.laptop, PAT.laptopSession, 'Z'),
    product('Product viewed', SAM.profile, SAM.session, 'X'),
    product('Product viewed', SAM.profile, SAM.session, 'Y'),
    product('Product viewed', SAM.profile, SAM.session, 'Z'),
    product('Added to cart', SAM.profile, SAM.session, 'Y'),
    product('Product ordered', SAM.profile, SAM.session, 'Y', { orderId: SAM.order, price: 7 }),
    product('Product ordered', SAM.profile, SAM.session, 'Z', { orderId: SAM.order, price: 3 }),
  ];
}



async function hero(app: FastifyInstance): Promise<{ units: number; variations: { units: number }[] }> {
  const res = await app.inject({ method: 'GET', url: '/v1/acme/projects/shop/experiences/hero/results?apiKey=srv1.s3cret' });
  assert.equal(res.statusCode, 200, res.body);
  return res.json() as { units: number; variations: { units: number }[] };
}

/** The tables (but those named) whose rows mention any of `ids`, with the first such row. */
function mentions(rows: AllRows, ids: string[], except: string[]): string[] {
  const found: string[] = [];
  for (const [table, list] of rows) {
    if (except.includes(table)) continue;
    for (const row of list) {
      const text = JSON.stringify(row);
      const id = ids.find((i) => text.includes(i));
      if (id !== undefined) {
        found.push(`${table}: ${id} in ${text}`);
        break;
      }
    }
  }
  return found;
}

/** The recommendation models of `rows`, comparable: scores rounded to 9 significant digits. */
function models(rows: AllRows): Record<string, unknown[]> {
  const sorted = (table: string, map: (r: Record<string, unknown>) => unknown[]) => (rows.get(table) ?? []).map(map)
    .sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return {
    product_scores: sorted('product_scores', (r) => [r.product_id, Number(Number(r.score).toPrecision(9))]),
    co_occurrence: sorted('co_occurrence', (r) => [r.kind, r.a, r.b, Number(r.count)]),
    baskets: sorted('baskets', (r) => [r.kind, r.basket_id, r.product_id]),
    profile_recent: sorted('profile_recent', (r) => [r.profile_id, r.product_id, Number(r.last_seen)]),
  };
}

/** The models built from scratch from `events` (stored rows), as ingestion would have built them. */
async function rebuiltModels(events: Record<string, unknown>[]): Promise<Record<string, unknown[]>> {
  const storage = await openSqliteStorage(':memory:', SCHEMA);
  try {
    const ordered = [...events].sort((a, b) => Number(a.received_at) - Number(b.received_at) || String(a.event_id).localeCompare(String(b.event_id)));
    for (const row of ordered) {
      await ingestBatch(storage, 'acme/shop', String(row.source_id), [JSON.parse(String(row.payload)) as ServiceEvent], { receivedAt: Number(row.received_at) });
    }
    await storage.transaction(() => applyModelInbox(1_000_000));
    const rows: AllRows = new Map();
    for (const table of ['product_scores', 'co_occurrence', 'baskets', 'profile_recent']) {
      rows.set(table, await storage.run(function* () {
        return (yield { sql: `SELECT * FROM ${table}`, params: [] }).rows;
      }));
    }
    return models(rows);
  } finally {
    await storage.close();
  }
}

for (const driver of DRIVERS) {
  describe(`privacy requests (${driver.name})`, () => {
    const h = useApp(driver, () => ({ config: config() }));

    it('erases a person with two devices from every table, the models and results; their export held exactly those rows', async () => {
      const { app } = h;
      // Pat is in the experiment on the phone (control, by the hash of these ids), Sam on theirs (bold).
      for (const [profileId, sessionId] of [[PAT.phone, PAT.phoneSession], [SAM.profile, SAM.session]]) {
        await send(app, CHOOSE, { identification: { sourceId: 'web', profileId }, names: ['hero'], sessionId });
      }
      const events = history();
      await send(app, TRACK, { batch: events });
      await send(app, CONSENT, {
        profileId: PAT.phone, sourceId: 'web', action: 'accept', categories: { analytics: true, advertising: false }, validUntil: FUTURE, email: PAT.email,
        source: 'banner', version: 'v3', page: 'https://shop.example/checkout', eventId: 'c0ffee00-0000-4000-8000-00000000e1a5',
      });
      await send(app, CONSENT, { profileId: SAM.profile, sourceId: 'web', action: 'accept', validUntil: FUTURE, source: 'api' });
      // Still in Pat's outbox when the erasure comes: sent after it.
      const outbox = [product('Product viewed', PAT.phone, PAT.phoneSession, 'Z'), makeEvent({ profileId: PAT.phone, sessionId: PAT.phoneSession, userId: PAT.user })];
      await app.svc.models.settle();
      assert.deepEqual((await hero(app)).variations.map((v) => v.units), [1, 1]);

      const exported = await requestDone(app, 'exports', { userId: PAT.user });
      const before = await readAllRows(h.db);
      const erased = await requestDone(app, 'erasures', { profileId: PAT.laptop, sourceId: 'web' });
      const after = await readAllRows(h.db);

      // The request itself forgot whom it was about.
      assert.deepEqual(erased.subject, { kind: 'profileId' });
      const listed = (await app.inject({ method: 'GET', url: `${PRIVACY}/erasures`, headers: ADMIN })).json() as { erasures: { id: string; subject: unknown }[] };
      assert.deepEqual(listed.erasures.find((e) => e.id === erased.id)?.subject, { kind: 'profileId' });
      const ids = Object.values(PAT);
      assert.deepEqual(mentions(after, ids, ['suppressions']), []);
      const suppressed = await app.inject({ method: 'GET', url: `${PRIVACY}/suppressions`, headers: ADMIN });
      assert.deepEqual(
        (suppressed.json() as { suppressions: { kind: string; value: string }[] }).suppressions.map((s) => `${s.kind}:${s.value}`).sort(),
        [`email:${PAT.email}`, `profile:${PAT.laptop}`, `profile:${PAT.phone}`, `user:${PAT.user}`, `user:${PAT.oldUser}`],
      );
      // Sam is untouched.
      assert.ok(after.get('events')!.some((r) => r.profile_id === SAM.profile));
      assert.equal(after.get('events')!.length, events.filter((e) => !String(e.profileId).startsWith('prof-pat')).length);

      // The export held exactly the rows the erasure removed (or, consent records, stripped of their ids).
      const removed = (table: string, key: (r: Record<string, unknown>) => string) => {
        const kept = new Set(after.get(table)!.map(key));
        return before.get(table)!.map(key).filter((k) => !kept.has(k)).sort();
      };
      const exportedKeys = (kind: string, key: (r: Record<string, unknown>) => string) => (exported[kind] as Record<string, unknown>[]).map(key).sort();
      assert.deepEqual(exportedKeys('events', (r) => String(r.eventId)), removed('events', (r) => String(r.event_id)));
      assert.deepEqual(exportedKeys('exposures', (r) => String(r.id)), removed('exposures', (r) => String(r.id)));
      assert.deepEqual(exportedKeys('assignments', (r) => `${r.unit}/${r.experience}`), removed('assignments', (r) => `${r.unit}/${r.experience}`));
      assert.deepEqual(exportedKeys('identities', (r) => `${r.userId}`), removed('identities', (r) => `${r.user_id}`));
      assert.deepEqual(exportedKeys('personLinks', (r) => `${r.profileId}/${r.userId}/${r.otherUserId}`), removed('person_links', (r) => `${r.profile_id}/${r.user_id}/${r.other_user_id}`));
      assert.deepEqual(exportedKeys('aliases', (r) => `${r.userId}`), removed('aliases', (r) => `${r.user_id}`));
      assert.deepEqual(exportedKeys('accounts', (r) => `${r.profileId}/${r.accountId}`), removed('profile_accounts', (r) => `${r.profile_id}/${r.account_id}`));
      assert.deepEqual(exportedKeys('attributes', (r) => `${r.ownerId}/${r.key}`), removed('attributes', (r) => `${r.owner_id}/${r.key}`));
      assert.deepEqual(exportedKeys('recentlyViewed', (r) => `${r.profileId}/${r.productId}`), removed('profile_recent', (r) => `${r.profile_id}/${r.product_id}`));
      assert.deepEqual(exportedKeys('baskets', (r) => `${r.kind}/${r.basketId}/${r.productId}`), removed('baskets', (r) => `${r.kind}/${r.basket_id}/${r.product_id}`));
      assert.deepEqual(exportedKeys('consents', (r) => String(r.id)), removed('consents', (r) => `${r.id}/${r.profile_id}`).map((k) => k.split('/')[0]));
      assert.equal((exported.consents as { email: string }[]).filter((c) => c.email === PAT.email).length, 2);
      for (const kind of ['events', 'exposures', 'assignments', 'identities', 'personLinks', 'aliases', 'consents', 'baskets']) {
        assert.ok((exported[kind] as unknown[]).length > 0, `the scenario has ${kind}`);
        assert.equal((erased.counts as Record<string, number>)[kind], (exported[kind] as unknown[]).length, kind);
      }
      // Consent records stay as proof, without the person.
      const proof = after.get('consents')!.filter((r) => String(r.profile_id).startsWith('erased:'));
      assert.deepEqual(proof.map((r) => [r.category, r.action, r.source, r.banner_version, r.page, r.email]).sort(), [
        ['advertising', 'reject', 'banner', 'v3', 'https://shop.example/checkout', null],
        ['analytics', 'accept', 'banner', 'v3', 'https://shop.example/checkout', null],
      ]);

      // The models are those Sam's events alone build.
      assert.deepEqual(models(after), await rebuiltModels(after.get('events')!));
      assert.notDeepEqual(models(before), models(after));
      // Results count Sam only.
      assert.deepEqual((await hero(app)).variations.map((v) => v.units), [0, 1]);

      // Pat's old outbox arrives: answered as delivered, stored nowhere; so do a consent record and a Choose request.
      const late = await send(app, TRACK, { batch: outbox });
      assert.deepEqual(late, { accepted: 2, duplicates: 0 });
      await send(app, CONSENT, { profileId: PAT.phone, action: 'accept', validUntil: FUTURE });
      const choose = await send(app, CHOOSE, { identification: { sourceId: 'web', profileId: PAT.phone }, names: ['hero'], sessionId: PAT.phoneSession });
      assert.deepEqual(choose, { choices: [] });
      await app.svc.models.settle();
      assert.deepEqual(mentions(await readAllRows(h.db), ids, ['suppressions']), []);

      // The export's data went with the person; erasing them again is harmless.
      const gone = await app.inject({ method: 'GET', url: `${PRIVACY}/exports/${String(exported.id)}`, headers: ADMIN });
      assert.equal(gone.json().events, undefined);
      const again = await requestDone(app, 'erasures', { userId: PAT.user });
      assert.equal((again.counts as Record<string, number>).events, 0);
      assert.deepEqual(again.subject, { kind: 'userId' });
    });
  });
}
