// The management API (experiences, metrics, feeds, audit) against SQLite and PostgreSQL, including two service
// instances on one database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Storage } from '../../../server/storage/storage.js';
import { DRIVERS, POSTGRES_DRIVER } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const BASE = '/v1/acme/projects/shop';

function config(): ServiceConfigFile {
  const c = testConfig();
  c.organizations.acme!.adminKeys = [ADMIN];
  c.organizations.other!.adminKeys = ['admother.x'];
  const shop = c.organizations.acme!.projects.shop!;
  shop.feeds = [{ id: 1, strategy: 'popular' }];
  shop.metrics = [{ name: 'orders', event: 'Product ordered', type: 'count' }];
  shop.experiences = [
    { name: 'welcome-note', body: { text: 'Hello again' } },
    { name: 'hero', variations: [{ name: 'control', weight: 50, body: { t: 'a' } }, { name: 'bold', weight: 50, body: { t: 'b' } }] },
    { name: 'recs', feed: 1, limit: 2 },
  ];
  return c;
}

const HERO_V2 = { name: 'hero', variations: [{ name: 'control', weight: 20, body: { t: 'a' } }, { name: 'bold', weight: 80, body: { t: 'B' } }] };

type Inject = (o: { method: string; url: string; headers?: Record<string, string>; payload?: unknown }) => Promise<{
  statusCode: number; headers: Record<string, unknown>; json(): any; body: string;
}>;

function client(app: () => FastifyInstance, key = ADMIN) {
  const inject = (method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) =>
    (app().inject as unknown as Inject)({
      method, url: `${BASE}${url}`, headers: { authorization: `Bearer ${key}`, ...headers }, ...(payload !== undefined ? { payload } : {}),
    });
  return {
    get: (url: string) => inject('GET', url),
    put: (url: string, body: unknown, headers?: Record<string, string>) => inject('PUT', url, body, headers),
    del: (url: string, headers?: Record<string, string>) => inject('DELETE', url, undefined, headers),
  };
}

/** The experiences the Choose API serves to one profile, by name. */
async function served(app: FastifyInstance, profileId: string, names: string[]): Promise<Record<string, unknown>> {
  const res = await app.inject({
    method: 'POST', url: `${BASE}/optimization/choose-api?apiKey=srv1.s3cret`,
    payload: { identification: { sourceId: 'web', profileId }, names },
  });
  assert.equal(res.statusCode, 200, res.body);
  return Object.fromEntries((res.json().choices as { name: string }[]).map((c) => [c.name, c]));
}

