// The Choose API through app.inject(), against SQLite and PostgreSQL: auth, validation, identification forms,
// selection, targeting, stickiness (weights, restart, identity), force, exposures.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../server/app.js';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { SqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS, type TestDatabase } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { getAssignment, readExposures } from '../helpers/stored-rows.js';

const P = 'acme/shop';
const URL_API = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
const URL_BROWSER = '/v1/acme/projects/shop/optimization/choose-api';
const BROWSER = { authorization: basic('web1.p4ss') };
const TRACK = '/v1/acme/projects/shop/sources/web/track';

function experiences(stickyWeights: [number, number] = [50, 50]): ExperienceConfig[] {
  return [
    {
      name: 'hero-banner', group: 'homepage', devices: ['desktop', 'mobile'], traffic: 100, stickiness: 'profile',
      variations: [
        { name: 'control', weight: 50, body: { title: 'Welcome' } },
        { name: 'bold', weight: 50, body: { title: 'Big sale' } },
      ],
    },
    { name: 'home-recs', group: 'homepage', feed: 1, limit: 2 },
    { name: 'mobile-tip', group: 'homepage', devices: ['mobile'], body: { tip: 'Swipe' } },
    { name: 'welcome-note', body: { text: 'Hello again' } },
    { name: 'promo-strip', group: 'promo', body: { text: 'Free shipping' } },
    { name: 'dark-launch', traffic: 0, variations: [{ name: 'on', weight: 100, body: { on: true } }] },
    {
      name: 'half-traffic', traffic: 50,
      variations: [{ name: 'a', weight: 50, body: { v: 'a' } }, { name: 'b', weight: 50, body: { v: 'b' } }],
    },
    {
      name: 'by-session', stickiness: 'session',
      variations: [{ name: 'a', weight: 50, body: { v: 'a' } }, { name: 'b', weight: 50, body: { v: 'b' } }],
    },
    {
      name: 'sticky-exp',
      variations: [
        { name: 'a', weight: stickyWeights[0], body: { v: 'a' } },
        { name: 'b', weight: stickyWeights[1], body: { v: 'b' } },
      ],
    },
    { name: 'vip-note', condition: { plan: 'pro' }, body: { text: 'Thanks, pro' } },
    { name: 'gold-account', condition: { 'account.tier': 'gold' }, body: { text: 'Gold' } },
    { name: 'sale-page', condition: { url: { $regex: '/sale' }, device: 'mobile' }, body: { text: 'Sale on mobile' } },
  ];
}

function config(stickyWeights?: [number, number]): ServiceConfigFile {
  return {
    organizations: {
      acme: {
        projects: {
          shop: {
            apiKeys: ['srv1.s3cret'],
            writeKeys: ['web1.p4ss'],
            sources: ['web', 'app'],
            experiences: experiences(stickyWeights),
            feeds: [{ id: 1, strategy: 'popular' }],
            catalog: [
              { id: 'p1', title: 'Mug', available: true },
              { id: 'p2', title: 'Kettle', available: false },
              { id: 'p3', title: 'Knife' },
              { id: 'p4', title: 'Pan' },
            ],
          },
          blog: { apiKeys: ['srvblog.x'], writeKeys: ['webblog.y'], sources: ['web'] },
        },
      },
    },
  };
}

interface Choice {
  name: string;
  group?: string;
  variation?: string;
  body: Record<string, unknown>;
}

const profile = (profileId: string, sourceId = 'web') => ({ sourceId, profileId });

