// The Choose API's per-node memory of canonical profiles (canonical-profile-cache.ts): what it forgets and when.
// Unit rules first, then through app.inject() on SQLite and PostgreSQL with a pinned clock (no sleeping).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../server/app.js';
import { CanonicalProfileCache } from '../../../server/identity/canonical-profile-cache.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS, type TestDatabase } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { ingestBatch } from '../../../server/programs.js';

describe('CanonicalProfileCache', () => {
  it('answers a remembered canonical until the TTL has passed, then forgets it', () => {
    let now = 1_000;
    const cache = new CanonicalProfileCache(() => now, 2_000);
    cache.set('acme/shop', 'p', 'q', cache.generation);
    now += 1_999;
    assert.equal(cache.get('acme/shop', 'p'), 'q');
    now += 1;
    assert.equal(cache.get('acme/shop', 'p'), undefined);
  });

  it('expires a profile that is its own canonical (the anonymous state) the same way', () => {
    let now = 0;
    const cache = new CanonicalProfileCache(() => now, 2_000);
    cache.set('acme/shop', 'p', 'p', cache.generation);
    assert.equal(cache.get('acme/shop', 'p'), 'p');
    now = 2_000;
    assert.equal(cache.get('acme/shop', 'p'), undefined);
  });

  it('invalidateAll forgets every entry, positive and negative', () => {
    const cache = new CanonicalProfileCache(() => 0);
    cache.set('acme/shop', 'a', 'a', cache.generation);
    cache.set('acme/shop', 'b', 'q', cache.generation);
    cache.invalidateAll();
    assert.equal(cache.get('acme/shop', 'a'), undefined);
    assert.equal(cache.get('acme/shop', 'b'), undefined);
  });

  it('does not remember an answer looked up before an invalidation', () => {
    const cache = new CanonicalProfileCache(() => 0);
    const generation = cache.generation;
    cache.invalidateAll();
    assert.equal(cache.set('acme/shop', 'p', 'p', generation), 'p');
    assert.equal(cache.get('acme/shop', 'p'), undefined);
  });

  it('keys by project: the same profile id in two projects is two entries', () => {
    const cache = new CanonicalProfileCache(() => 0);
    cache.set('acme/shop', 'p', 'q', cache.generation);
    assert.equal(cache.get('acme/blog', 'p'), undefined);
  });

  it('is bounded: the oldest entry goes first', () => {
    const cache = new CanonicalProfileCache(() => 0, 2_000, 2);
    for (const p of ['a', 'b', 'c']) cache.set('acme/shop', p, p, cache.generation);
    assert.equal(cache.size, 2);
    assert.equal(cache.get('acme/shop', 'a'), undefined);
    assert.equal(cache.get('acme/shop', 'c'), 'c');
  });
});

const URL_API = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
const TRACK = '/v1/acme/projects/shop/sources/web/track';

function config(): ServiceConfigFile {
  return { organizations: { acme: { projects: { shop: {
    apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
    experiences: [{ name: 'sticky-exp', variations: [{ name: 'a', weight: 50, body: { v: 'a' } }, { name: 'b', weight: 50, body: { v: 'b' } }] }],
  } } } } };
}

const identify = (profileId: string, userId: string): ServiceEvent => makeEvent({ type: 'identify', name: 'Identify', profileId, userId });

for (const driver of DRIVERS) {
  describe(`Choose API canonical-profile memory (${driver.name})`, () => {
    let db: TestDatabase;
    let storage: Storage;
    let app: FastifyInstance;
    let now = 1_000_000;

    async function variationOf(profileId: string): Promise<string | undefined> {
      const res = await app.inject({ method: 'POST', url: URL_API, payload: { identification: { sourceId: 'web', profileId }, names: ['sticky-exp'] } });
      assert.equal(res.statusCode, 200, res.body);
      return (JSON.parse(res.body) as { choices: { variation?: string }[] }).choices[0]?.variation;
    }

    /** A person's first device `first` (identified as `user`) and an anonymous device assigned the other variation. */
    async function twoDevices(prefix: string, user: string): Promise<{ person: string; device: string }> {
      await ingestBatch(storage, 'acme/shop', 'web', [identify(`${prefix}-first`, user)]);
      const person = await variationOf(`${prefix}-first`);
      for (let i = 0; i < 50; i++) {
        if ((await variationOf(`${prefix}-device-${i}`)) !== person) return { person: person ?? '', device: `${prefix}-device-${i}` };
      }
      throw new Error('no profile with the other variation');
    }

    before(async () => {
      db = await driver.create();
      storage = await db.open();
      app = await buildApp({ config: config(), storage, now: () => now });
    });
    after(async () => {
      await app.close();
      await storage.close();
      await db.destroy();
    });

    it('an identify ingested through this node is served at once (the memory is cleared)', async () => {
      const { person, device } = await twoDevices('local', 'user-local');
      const res = await app.inject({ method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch: [identify(device, 'user-local')] } });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(await variationOf(device), person);
    });

    it('a link stored by another node is served within the 2 s the memory keeps an answer', async () => {
      const { person, device } = await twoDevices('remote', 'user-remote');
      const own = await variationOf(device);
      // Another node stores the link: this node's memory still holds "device is its own canonical".
      await ingestBatch(storage, 'acme/shop', 'web', [identify(device, 'user-remote')]);
      now += 1_999;
      assert.equal(await variationOf(device), own);
      now += 1;
      assert.equal(await variationOf(device), person);
    });
  });
}
