// Storage's canonical profile (identity carry-over for sticky assignments), on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeEvent } from './helpers/events.js';
import { DRIVERS } from './helpers/storage-drivers.js';
import { useStorage } from './helpers/use-test-app.js';
import { canonicalProfile, resolveUser } from '../../server/identity/identity-store.js';
import { ingestBatch } from '../../server/ingest/event-store.js';

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