// Spec as data: each bad body (apiKey caller) and the code and message naming the field.
const INVALID: { name: string; body: unknown; code: string; message: string }[] = [
  { name: 'body an array', body: [1], code: 'invalid_request', message: 'The body must be a JSON object.' },
  { name: 'identification missing', body: { names: ['x'] }, code: 'invalid_request', message: 'identification: is required ({sourceId, profileId} or {userId})' },
  { name: 'identification a number', body: { identification: 5, names: ['x'] }, code: 'invalid_request', message: 'identification: must be an object or a JSON string of one' },
  { name: 'identification bad JSON text', body: { identification: '{sourceId', names: ['x'] }, code: 'invalid_request', message: 'identification: must be an object or a JSON string of one' },
  { name: 'identification empty', body: { identification: {}, names: ['x'] }, code: 'invalid_request', message: 'identification: must be {sourceId, profileId} or {userId}' },
  { name: 'both forms', body: { identification: { sourceId: 'web', profileId: 'bad-1', userId: 'u' }, names: ['x'] }, code: 'invalid_request', message: 'identification: use either {sourceId, profileId} or {userId}, not both' },
  { name: 'sourceId missing', body: { identification: { profileId: 'bad-1' }, names: ['x'] }, code: 'invalid_request', message: 'identification.sourceId: is required with profileId' },
  { name: 'profileId missing', body: { identification: { sourceId: 'web' }, names: ['x'] }, code: 'invalid_request', message: 'identification.profileId: is required with sourceId' },
  { name: 'profileId empty', body: { identification: { sourceId: 'web', profileId: '' }, names: ['x'] }, code: 'invalid_request', message: 'identification.profileId: must be a non-empty string' },
  { name: 'profileId too long', body: { identification: { sourceId: 'web', profileId: 'x'.repeat(257) }, names: ['x'] }, code: 'invalid_request', message: 'identification.profileId: must be at most 256 characters' },
  { name: 'userId a number', body: { identification: { userId: 7 }, names: ['x'] }, code: 'invalid_request', message: 'identification.userId: must be a non-empty string' },
  { name: 'names not an array', body: { identification: profile('bad-1'), names: 'hero-banner' }, code: 'invalid_request', message: 'names: must be an array of strings' },
  { name: 'names item a number', body: { identification: profile('bad-1'), names: ['hero-banner', 3] }, code: 'invalid_request', message: 'names[1]: must be a non-empty string' },
  { name: 'names too long', body: { identification: profile('bad-1'), names: Array.from({ length: 101 }, (_, i) => `n${i}`) }, code: 'invalid_request', message: 'names: must have at most 100 items' },
  { name: 'groups an object', body: { identification: profile('bad-1'), groups: { homepage: true } }, code: 'invalid_request', message: 'groups: must be an array of strings' },
  { name: 'neither names nor groups', body: { identification: profile('bad-1') }, code: 'names_or_groups_required', message: "Send 'names' or 'groups' to choose experiences." },
  { name: 'device unknown', body: { identification: profile('bad-1'), names: ['hero-banner'], device: 'tablet' }, code: 'invalid_request', message: 'device: must be "mobile" or "desktop"' },
  { name: 'sessionId a number', body: { identification: profile('bad-1'), names: ['hero-banner'], sessionId: 12 }, code: 'invalid_request', message: 'sessionId: must be a non-empty string' },
  { name: 'url a number', body: { identification: profile('bad-1'), names: ['hero-banner'], url: 1 }, code: 'invalid_request', message: 'url: must be a string' },
  { name: 'force an array', body: { identification: profile('bad-1'), names: ['hero-banner'], force: ['bold'] }, code: 'invalid_request', message: 'force: must be an object of {experienceName: variationName}' },
  { name: 'force value a number', body: { identification: profile('bad-1'), names: ['hero-banner'], force: { 'hero-banner': 1 } }, code: 'invalid_request', message: 'force.hero-banner: must be a non-empty string' },
  { name: 'session experience without sessionId', body: { identification: profile('bad-1'), names: ['hero-banner', 'by-session'] }, code: 'session_id_required', message: "Experience 'by-session' is sticky by session: 'sessionId' is required." },
];