for (const driver of DRIVERS) {
  describe(`management API (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    const api = client(() => h.app);

    it('takes admin keys only: 401 without a key, 403 admin_key_required for apiKeys and writeKeys, 403 for another organization', async () => {
      const none = await h.app.inject({ method: 'GET', url: `${BASE}/experiences` });
      assert.equal(none.statusCode, 401);
      const wrong = await client(() => h.app, 'adm1.nope').get('/experiences');
      assert.equal(wrong.statusCode, 401);
      for (const headers of [{ authorization: 'Bearer srv1.s3cret' }, { authorization: basic('web1.p4ss') }]) {
        const res = await h.app.inject({ method: 'GET', url: `${BASE}/experiences`, headers });
        assert.equal(res.statusCode, 403);
        assert.equal(res.json().error.code, 'admin_key_required');
      }
      const byQuery = await h.app.inject({ method: 'GET', url: `${BASE}/experiences?apiKey=srv1.s3cret` });
      assert.equal(byQuery.json().error.code, 'admin_key_required');
      const other = await client(() => h.app, 'admother.x').get('/experiences');
      assert.equal(other.statusCode, 403);
      assert.equal(other.json().error.code, 'key_not_for_project');
      const ok = await h.app.inject({ method: 'GET', url: `${BASE}/metrics?apiKey=${ADMIN}` });
      assert.equal(ok.statusCode, 200);
      const unknown = await h.app.inject({ method: 'GET', url: `/v1/acme/projects/nope/experiences?apiKey=${ADMIN}` });
      assert.equal(unknown.statusCode, 404);
    });

    it('lists and reads the file\'s items at version 1, with an ETag', async () => {
      const list = await api.get('/experiences');
      assert.equal(list.statusCode, 200);
      assert.deepEqual(list.json().experiences.map((e: any) => [e.name, e.version, e.status, e.source]), [
        ['welcome-note', 1, 'running', 'file'], ['hero', 1, 'running', 'file'], ['recs', 1, 'running', 'file'],
      ]);
      const hero = await api.get('/experiences/hero');
      assert.equal(hero.headers.etag, '"1"');
      assert.deepEqual(hero.json().variations, config().organizations.acme!.projects.shop!.experiences![1]!.variations);
      assert.deepEqual((await api.get('/metrics')).json().metrics, [{ name: 'orders', event: 'Product ordered', type: 'count', version: 1, source: 'file' }]);
      assert.deepEqual((await api.get('/feeds/1')).json(), { id: 1, strategy: 'popular', version: 1, source: 'file' });
      const missing = await api.get('/experiences/nope');
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error.code, 'experience_not_found');
      assert.equal((await api.get('/metrics/nope')).json().error.code, 'metric_not_found');
      assert.equal((await api.get('/feeds/9')).json().error.code, 'feed_not_found');
    });

    it('refuses an invalid item with invalid_config naming the field, and stores nothing', async () => {
      const cases: [string, unknown, string][] = [
        ['/experiences/hero', { variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 40, body: {} }] }, 'experience.variations: weights must sum to 100'],
        ['/experiences/hero', { ...HERO_V2, name: 'other' }, 'experience.name: must be the name in the path ("hero")'],
        ['/experiences/x', { feed: 7 }, 'experience.feed: no feed with id 7 in feeds'],
        ['/experiences/x', { body: {}, status: 'paused' }, 'experience.status: must be one of draft, running, stopped'],
        ['/experiences/hero', { ...HERO_V2, status: 'stopped', winner: 'nobody' }, 'experience.winner: must name one of the variations, not "nobody"'],
        ['/experiences/hero', { ...HERO_V2, winner: 'bold' }, 'experience.winner: is only allowed with "status": "stopped"'],
        ['/metrics/m', { event: 'x', type: 'sum' }, 'metric.value: must be a non-empty string'],
        ['/feeds/abc', { strategy: 'popular' }, 'feed.id: the id in the path must be a positive integer, not "abc"'],
        ['/feeds/2', { strategy: 'newest' }, 'feed.strategy: must be one of popular, viewed-together, bought-together, recently-viewed, personalized'],
        ['/experiences/x', [1, 2], 'experience: the body must be one experience as a JSON object'],
        // What parses and still breaks storing or serving: U+0000 in a name, nesting past the stack.
        ['/experiences/a%00b', { body: {} }, 'experience.name: must not contain U+0000'],
        ['/metrics/a%00b', { event: 'x', type: 'count' }, 'metric.name: must not contain U+0000'],
        // A re-randomised hero's assignments are stored as hero#1: no experience may take that name.
        ['/experiences/hero%231', { body: {} }, 'experience.name: must not contain "#", which names a re-randomisation\'s assignments'],
        // (as JSON text: the test's own JSON.stringify would overflow on the first)
        ['/experiences/x', `{"body":{"x":${'['.repeat(5000)}${']'.repeat(5000)}}}`, `experience.body.x${'[0]'.repeat(30)}: must not nest deeper than 32 levels`],
      ];
      for (const [url, body, message] of cases) {
        const res = await api.put(url, body, typeof body === 'string' ? { 'content-type': 'application/json' } : {});
        assert.equal(res.statusCode, 400, `${url} ${JSON.stringify(body).slice(0, 200)}: ${res.body}`);
        assert.deepEqual(res.json(), { error: { code: 'invalid_config', message } });
      }
      assert.equal((await api.get('/experiences/hero')).json().version, 1);
      assert.equal((await api.get('/experiences/x')).statusCode, 404);
      assert.equal((await api.get('/experiences/hero%231')).statusCode, 404);
      assert.deepEqual((await api.get('/audit')).json().entries, []);
    });

    it('replaces a file item (If-Match), serves it at once, and refuses a stale If-Match with 412', async () => {
      const res = await api.put('/experiences/hero', HERO_V2, { 'if-match': '"1"' });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers.etag, '"2"');
      assert.deepEqual(res.json(), { ...HERO_V2, version: 2, source: 'api', status: 'running' });
      const list = (await api.get('/experiences')).json().experiences.map((e: any) => [e.name, e.version, e.source]);
      assert.deepEqual(list, [['welcome-note', 1, 'file'], ['hero', 2, 'api'], ['recs', 1, 'file']]);
      const stale = await api.put('/experiences/hero', { ...HERO_V2, traffic: 50 }, { 'if-match': '"1"' });
      assert.equal(stale.statusCode, 412);
      assert.equal(stale.json().error.code, 'version_conflict');
      assert.equal((await api.get('/experiences/hero')).json().traffic, undefined, 'the refused write changed nothing');
      // The new bodies are what the Choose API serves now.
      const choice = (await served(h.app, 'p-1', ['hero'])).hero as { variation: string; body: { t: string } };
      assert.equal(choice.body.t, choice.variation === 'bold' ? 'B' : 'a');
    });

    it('creates an item (201) that the Choose API serves, and deletes it (204): it is gone from lists, reads and answers', async () => {
      const created = await api.put('/experiences/banner', { body: { text: 'Autumn sale' }, group: 'homepage' });
      assert.equal(created.statusCode, 201, created.body);
      assert.deepEqual(created.json(), { name: 'banner', body: { text: 'Autumn sale' }, group: 'homepage', version: 1, source: 'api', status: 'running' });
      assert.deepEqual((await served(h.app, 'p-2', ['banner'])).banner, { name: 'banner', group: 'homepage', body: { text: 'Autumn sale' } });
      const createOnly = await api.put('/experiences/banner', { body: { text: 'Other' } }, { 'if-none-match': '*' });
      assert.equal(createOnly.statusCode, 412, 'If-None-Match: * creates only');
      assert.equal(createOnly.json().error.code, 'version_conflict');
      assert.equal((await api.put('/experiences/fresh', { body: {} }, { 'if-none-match': '*' })).statusCode, 201);
      assert.equal((await api.del('/experiences/fresh')).statusCode, 204);
      assert.equal((await api.del('/experiences/banner', { 'if-match': '"7"' })).statusCode, 412);
      assert.equal((await api.del('/experiences/banner')).statusCode, 204);
      assert.equal((await api.get('/experiences/banner')).statusCode, 404);
      assert.equal((await api.del('/experiences/banner')).statusCode, 404);
      assert.deepEqual(await served(h.app, 'p-2', ['banner']), {});
      // A file item deleted through the API is hidden too, and may be created again (version after the delete's).
      assert.equal((await api.del('/experiences/welcome-note')).statusCode, 204);
      assert.deepEqual(await served(h.app, 'p-2', ['welcome-note']), {});
      assert.equal((await api.get('/experiences')).json().experiences.some((e: any) => e.name === 'welcome-note'), false);
      const again = await api.put('/experiences/welcome-note', { body: { text: 'Back' } });
      assert.equal(again.statusCode, 201);
      assert.equal(again.json().version, 3);
    });

    it('changing weights moves nobody already assigned; new visitors get the new split', async () => {
      const split = (control: number) => ({
        variations: [{ name: 'control', weight: control, body: { t: 'c' } }, { name: 'bold', weight: 100 - control, body: { t: 'b' } }],
      });
      assert.equal((await api.put('/experiences/sticky', split(50))).statusCode, 201);
      const before = new Map<string, string>();
      for (let i = 0; i < 30; i++) before.set(`s-${i}`, ((await served(h.app, `s-${i}`, ['sticky'])).sticky as { variation: string }).variation);
      assert.ok([...before.values()].includes('bold') && [...before.values()].includes('control'), 'both variations were assigned');
      assert.equal((await api.put('/experiences/sticky', split(100))).statusCode, 200);
      for (const [profile, variation] of before) {
        assert.equal(((await served(h.app, profile, ['sticky'])).sticky as { variation: string }).variation, variation, profile);
      }
      for (let i = 0; i < 10; i++) assert.equal(((await served(h.app, `new-${i}`, ['sticky'])).sticky as { variation: string }).variation, 'control');
    });

    it('stopping an experiment stops serving it; a winner is served to everyone', async () => {
      const stopped = await api.put('/experiences/hero', { ...HERO_V2, status: 'stopped' });
      assert.equal(stopped.json().status, 'stopped');
      assert.deepEqual(await served(h.app, 'p-3', ['hero']), {});
      const shipped = await api.put('/experiences/hero', { ...HERO_V2, status: 'stopped', winner: 'bold' });
      assert.equal(shipped.statusCode, 200);
      for (const profile of ['p-3', 'p-4', 'p-5']) {
        const hero = (await served(h.app, profile, ['hero'])).hero as { variation: string; body: unknown };
        assert.equal(hero.variation, 'bold');
        assert.deepEqual(hero.body, { t: 'B' });
      }
    });

    it('metrics and feeds: create, replace, delete; a feed an experience uses cannot be deleted (409)', async () => {
      const metric = await api.put('/metrics/revenue', { event: 'Product ordered', type: 'sum', value: 'price' });
      assert.equal(metric.statusCode, 201);
      assert.deepEqual((await api.get('/metrics')).json().metrics.map((m: any) => [m.name, m.source]), [['orders', 'file'], ['revenue', 'api']]);
      assert.equal((await api.del('/metrics/orders')).statusCode, 204);
      assert.deepEqual((await api.get('/metrics')).json().metrics.map((m: any) => m.name), ['revenue']);
      const feed = await api.put('/feeds/2', { strategy: 'viewed-together' });
      assert.equal(feed.statusCode, 201);
      assert.deepEqual(feed.json(), { id: 2, strategy: 'viewed-together', version: 1, source: 'api' });
      // The new feed answers at once on the feed endpoint (a browser's writeKey).
      const data = await h.app.inject({
        method: 'POST', url: `${BASE}/feeds/2/data`, headers: { authorization: basic('web1.p4ss') },
        payload: { profileId: 'p-1', sourceId: 'web', limit: 2, fields: ['title'], productId: 'p1' },
      });
      assert.equal(data.statusCode, 200, data.body);
      assert.ok(Array.isArray(data.json().products));
      assert.equal((await h.app.inject({ method: 'POST', url: `${BASE}/feeds/9/data`, headers: { authorization: basic('web1.p4ss') }, payload: { profileId: 'p-1', sourceId: 'web', limit: 2, fields: ['title'] } })).statusCode, 404);
      const inUse = await api.del('/feeds/1');
      assert.equal(inUse.statusCode, 409);
      assert.equal(inUse.json().error.code, 'item_in_use');
      assert.equal((await api.put('/experiences/recs', { feed: 2, limit: 2 })).statusCode, 200);
      assert.equal((await api.del('/feeds/1')).statusCode, 204);
      assert.deepEqual((await api.get('/feeds')).json().feeds.map((f: any) => f.id), [2]);
    });

    it('records every write in the audit log, newest first, with the key id and both sides', async () => {
      const res = await api.get('/audit?limit=3');
      assert.equal(res.statusCode, 200);
      const entries = res.json().entries as any[];
      assert.deepEqual(entries.map((e) => [e.action, e.kind, e.name]), [['delete', 'feed', '1'], ['update', 'experience', 'recs'], ['create', 'feed', '2']]);
      for (const e of entries) {
        assert.equal(e.keyId, 'adm1');
        assert.ok(!JSON.stringify(e).includes('s3cret'), 'never the secret');
        assert.ok(!Number.isNaN(Date.parse(e.at)));
      }
      assert.deepEqual(entries[0].before, { id: 1, strategy: 'popular' });
      assert.equal(entries[0].after, null);
      assert.deepEqual(entries[1].before, { name: 'recs', feed: 1, limit: 2 });
      assert.deepEqual(entries[1].after, { name: 'recs', feed: 2, limit: 2 });
      const all = (await api.get('/audit')).json().entries as any[];
      assert.ok(all.length > 10);
      assert.deepEqual(all.at(-1)!.before, config().organizations.acme!.projects.shop!.experiences![1], 'the first write replaced the file\'s hero');
      assert.equal((await api.get('/audit?limit=0')).json().error.code, 'invalid_request');
    });

    it('concurrent writes are serialized: one If-Match or create-only write wins, the others get 412', async () => {
      const codes = async (writes: Promise<{ statusCode: number }>[]) => (await Promise.all(writes)).map((r) => r.statusCode).sort();
      const metric = (n: number) => ({ name: 'visits', event: 'Product viewed', type: 'count', windowHours: n });
      assert.equal((await api.put('/metrics/visits', metric(24))).statusCode, 201);
      assert.deepEqual(await codes([1, 2, 3].map((n) => api.put('/metrics/visits', metric(n), { 'if-match': '"1"' }))), [200, 412, 412]);
      assert.equal((await api.get('/metrics/visits')).json().version, 2);
      const flag = (n: number) => ({ body: { n } });
      assert.deepEqual(await codes([1, 2, 3].map((n) => api.put('/experiences/once', flag(n), { 'if-none-match': '*' }))), [201, 412, 412]);
      assert.equal((await api.get('/experiences/once')).json().version, 1);
    });

    it('an experience naming a feed and that feed\'s deletion, at once: one is refused and the config stays valid', async () => {
      assert.equal((await api.put('/feeds/7', { strategy: 'popular' })).statusCode, 201);
      const [put, del] = await Promise.all([api.put('/experiences/uses7', { feed: 7, limit: 2 }), api.del('/feeds/7')]);
      const outcome = [put.statusCode, del.statusCode];
      assert.ok(
        (put.statusCode === 201 && del.statusCode === 409 && del.json().error.code === 'item_in_use')
          || (del.statusCode === 204 && put.statusCode === 400 && put.json().error.code === 'invalid_config'),
        `PUT ${put.body} / DELETE ${del.body}`,
      );
      // What is stored loads: a node starting on this database serves it.
      const app = await h.restart(config());
      const health = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(health.statusCode, 200, health.body);
      assert.equal(health.json().config, undefined, health.body);
      const uses7 = await client(() => app).get('/experiences/uses7');
      assert.equal(uses7.statusCode, outcome[0] === 201 ? 200 : 404);
    });

    it('items written through the API survive a restart and win over the file', async () => {
      const app = await h.restart(config());
      const hero = (await client(() => app).get('/experiences/hero')).json();
      assert.equal(hero.source, 'api');
      assert.equal(hero.winner, 'bold');
      assert.equal(((await served(app, 'p-9', ['hero'])).hero as { variation: string }).variation, 'bold');
    });
  });

  describe(`two service instances on one database (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    let other: Storage;
    let second: FastifyInstance;
    before(async () => {
      other = await h.db.open();
      second = await buildApp({ config: config(), storage: other });
    });
    after(async () => {
      await second.close();
      await other.close();
    });

    it('a write through one is served by the other without a restart', async () => {
      assert.deepEqual(await served(second, 'p-1', ['flash']), {});
      const res = await client(() => h.app).put('/experiences/flash', { body: { text: 'Flash sale' } });
      assert.equal(res.statusCode, 201);
      // The other node polls every 250 ms (PostgreSQL also wakes it by NOTIFY): wait for it, boundedly.
      let choice: unknown;
      for (let i = 0; i < 100 && choice === undefined; i++) {
        choice = (await served(second, 'p-1', ['flash'])).flash;
        if (choice === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(choice, { name: 'flash', body: { text: 'Flash sale' } });
      const read = await client(() => second).get('/experiences/flash');
      assert.equal(read.json().version, 1);
      assert.equal(read.json().source, 'api');
    });
  });
}

describe('PostgreSQL nodes wake on NOTIFY, not only by polling', () => {
  const h = useApp(POSTGRES_DRIVER, { config: config() });
  let other: Storage;
  let deaf: FastifyInstance;
  before(async () => {
    other = await h.db.open();
    // Polling once an hour: only the NOTIFY can bring this node the change in time.
    deaf = await buildApp({ config: config(), storage: other, configPollMs: 3_600_000 });
  });
  after(async () => {
    await deaf.close();
    await other.close();
  });

  it('a write through one node reaches a node that does not poll', async () => {
    assert.equal((await client(() => h.app).put('/experiences/notified', { body: { text: 'By NOTIFY' } })).statusCode, 201);
    let choice: unknown;
    for (let i = 0; i < 100 && choice === undefined; i++) {
      choice = (await served(deaf, 'p-1', ['notified'])).notified;
      if (choice === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(choice, { name: 'notified', body: { text: 'By NOTIFY' } });
  });
});

describe('a node that cannot read its database', () => {
  const h = useApp(DRIVERS[0]!, { config: config() });
  let failing = false;
  let app: FastifyInstance;
  before(async () => {
    const real = h.storage;
    // The same storage, whose reads and pings fail while `failing` is set (the database gone away).
    const flaky = Object.create(real) as Storage;
    Object.assign(flaky, {
      run: (make: Parameters<Storage['run']>[0]) => (failing ? Promise.reject(new Error('connection refused')) : real.run(make)),
      ping: () => (failing ? Promise.reject(new Error('connection refused')) : real.ping()),
      transaction: real.transaction.bind(real),
      migrate: real.migrate.bind(real),
      close: async () => undefined,
    });
    app = await buildApp({ config: config(), storage: flaky });
  });
  after(() => app.close());

  it('keeps serving its last good config and says so in /healthz, until the database is back', async () => {
    assert.equal((await client(() => h.app).put('/experiences/banner', { body: { text: 'Kept' } })).statusCode, 201);
    await app.svc.managed.refresh();
    failing = true;
    await app.svc.managed.refresh();
    const health = await app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 503);
    assert.equal(health.json().config.stale.error, 'connection refused');
    assert.ok(health.json().config.revision >= 1);
    // What it serves is what it last read: the API's item (the Choose API itself needs the database for profiles).
    const kept = await client(() => app).get('/experiences/banner');
    assert.equal(kept.statusCode, 200);
    assert.deepEqual(kept.json().body, { text: 'Kept' });
    failing = false;
    await app.svc.managed.refresh();
    const back = (await app.inject({ method: 'GET', url: '/healthz' })).json();
    assert.deepEqual(back, { ok: true, storage: 'sqlite' });
  });
});
