// The storage contract, run against SQLite and PostgreSQL alike (guards live in the database).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useStorage } from '../helpers/use-test-app.js';
import {
  consentState, countEvents, countExposures, firstAssignment, firstAssignments, getAccountAttributes, getAssignment, getProfileAccounts,
  getProfileAttributes, listEvents, productEventCounts, readExposures, recordExposures,
} from '../helpers/stored-rows.js';
import { recordConsent } from '../../../server/consent/consent-store.js';
import { resolveUser } from '../../../server/identity/identity-store.js';
import { ingestBatch } from '../../../server/programs.js';
import { SCHEMA } from '../../../server/schema.js';

const P = 'acme/shop';

for (const driver of DRIVERS) {
  describe(`storage (${driver.name})`, () => {
    const h = useStorage(driver);

    it('runs migrations idempotently: a second migrate changes nothing', async () => {
      await h.storage.migrate(SCHEMA);
      await h.storage.migrate(SCHEMA);
      assert.equal(await countEvents(h.storage, P), 0);
    });

    it('stores each eventId once per project, counting resends and in-batch repeats as duplicates', async () => {
      const a = makeEvent({ profileId: 'dup-1' });
      const b = makeEvent({ profileId: 'dup-1' });
      assert.deepEqual(await ingestBatch(h.storage, P, 'web', [a, b, a]), { accepted: 2, duplicates: 1, identityChanged: false, handedOn: 0 });
      assert.deepEqual(await ingestBatch(h.storage, P, 'web', [a, b]), { accepted: 0, duplicates: 2, identityChanged: false, handedOn: 0 });
      // The same eventId in another project is another event.
      assert.deepEqual(await ingestBatch(h.storage, 'acme/blog', 'web', [a]), { accepted: 1, duplicates: 0, identityChanged: false, handedOn: 0 });
      const stored = await listEvents(h.storage, P, { profileId: 'dup-1' });
      assert.deepEqual(stored.map((s) => s.event.eventId).sort(), [a.eventId, b.eventId].sort());
      assert.equal(stored[0]?.sourceId, 'web');
    });

    it('reports a changed identity graph for a stored identify or alias only, not for a resend or other events', async () => {
      const identify = makeEvent({ type: 'identify', name: 'Identify', userId: 'u-changed', profileId: 'pc-1' });
      const alias = makeEvent({ type: 'alias', name: 'Alias', userId: 'u-changed', anotherUserId: 'u-other', profileId: 'pc-1' });
      const others = [makeEvent({ profileId: 'pc-1' }), makeEvent({ type: 'group', name: 'Group', accountId: 'acc-c', profileId: 'pc-1' })];
      assert.equal((await ingestBatch(h.storage, P, 'web', others)).identityChanged, false);
      assert.equal((await ingestBatch(h.storage, P, 'web', [makeEvent(), identify])).identityChanged, true);
      assert.equal((await ingestBatch(h.storage, P, 'web', [identify])).identityChanged, false);
      assert.equal((await ingestBatch(h.storage, P, 'web', [alias])).identityChanged, true);
    });

    it('is idempotent across a restart on the same database', async () => {
      const e = makeEvent({ profileId: 'restart-1' });
      assert.deepEqual(await ingestBatch(h.storage, P, 'web', [e]), { accepted: 1, duplicates: 0, identityChanged: false, handedOn: 0 });
      await h.reopen();
      assert.deepEqual(await ingestBatch(h.storage, P, 'web', [e]), { accepted: 0, duplicates: 1, identityChanged: false, handedOn: 0 });
    });

    it('identify links a userId to the first profile it was seen with', async () => {
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', userId: 'u-first', profileId: 'pA' })]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', userId: 'u-first', profileId: 'pB' })]);
      assert.equal(await resolveUser(h.storage, P, 'u-first'), 'pA');
      assert.equal(await resolveUser(h.storage, P, 'nobody'), null);
      assert.equal(await resolveUser(h.storage, 'acme/blog', 'u-first'), null);
    });

    it('alias joins two user ids to one person, both ways of resolution', async () => {
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', userId: 'old-id', profileId: 'pOld' })]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'alias', name: 'Alias', userId: 'new-id', anotherUserId: 'old-id', profileId: 'pOther' })]);
      assert.equal(await resolveUser(h.storage, P, 'new-id'), 'pOld');
      assert.equal(await resolveUser(h.storage, P, 'old-id'), 'pOld');
    });

    it('alias of two already identified ids resolves both to the alias target, and a reverse alias makes no cycle', async () => {
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'identify', name: 'Identify', userId: 'x1', profileId: 'px1' }),
        makeEvent({ type: 'identify', name: 'Identify', userId: 'x2', profileId: 'px2' }),
        makeEvent({ type: 'alias', name: 'Alias', userId: 'x2', anotherUserId: 'x1', profileId: 'px1' }),
        makeEvent({ type: 'alias', name: 'Alias', userId: 'x1', anotherUserId: 'x2', profileId: 'px1' }),
      ]);
      assert.equal(await resolveUser(h.storage, P, 'x1'), 'px2');
      assert.equal(await resolveUser(h.storage, P, 'x2'), 'px2');
    });

    it('group links the profile to an account and merges account attributes', async () => {
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'group', name: 'Group', profileId: 'pg', accountId: 'acc-1', accountAttributes: { tier: 'gold' } }),
      ]);
      assert.deepEqual(await getProfileAccounts(h.storage, P, 'pg'), ['acc-1']);
      assert.deepEqual(await getAccountAttributes(h.storage, P, 'acc-1'), { tier: 'gold' });
    });

    it('merges attributes per key, last write by event time wins (a late older event does not overwrite)', async () => {
      const t = (s: string): string => `2025-03-01T00:00:${s}.000Z`;
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'identify', name: 'Identify', profileId: 'pm', userId: 'um', timestamp: t('10'), userAttributes: { plan: 'pro', city: 'Oslo' } }),
      ]);
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'identify', name: 'Identify', profileId: 'pm', userId: 'um', timestamp: t('05'), userAttributes: { plan: 'free', age: 30 } }),
      ]);
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'identify', name: 'Identify', profileId: 'pm', userId: 'um', timestamp: t('20'), userAttributes: { city: 'Bergen' } }),
      ]);
      assert.deepEqual(await getProfileAttributes(h.storage, P, 'pm'), { age: 30, city: 'Bergen', plan: 'pro' });
    });

    it('user attributes sent from a second device also land on the canonical profile of the user', async () => {
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'dev1', userId: 'multi' })]);
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'identify', name: 'Identify', profileId: 'dev2', userId: 'multi', userAttributes: { vip: true } }),
      ]);
      assert.deepEqual(await getProfileAttributes(h.storage, P, 'dev1'), { vip: true });
      assert.deepEqual(await getProfileAttributes(h.storage, P, 'dev2'), { vip: true });
    });

    it('a duplicate event has no second effect on the identity graph', async () => {
      const first = makeEvent({ type: 'identify', name: 'Identify', profileId: 'pd', userId: 'ud', timestamp: '2025-04-01T00:00:10.000Z', userAttributes: { n: 1 } });
      await ingestBatch(h.storage, P, 'web', [first]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'pd', userId: 'ud', timestamp: '2025-04-01T00:00:20.000Z', userAttributes: { n: 2 } })]);
      // Resent with its old payload: it must not be applied again (it would lose anyway, but it is not even tried).
      assert.deepEqual(await ingestBatch(h.storage, P, 'web', [first]), { accepted: 0, duplicates: 1, identityChanged: false, handedOn: 0 });
      assert.deepEqual(await getProfileAttributes(h.storage, P, 'pd'), { n: 2 });
    });

    it('consent state: the latest valid record per category, expired ones ignored, eventId deduplicates', async () => {
      const now = Date.parse('2025-06-01T00:00:00.000Z');
      const day = 86_400_000;
      assert.equal(await recordConsent(h.storage, P, { profileId: 'pc', action: 'accept', validUntil: now + day, timestamp: now - 3000, eventId: 'c-1' }), true);
      assert.equal(await recordConsent(h.storage, P, { profileId: 'pc', action: 'accept', validUntil: now + day, timestamp: now - 3000, eventId: 'c-1' }), false);
      await recordConsent(h.storage, P, { profileId: 'pc', action: 'reject', validUntil: now + day, timestamp: now - 2000 });
      await recordConsent(h.storage, P, { profileId: 'pc', action: 'accept', validUntil: now + day, timestamp: now - 1000, category: 'marketing', sourceId: 'web' });
      await recordConsent(h.storage, P, { profileId: 'pc', action: 'reject', validUntil: now - 1, timestamp: now - 500, category: 'marketing' });
      const state = await consentState(h.storage, P, 'pc', now);
      assert.deepEqual(state.map((s) => [s.category, s.action, s.sourceId]), [['default', 'reject', null], ['marketing', 'accept', 'web']]);
      assert.deepEqual(await consentState(h.storage, P, 'pc', now + 2 * day), []);
    });

    it('a first assignment keeps the first variation; concurrent callers all get the stored one', async () => {
      const input = { project: P, experience: 'hero', unit: 'p-assign', hashVersion: 2 };
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => firstAssignment(h.storage, { ...input, variation: i % 2 ? 'bold' : 'control' })),
      );
      const variations = new Set(results.map((r) => r.variation));
      assert.equal(variations.size, 1);
      assert.equal(results.filter((r) => r.created).length, 1);
      const later = await firstAssignment(h.storage, { ...input, variation: 'other' });
      assert.equal(later.variation, results[0]?.variation);
      assert.equal(later.created, false);
      assert.equal(later.hashVersion, 2);
      assert.equal((await getAssignment(h.storage, P, 'hero', 'p-assign'))?.variation, later.variation);
      assert.equal(await getAssignment(h.storage, P, 'hero', 'nobody'), null);
    });

    it('getOrCreateAssignments answers in the order asked and respects stored rows', async () => {
      await firstAssignment(h.storage, { project: P, experience: 'e1', unit: 'pb', variation: 'kept', hashVersion: 1 });
      const rows = await firstAssignments(h.storage, [
        { project: P, experience: 'e2', unit: 'pb', variation: 'b', hashVersion: 2 },
        { project: P, experience: 'e1', unit: 'pb', variation: 'new', hashVersion: 2 },
      ]);
      assert.deepEqual(rows.map((r) => [r.experience, r.variation, r.created]), [['e2', 'b', true], ['e1', 'kept', false]]);
    });

    it('getOrCreateAssignments from concurrent callers: each pair stored once, every caller answered the stored row', async () => {
      const pairs = ['e1', 'e2', 'e3'].map((experience) => ({ project: P, experience, unit: 'p-race', hashVersion: 2 }));
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) =>
        firstAssignments(h.storage, pairs.map((p, j) => ({ ...p, variation: `v${(i + j) % 3}` })))));
      for (let j = 0; j < pairs.length; j++) {
        const stored = await getAssignment(h.storage, P, pairs[j]!.experience, 'p-race');
        assert.deepEqual(new Set(answers.map((a) => a[j]!.variation)), new Set([stored?.variation]));
        assert.equal(answers.filter((a) => a[j]!.created).length, 1);
        assert.ok(answers.every((a) => a[j]!.hashVersion === 2 && a[j]!.createdAt === stored?.createdAt && a[j]!.unit === 'p-race'));
      }
    });

    it('records exposure sets in batches, one row per answer, and reads back every choice with its set', async () => {
      const time = 1_750_000_000_000;
      await recordExposures(h.storage, Array.from({ length: 700 }, (_, i) => ({
        project: 'acme/expo', profileId: `p${i}`, sessionId: 's', device: 'desktop', time: time + i,
        choices: [{ name: 'hero', variation: 'control' }, { name: 'note "quoted" ✓' }],
      })));
      await recordExposures(h.storage, [{ project: 'acme/other', profileId: 'x', choices: [{ name: 'hero', variation: 'bold' }] }]);
      assert.equal(await countExposures(h.storage, 'acme/expo'), 1400);
      const stored = await readExposures(h.storage, 'acme/expo');
      assert.equal(stored.length, 1400);
      assert.deepEqual(stored.slice(0, 2), [
        { profileId: 'p0', experience: 'hero', variation: 'control', sessionId: 's', device: 'desktop', time },
        { profileId: 'p0', experience: 'note "quoted" ✓', variation: null, sessionId: 's', device: 'desktop', time },
      ]);
      assert.deepEqual(stored[1399], { profileId: 'p699', experience: 'note "quoted" ✓', variation: null, sessionId: 's', device: 'desktop', time: time + 699 });
      const other = await readExposures(h.storage, 'acme/other');
      assert.deepEqual(other.map((e) => [e.experience, e.variation, e.sessionId, e.device]), [['hero', 'bold', null, null]]);
      assert.ok(Math.abs((other[0]?.time ?? 0) - Date.now()) < 60_000, 'a set without a time is stamped when stored');
    });

    it('counts product events per product for feeds', async () => {
      const product = (id: string, name = 'Product viewed') => makeEvent({ type: 'product', name, data: { productId: id, quantity: 1 } });
      await ingestBatch(h.storage, 'acme/pop', 'web', [product('p2'), product('p1'), product('p2'), product('p3', 'Added to cart')]);
      assert.deepEqual(await productEventCounts(h.storage, 'acme/pop'), [
        { productId: 'p2', count: 2 }, { productId: 'p1', count: 1 }, { productId: 'p3', count: 1 },
      ]);
      assert.deepEqual(await productEventCounts(h.storage, 'acme/pop', { names: ['Added to cart'] }), [{ productId: 'p3', count: 1 }]);
    });
  });
}
