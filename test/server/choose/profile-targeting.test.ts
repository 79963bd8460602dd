// The one read a Choose request makes for a profile no cache knows (profileTargetingProgram): the same canonical
// profile and stored targeting as the single reads it replaces, on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useStorage } from '../helpers/use-test-app.js';
import { profileTargetingProgram, storedTargetingProgram } from '../../../server/identity/identity-programs.js';
import { canonicalProfile } from '../../../server/identity/identity-store.js';
import { getAccountAttributes, getProfileAccounts, getProfileAttributes } from '../helpers/stored-rows.js';
import { ingestBatch } from '../../../server/programs.js';
import type { Storage } from '../../../server/storage/storage.js';

const P = 'acme/shop';

/** What the single reads answer, composed as the targeting rules say (the canonical profile's attributes under the own). */
async function bySingleReads(storage: Storage, profileId: string) {
  const canonicalProfileId = await canonicalProfile(storage, P, profileId);
  const own = await getProfileAttributes(storage, P, profileId);
  const canonical = canonicalProfileId === profileId ? {} : await getProfileAttributes(storage, P, canonicalProfileId);
  let accounts = await getProfileAccounts(storage, P, profileId);
  if (accounts.length === 0 && canonicalProfileId !== profileId) accounts = await getProfileAccounts(storage, P, canonicalProfileId);
  const account = accounts[0] === undefined ? {} : await getAccountAttributes(storage, P, accounts[0]);
  return { canonicalProfileId, targeting: { profile: { ...canonical, ...own }, account } };
}

for (const driver of DRIVERS) {
  describe(`profileTargetingProgram (${driver.name})`, () => {
    const h = useStorage(driver);

    it('a profile nobody has: itself, nothing stored', async () => {
      const read = await h.storage.run(() => profileTargetingProgram(P, 'pt-nobody'));
      assert.deepEqual(read, { canonicalProfileId: 'pt-nobody', targeting: { profile: {}, account: {} } });
    });

    it('an anonymous profile: its attributes, and its first account of two grouped in one batch', async () => {
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'track', name: 'Seen', profileId: 'pt-anon', userAttributes: { plan: 'pro', seats: 3, beta: true } }),
        makeEvent({ type: 'group', name: 'Group', profileId: 'pt-anon', accountId: 'pt-acct-b', accountAttributes: { tier: 'gold' } }),
        makeEvent({ type: 'group', name: 'Group', profileId: 'pt-anon', accountId: 'pt-acct-a', accountAttributes: { tier: 'silver' } }),
      ]);
      const read = await h.storage.run(() => profileTargetingProgram(P, 'pt-anon'));
      assert.deepEqual(read, await bySingleReads(h.storage, 'pt-anon'));
      // Same receipt time: the account ids break the tie, as the single read orders them.
      assert.deepEqual(read.targeting, { profile: { beta: true, plan: 'pro', seats: 3 }, account: { tier: 'silver' } });
      assert.deepEqual(Object.keys(read.targeting.profile), ['beta', 'plan', 'seats']);
    });

    it('a second device of an identified person: the first profile, its attributes under the own, its account', async () => {
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'identify', name: 'Identify', profileId: 'pt-first', userId: 'pt-user', userAttributes: { plan: 'basic', country: 'NL' } }),
        makeEvent({ type: 'group', name: 'Group', profileId: 'pt-first', accountId: 'pt-acct-first', accountAttributes: { size: 'large' } }),
      ]);
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'track', name: 'Seen', profileId: 'pt-second', userAttributes: { plan: 'pro' } }),
      ]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'pt-second', userId: 'pt-user' })]);
      const read = await h.storage.run(() => profileTargetingProgram(P, 'pt-second'));
      assert.deepEqual(read, await bySingleReads(h.storage, 'pt-second'));
      assert.equal(read.canonicalProfileId, 'pt-first');
      assert.equal(read.targeting.profile.plan, 'pro');
      assert.equal(read.targeting.profile.country, 'NL');
      assert.deepEqual(read.targeting.account, { size: 'large' });
      // With the canonical profile already known (a cached one), the same targeting.
      assert.deepEqual(await h.storage.run(() => storedTargetingProgram(P, 'pt-second', 'pt-first')), read.targeting);
    });

    it('accounts oldest first when time and id order disagree; own accounts win over the canonical profile\'s', async () => {
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'identify', name: 'Identify', profileId: 'pt-owner', userId: 'pt-user-2' }),
        makeEvent({ type: 'group', name: 'Group', profileId: 'pt-owner', accountId: 'pt-acct-owner', accountAttributes: { owner: true } }),
        makeEvent({ type: 'group', name: 'Group', profileId: 'pt-device', accountId: 'pt-acct-z', accountAttributes: { first: 'z' } }),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 5));
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'group', name: 'Group', profileId: 'pt-device', accountId: 'pt-acct-a', accountAttributes: { first: 'a' } }),
      ]);
      await ingestBatch(h.storage, P, 'web', [makeEvent({ type: 'identify', name: 'Identify', profileId: 'pt-device', userId: 'pt-user-2' })]);
      const read = await h.storage.run(() => profileTargetingProgram(P, 'pt-device'));
      assert.deepEqual(read, await bySingleReads(h.storage, 'pt-device'));
      assert.equal(read.canonicalProfileId, 'pt-owner');
      assert.deepEqual(read.targeting.account, { first: 'z' });
    });

    it('a stored __proto__ attribute stays data', async () => {
      await ingestBatch(h.storage, P, 'web', [
        makeEvent({ type: 'track', name: 'Seen', profileId: 'pt-proto', userAttributes: JSON.parse('{"__proto__": {"polluted": true}, "plan": "pro"}') as Record<string, unknown> }),
      ]);
      const read = await h.storage.run(() => profileTargetingProgram(P, 'pt-proto'));
      assert.deepEqual(read, await bySingleReads(h.storage, 'pt-proto'));
      assert.equal(Object.getPrototypeOf(read.targeting.profile), Object.prototype);
      assert.deepEqual(Object.getOwnPropertyDescriptor(read.targeting.profile, '__proto__')?.value, { polluted: true });
      assert.equal(({} as Record<string, unknown>).polluted, undefined);
    });

    it('another project sees none of it', async () => {
      const read = await h.storage.run(() => profileTargetingProgram('acme/blog', 'pt-second'));
      assert.deepEqual(read, { canonicalProfileId: 'pt-second', targeting: { profile: {}, account: {} } });
    });
  });
}