// Each auth failure and its status and code.
const AUTH_FAILURES: { name: string; url: string; headers?: Record<string, string>; body?: unknown; status: number; code: string }[] = [
  { name: 'no credentials', url: URL_BROWSER, status: 401, code: 'missing_credentials' },
  { name: 'wrong apiKey secret', url: `${URL_BROWSER}?apiKey=srv1.wrong`, status: 401, code: 'invalid_credentials' },
  { name: 'malformed apiKey', url: `${URL_BROWSER}?apiKey=srv1`, status: 401, code: 'invalid_credentials' },
  { name: 'a writeKey sent as apiKey', url: `${URL_BROWSER}?apiKey=web1.p4ss`, status: 401, code: 'invalid_credentials' },
  { name: 'an apiKey sent as Basic', url: URL_BROWSER, headers: { authorization: basic('srv1.s3cret') }, status: 401, code: 'invalid_credentials' },
  { name: 'an apiKey sent as ?writeKey', url: `${URL_BROWSER}?writeKey=srv1.s3cret`, status: 401, code: 'invalid_credentials' },
  { name: 'a malformed ?writeKey', url: `${URL_BROWSER}?writeKey=web1`, status: 401, code: 'invalid_credentials' },
  { name: 'a wrong ?writeKey secret', url: `${URL_BROWSER}?writeKey=web1.wrong`, status: 401, code: 'invalid_credentials' },
  { name: 'writeKey of another project as ?writeKey', url: `${URL_BROWSER}?writeKey=webblog.y`, status: 403, code: 'key_not_for_project' },
  { name: 'unknown project (valid key)', url: '/v1/acme/projects/nope/optimization/choose-api?apiKey=srv1.s3cret', status: 404, code: 'project_not_found' },
  { name: 'unknown org (valid key)', url: '/v1/nobody/projects/shop/optimization/choose-api?apiKey=srv1.s3cret', status: 404, code: 'project_not_found' },
  { name: 'apiKey of another project', url: '/v1/acme/projects/shop/optimization/choose-api?apiKey=srvblog.x', status: 403, code: 'key_not_for_project' },
  { name: 'writeKey of another project', url: URL_BROWSER, headers: { authorization: basic('webblog.y') }, status: 403, code: 'key_not_for_project' },
  { name: 'writeKey with a source not of the project', url: URL_BROWSER, headers: BROWSER, body: { identification: profile('a-1', 'pos'), names: ['hero-banner'] }, status: 403, code: 'source_not_allowed' },
  { name: 'apiKey with a source not of the project', url: URL_API, body: { identification: profile('a-1', 'pos'), names: ['hero-banner'] }, status: 403, code: 'source_not_allowed' },
  { name: 'writeKey with form B (userId)', url: URL_BROWSER, headers: BROWSER, body: { identification: { userId: 'u-1' }, names: ['hero-banner'] }, status: 403, code: 'identification_not_allowed' },
];

