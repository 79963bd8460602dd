// Storage's canonical profile (identity carry-over for sticky assignments), on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useStorage } from '../helpers/use-test-app.js';
import { canonicalProfile, resolveUser } from '../../../server/identity/identity-store.js';
import { ingestBatch } from '../../../server/programs.js';

const P = 'acme/shop';

for (const driver of DRIVERS) {
  describe(`storage canonicalProfile (${driver.name})`, () => {
    const h = useStorage(driver);

    it('an anonymous profile is its own canonical profile', async () => {
      assert.equal(await canonicalProfile(h.storage, P, 'anon-only'), 'anon-only');
    });

    it('a second device identified as the same user leads to the first profile linked to that user', async () => {
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'cp-a', userId: 'cp-u' })]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'cp-b', userId: 'cp-u' })]);
      assert.equal(await canonicalProfile(h.storage, P, 'cp-a'), 'cp-a');
      assert.equal(await canonicalProfile(h.storage, P, 'cp-b'), 'cp-a');
      assert.equal(await resolveUser(h.storage, P, 'cp-u'), 'cp-a');
    });

    it('a profile identified as an aliased user id leads to the person of the alias target', async () => {
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'al-a', userId: 'al-main' })]);
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'alias', name: 'Alias', profileId: 'al-b', userId: 'al-main', anotherUserId: 'al-email' }),
      ]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'al-c', userId: 'al-email' })]);
      assert.equal(await canonicalProfile(h.storage, P, 'al-b'), 'al-a');
      assert.equal(await canonicalProfile(h.storage, P, 'al-c'), 'al-a');
    });

    it('two opposite aliases stored at once, through two nodes, make one person, never a cycle', async () => {
      const other = await h.db.open();
      try {
        const pairs = Array.from({ length: 12 }, (_, i) => ({ u1: `oa-${i}-1`, u2: `oa-${i}-2`, p1: `oa-${i}-p1`, p2: `oa-${i}-p2` }));
        for (const { u1, u2, p1, p2 } of pairs) {
          await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: p1, userId: u1 })]);
          await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: p2, userId: u2 })]);
        }
        await Promise.all(pairs.flatMap(({ u1, u2, p1, p2 }) => [
          ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'alias', name: 'Alias', profileId: p1, userId: u2, anotherUserId: u1 })]),
          ingestBatch(other, P, 'web', [makeEvent({ type: 'alias', name: 'Alias', profileId: p2, userId: u1, anotherUserId: u2 })]),
        ]));
        for (const { u1, u2 } of pairs) {
          const person = await resolveUser(h.storage, P, u1);
          assert.ok(person !== null, u1);
          assert.equal(await resolveUser(h.storage, P, u2), person, `${u1} and ${u2} are one person`);
        }
      } finally {
        await other.close();
      }
    });

    it('a shared device keeps the first user it was identified as', async () => {
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'sh-1', userId: 'sh-u1' })]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'sh-2', userId: 'sh-u2' })]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'sh-1', userId: 'sh-u2' })]);
      assert.equal(await canonicalProfile(h.storage, P, 'sh-1'), 'sh-1');
    });

    it('links are per project', async () => {
      assert.equal(await canonicalProfile(h.storage, 'acme/blog', 'cp-b'), 'cp-b');
    });
  });
}