for (const driver of DRIVERS) {
  describe(`choose API (${driver.name})`, () => {
    let db: TestDatabase;
    let storage: Storage;
    let app: FastifyInstance;

    const post = (body: unknown, url = URL_API, headers: Record<string, string> = {}) =>
      app.inject({ method: 'POST', url, headers, payload: body as Record<string, unknown> });

    async function choose(body: Record<string, unknown>, url = URL_API, headers: Record<string, string> = {}, on = app): Promise<Choice[]> {
      const res = await on.inject({ method: 'POST', url, headers, payload: body });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { choices: Choice[] }).choices;
    }

    async function variationOf(profileId: string, name: string, on = app): Promise<string | undefined> {
      const choices = await choose({ identification: profile(profileId), names: [name] }, URL_API, {}, on);
      return choices.find((c) => c.name === name)?.variation;
    }

    async function track(events: ServiceEvent[]): Promise<void> {
      const res = await app.inject({ method: 'POST', url: TRACK, headers: BROWSER, payload: { batch: events } });
      assert.equal(res.statusCode, 200, res.body);
    }

    const identify = (profileId: string, userId: string, extra: Partial<ServiceEvent> = {}) =>
      makeEvent({ type: 'identify', name: 'Identify', profileId, userId, ...extra });

    before(async () => {
      db = await driver.create();
      storage = await db.open();
      app = await buildApp({ config: config(), storage });
    });
    after(async () => {
      await app.close();
      await storage.close();
      await db.destroy();
    });

    for (const c of AUTH_FAILURES) {
      it(`answers ${c.status} ${c.code}: ${c.name}`, async () => {
        const res = await post(c.body ?? { identification: profile('a-1'), names: ['hero-banner'] }, c.url, c.headers);
        assert.equal(res.statusCode, c.status, res.body);
        assert.equal((res.json() as { error: { code: string } }).error.code, c.code);
      });
    }

    for (const c of INVALID) {
      it(`answers 400 ${c.code}: ${c.name}`, async () => {
        const res = await post(c.body);
        assert.equal(res.statusCode, 400, res.body);
        assert.deepEqual(res.json(), { error: { code: c.code, message: c.message } });
      });
    }

    it('bad input stores no assignment', async () => {
      for (const c of INVALID) await post(c.body);
      assert.equal(await getAssignment(storage, P, 'hero-banner', 'bad-1'), null);
    });

    it('form A answers {choices:[{name, group, variation, body}]} with the variation body', async () => {
      const choices = await choose({ identification: profile('fa-1'), names: ['hero-banner'] });
      assert.equal(choices.length, 1);
      const [c] = choices;
      assert.ok(c);
      assert.equal(c.name, 'hero-banner');
      assert.equal(c.group, 'homepage');
      assert.ok(c.variation === 'control' || c.variation === 'bold');
      assert.deepEqual(c.body, { title: c.variation === 'control' ? 'Welcome' : 'Big sale' });
    });

    it('a browser (writeKey) caller gets the same answer as a server caller for the same profile', async () => {
      const server = await choose({ identification: profile('fa-2'), names: ['hero-banner', 'welcome-note'] });
      const browser = await choose({ identification: profile('fa-2'), names: ['hero-banner', 'welcome-note'] }, URL_BROWSER, BROWSER);
      assert.deepEqual(browser, server);
    });

    it('a browser may send its writeKey as ?writeKey= with a text/plain body (no preflight): the same answer', async () => {
      const body = { identification: profile('fa-4'), names: ['hero-banner', 'welcome-note'] };
      const basic = await choose(body, URL_BROWSER, BROWSER);
      const res = await app.inject({
        method: 'POST', url: `${URL_BROWSER}?writeKey=web1.p4ss`, headers: { 'content-type': 'text/plain;charset=UTF-8' }, payload: JSON.stringify(body),
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((res.json() as { choices: Choice[] }).choices, basic);
    });

    it('accepts identification as a JSON string (the API description declares a JSON-formatted value)', async () => {
      const asObject = await choose({ identification: profile('fa-3'), names: ['hero-banner'] });
      const asString = await choose({ identification: JSON.stringify(profile('fa-3')), names: ['hero-banner'] });
      assert.deepEqual(asString, asObject);
    });

    it('form B resolves the userId to its identified profile and serves that profile\'s variation', async () => {
      const before = await variationOf('fb-1', 'hero-banner');
      await track([identify('fb-1', 'user-fb-1')]);
      const choices = await choose({ identification: { userId: 'user-fb-1' }, names: ['hero-banner'] });
      assert.equal(choices[0]?.variation, before);
    });

    it('form B with a userId nobody identified answers 400 unknown_user', async () => {
      const res = await post({ identification: { userId: 'ghost' }, names: ['hero-banner'] });
      assert.equal(res.statusCode, 400);
      assert.equal((res.json() as { error: { code: string } }).error.code, 'unknown_user');
    });

    it('names and groups: the union, each once, names first in request order, then groups in config order', async () => {
      const choices = await choose({
        identification: profile('sel-1'), device: 'mobile',
        names: ['welcome-note', 'no-such-experience', 'hero-banner', 'welcome-note'],
        groups: ['promo', 'homepage', 'no-such-group'],
      });
      assert.deepEqual(choices.map((c) => c.name), ['welcome-note', 'hero-banner', 'home-recs', 'mobile-tip', 'promo-strip']);
    });

    it('unknown names are just absent (an empty answer is a success)', async () => {
      assert.deepEqual(await choose({ identification: profile('sel-2'), names: ['nope'] }), []);
      assert.deepEqual(await choose({ identification: profile('sel-2'), groups: [] }), []);
    });

    it('devices: an experience limited to mobile is served to mobile only, not to desktop nor to an unknown device', async () => {
      const names = (choices: Choice[]) => choices.map((c) => c.name);
      const body = { identification: profile('dev-1'), names: ['mobile-tip'] };
      assert.deepEqual(names(await choose({ ...body, device: 'mobile' })), ['mobile-tip']);
      assert.deepEqual(names(await choose({ ...body, device: 'desktop' })), []);
      assert.deepEqual(names(await choose(body)), []);
    });

    it('traffic: 0 enrolls nobody; 50 enrolls some units and not others, each consistently', async () => {
      assert.deepEqual(await choose({ identification: profile('tr-0'), names: ['dark-launch'] }), []);
      let enrolled = 0;
      const first = new Map<string, boolean>();
      for (let i = 0; i < 60; i++) {
        const served = (await choose({ identification: profile(`half-${i}`), names: ['half-traffic'] })).length === 1;
        first.set(`half-${i}`, served);
        if (served) enrolled++;
      }
      assert.ok(enrolled > 10 && enrolled < 50, `enrolled ${enrolled} of 60`);
      for (const [id, served] of first) {
        assert.equal((await choose({ identification: profile(id), names: ['half-traffic'] })).length === 1, served);
      }
    });

    it('stickiness "session": the session is the unit, so two profiles in one session see one variation', async () => {
      const variations = new Set<string | undefined>();
      for (let i = 0; i < 8; i++) {
        const choices = await choose({ identification: profile(`ses-p${i}`), names: ['by-session'], sessionId: 'shared-session' });
        variations.add(choices[0]?.variation);
      }
      assert.equal(variations.size, 1);
      assert.ok(await getAssignment(storage, P, 'by-session', 'shared-session'));
    });

    it('force: an apiKey caller gets the forced variation, not stored and not exposed', async () => {
      for (const forced of ['control', 'bold']) {
        const choices = await choose({ identification: profile('qa-1'), names: ['hero-banner'], force: { 'hero-banner': forced } });
        assert.equal(choices[0]?.variation, forced);
      }
      assert.equal(await getAssignment(storage, P, 'hero-banner', 'qa-1'), null);
    });

    it('force: a writeKey (browser) caller cannot force, it gets its own assignment', async () => {
      const own = await variationOf('qa-2', 'hero-banner');
      const other = own === 'control' ? 'bold' : 'control';
      const choices = await choose(
        { identification: profile('qa-2'), names: ['hero-banner'], force: { 'hero-banner': other } }, URL_BROWSER, BROWSER,
      );
      assert.equal(choices[0]?.variation, own);
    });

    it('targeting: a condition on a profile attribute (set by identify) serves only matching profiles', async () => {
      await track([identify('tg-pro', 'user-pro', { userAttributes: { plan: 'pro' } }), identify('tg-free', 'user-free', { userAttributes: { plan: 'free' } })]);
      assert.deepEqual((await choose({ identification: profile('tg-pro'), names: ['vip-note'] })).map((c) => c.name), ['vip-note']);
      assert.deepEqual(await choose({ identification: profile('tg-free'), names: ['vip-note'] }), []);
      assert.deepEqual(await choose({ identification: profile('tg-anon'), names: ['vip-note'] }), []);
      // Form B sees the same attributes.
      assert.equal((await choose({ identification: { userId: 'user-pro' }, names: ['vip-note'] })).length, 1);
    });

    it('targeting: account attributes of the first linked account are under `account`', async () => {
      await track([makeEvent({ type: 'group', name: 'Group', profileId: 'tg-acc', accountId: 'acc-gold', accountAttributes: { tier: 'gold' } })]);
      assert.equal((await choose({ identification: profile('tg-acc'), names: ['gold-account'] })).length, 1);
      assert.deepEqual(await choose({ identification: profile('tg-noacc'), names: ['gold-account'] }), []);
    });

    it('targeting: request url and device are attributes too', async () => {
      const body = { identification: profile('tg-url'), names: ['sale-page'] };
      assert.equal((await choose({ ...body, url: 'https://shop.example.com/sale/shoes', device: 'mobile' })).length, 1);
      assert.deepEqual(await choose({ ...body, url: 'https://shop.example.com/sale/shoes', device: 'desktop' }), []);
      assert.deepEqual(await choose({ ...body, url: 'https://shop.example.com/home', device: 'mobile' }), []);
    });

    it('sticky across a weight change: assigned units keep their variation, new units follow the new weights', async () => {
      const ids = Array.from({ length: 30 }, (_, i) => `wc-${i}`);
      const firstSeen = new Map<string, string | undefined>();
      for (const id of ids) firstSeen.set(id, await variationOf(id, 'sticky-exp'));
      assert.ok([...firstSeen.values()].includes('a'), 'some unit got a at 50/50');
      const changed = await buildApp({ config: config([0, 100]), storage });
      try {
        for (const id of ids) assert.equal(await variationOf(id, 'sticky-exp', changed), firstSeen.get(id), id);
        for (let i = 0; i < 20; i++) assert.equal(await variationOf(`wc-new-${i}`, 'sticky-exp', changed), 'b');
      } finally {
        await changed.close();
      }
    });

    it('sticky across a restart: the same storage reopened answers the same variations', async () => {
      const ids = Array.from({ length: 10 }, (_, i) => `rs-${i}`);
      const firstSeen = new Map<string, string | undefined>();
      for (const id of ids) firstSeen.set(id, await variationOf(id, 'hero-banner'));
      await app.close();
      await storage.close();
      storage = await db.open();
      app = await buildApp({ config: config(), storage });
      for (const id of ids) assert.equal(await variationOf(id, 'hero-banner'), firstSeen.get(id));
    });

    it('identity carry-over: log-in keeps the anonymous variation, on form B and on a second device', async () => {
      // Same experiment, different units: find an anonymous second device whose own variation differs,
      // so the test fails if the assignment were not carried over.
      const anonymous = await variationOf('id-first', 'sticky-exp');
      assert.ok(anonymous);
      let secondDevice = '';
      for (let i = 0; i < 50 && secondDevice === ''; i++) {
        if ((await variationOf(`id-second-${i}`, 'sticky-exp')) !== anonymous) secondDevice = `id-second-${i}`;
      }
      assert.notEqual(secondDevice, '', 'a profile with the other variation exists');

      await track([identify('id-first', 'user-id')]);
      assert.equal(await variationOf('id-first', 'sticky-exp'), anonymous);
      const byUser = await choose({ identification: { userId: 'user-id' }, names: ['sticky-exp'] });
      assert.equal(byUser[0]?.variation, anonymous);

      await track([identify(secondDevice, 'user-id')]);
      assert.equal(await variationOf(secondDevice, 'sticky-exp'), anonymous);
      // A brand-new device identified as the user gets it too, without ever being assigned on its own.
      await track([identify('id-third', 'user-id')]);
      assert.equal(await variationOf('id-third', 'sticky-exp'), anonymous);
      assert.equal(await getAssignment(storage, P, 'sticky-exp', 'id-third'), null);
    });

    it('identity carry-over follows alias links to the same person', async () => {
      const anonymous = await variationOf('al-first', 'sticky-exp');
      await track([identify('al-first', 'al-main')]);
      await track([makeEvent({ type: 'alias', name: 'Alias', profileId: 'al-first', userId: 'al-main', anotherUserId: 'al-email' })]);
      await track([identify('al-other-device', 'al-email')]);
      assert.equal(await variationOf('al-other-device', 'sticky-exp'), anonymous);
      assert.equal((await choose({ identification: { userId: 'al-email' }, names: ['sticky-exp'] }))[0]?.variation, anonymous);
    });

    it('feed-backed experience: popular available catalog products, most product events first, up to limit', async () => {
      const product = (productId: string) => makeEvent({ type: 'product', name: 'Product viewed', profileId: 'fd-1', data: { productId, quantity: 1 } });
      await track([product('p4'), product('p4'), product('p3'), product('p2'), product('p2'), product('p2')]);
      // A new app: popularity is cached per app for 30 s.
      const fresh = await buildApp({ config: config(), storage });
      try {
        const choices = await choose({ identification: profile('fd-1'), names: ['home-recs'] }, URL_API, {}, fresh);
        // p2 is the most viewed but unavailable; the limit is 2.
        assert.deepEqual((choices[0]?.body.products as { id: string }[]).map((p) => p.id), ['p4', 'p3']);
      } finally {
        await fresh.close();
      }
    });

    it('records one exposure per choice served (not forced ones), written by app.close() at the latest', async () => {
      const own = await buildApp({ config: config(), storage });
      const profileId = `exp-${randomUUID()}`;
      await choose({ identification: profile(profileId), names: ['hero-banner', 'welcome-note', 'dark-launch'], sessionId: 's-exp', device: 'desktop' }, URL_API, {}, own);
      await choose({ identification: profile(profileId), names: ['hero-banner'], force: { 'hero-banner': 'bold' } }, URL_API, {}, own);
      await own.close();
      // Only this profile's rows: an earlier test's app may still be flushing exposures of its own.
      const mine = (await readExposures(storage, P)).filter((e) => e.profileId === profileId);
      assert.deepEqual(mine.map((e) => [e.experience, e.sessionId, e.device]), [['hero-banner', 's-exp', 'desktop'], ['welcome-note', 's-exp', 'desktop']]);
      assert.ok(mine[0]?.variation === 'control' || mine[0]?.variation === 'bold');
      assert.equal(mine[1]?.variation, null);
    });

    it('answers 503 storage_unavailable when assignments cannot be stored, and serves nothing unstored', async () => {
      // The write fails where it is made: in the storage (PostgreSQL) — stubbed here — or, on a SQLite file, in
      // the database itself, refused by a trigger, since the Choose API's writer thread commits first assignments.
      const failing: Storage = Object.create(storage) as Storage;
      const side = storage instanceof SqliteStorage ? new Database(storage.file) : null;
      side?.exec(`CREATE TRIGGER refuse_down BEFORE INSERT ON assignments WHEN NEW.unit = 'down-1'
        BEGIN SELECT RAISE(ABORT, 'connection lost'); END`);
      const broken = await buildApp({ config: config(), storage: failing });
      // Once built (its catalog is seeded): every durable write fails, first assignments included.
      failing.transaction = () => Promise.reject(new Error('connection lost'));
      try {
        const res = await broken.inject({ method: 'POST', url: URL_API, payload: { identification: profile('down-1'), names: ['hero-banner'] } });
        assert.equal(res.statusCode, 503);
        assert.equal((res.json() as { error: { code: string } }).error.code, 'storage_unavailable');
        assert.doesNotMatch(res.body, /connection lost/);
        assert.equal(await getAssignment(storage, P, 'hero-banner', 'down-1'), null);
      } finally {
        await broken.close();
        side?.exec('DROP TRIGGER refuse_down');
        side?.close();
      }
    });

    it('the shipped svc.config.json: hero-banner answers a variation in {control, bold}', async () => {
      const shipped = JSON.parse(readFileSync(new URL('../../../svc.config.json', import.meta.url), 'utf8')) as ServiceConfigFile;
      const real = await buildApp({ config: shipped, storage });
      try {
        const choices = await choose({ identification: profile('shipped-1'), names: ['hero-banner'], device: 'desktop' }, URL_API, {}, real);
        assert.ok(['control', 'bold'].includes(choices[0]?.variation ?? ''), JSON.stringify(choices));
      } finally {
        await real.close();
      }
    });
  });
}
