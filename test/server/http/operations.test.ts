// Health, metrics, static files, config swap and graceful shutdown, over inject and a real socket.
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildApp, type RouteModule } from '../../../server/app.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const TRACK = '/v1/acme/projects/shop/sources/web/track';

for (const driver of DRIVERS) {
  describe(`operations (${driver.name})`, () => {
    const h = useApp(driver);

    it('GET /healthz answers 200 with the storage dialect', async () => {
      const res = await h.app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { ok: true, storage: driver.name });
    });

    it('GET /metrics counts requests by route and status, events ingested and duplicates, per app', async () => {
      const batch = [makeEvent(), makeEvent()];
      await h.app.inject({ method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch } });
      await h.app.inject({ method: 'POST', url: TRACK, headers: { authorization: basic('web1.p4ss') }, payload: { batch } });
      await h.app.inject({ method: 'POST', url: TRACK, payload: { batch } });
      await h.app.inject({ method: 'GET', url: '/no/such/route' });
      const res = await h.app.inject({ method: 'GET', url: '/metrics' });
      assert.equal(res.statusCode, 200);
      assert.match(String(res.headers['content-type']), /^text\/plain/);
      const text = res.body;
      assert.match(text, /svc_http_requests_total\{method="POST",route="\/v1\/:org\/projects\/:project\/sources\/:sourceId\/track",status="200"\} 2/);
      assert.match(text, /svc_http_requests_total\{[^}]*status="401"\} 1/);
      // Counted once each: by its route's own hook, or as unmatched by the global one.
      assert.match(text, /svc_http_requests_total\{method="GET",route="unmatched",status="404"\} 1\n/);
      assert.match(text, /svc_http_requests_total\{method="POST",route="\/v1\/:org\/projects\/:project\/sources\/:sourceId\/track",status="200"\} 2\n/);
      assert.match(text, /svc_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1\n/);
      assert.match(text, /# TYPE svc_http_requests_total counter\n/);
      assert.match(text, /# TYPE svc_http_request_duration_seconds histogram\n/);
      // The histogram of the two 200 track requests: cumulative buckets ending in +Inf = count = 2, and a sum.
      const trackLabels = 'method="POST",route="/v1/:org/projects/:project/sources/:sourceId/track",status="200"';
      const series = (suffix: string) => text.split('\n').filter((l) => l.startsWith(`svc_http_request_duration_seconds_${suffix}{`) && l.includes(trackLabels));
      const buckets = series('bucket').map((l) => Number(l.slice(l.lastIndexOf(' ') + 1)));
      assert.equal(buckets.length, 12);
      assert.deepEqual([...buckets].sort((x, y) => x - y), buckets, 'buckets are cumulative');
      assert.match(series('bucket').at(-1) ?? '', /le="\+Inf"\} 2$/);
      assert.match(series('bucket')[0] ?? '', /le="0.001"/);
      assert.match(series('count')[0] ?? '', / 2$/);
      assert.ok(Number((series('sum')[0] ?? '').split(' ').at(-1)) > 0);
      assert.match(text, /svc_events_ingested_total\{project="acme\/shop"\} 2/);
      assert.match(text, /svc_event_duplicates_total\{project="acme\/shop"\} 2/);
      const consent = { profileId: 'p-metrics', action: 'accept', validUntil: Date.now() + 86_400_000, eventId: '0b1f3a9e-7c2d-4e5f-8a6b-9c0d1e2f3a4b' };
      for (let i = 0; i < 2; i++) {
        const stored = await h.app.inject({ method: 'POST', url: '/v1/acme/projects/shop/consents/data', headers: { authorization: basic('web1.p4ss') }, payload: consent });
        assert.equal(stored.statusCode, 200, stored.body);
      }
      assert.match((await h.app.inject({ method: 'GET', url: '/metrics' })).body, /svc_consents_recorded_total\{project="acme\/shop"\} 1\n/, 'a resent consent counts once');
      // A second app in the same process has its own registry (no "already registered" clash, own counts).
      const second = await buildApp({ config: testConfig(), storage: h.storage });
      try {
        const fresh = await second.inject({ method: 'GET', url: '/metrics' });
        assert.doesNotMatch(fresh.body, /svc_events_ingested_total\{project="acme\/shop"\} 2/);
      } finally {
        await second.close();
      }
    });

    it('serves a swapped config at once (what SIGHUP does): a new key works on the next request', async () => {
      const local = await buildApp({ config: testConfig(), storage: h.storage });
      try {
        const send = () => local.inject({ method: 'POST', url: TRACK, headers: { authorization: basic('web9.new') }, payload: { batch: [makeEvent()] } });
        assert.equal((await send()).statusCode, 401);
        const next = testConfig();
        next.organizations.acme!.projects.shop!.writeKeys.push('web9.new');
        local.svc.config.replace(next);
        assert.equal((await send()).statusCode, 200);
      } finally {
        await local.close();
      }
    });

    it('finishes an in-flight request on close (graceful shutdown), then refuses new connections', async () => {
      let release: () => void = () => undefined;
      const gate = new Promise<void>((resolve) => { release = resolve; });
      let entered: () => void = () => undefined;
      const inside = new Promise<void>((resolve) => { entered = resolve; });
      const slow: RouteModule = (a) => {
        a.get('/slow', async () => {
          entered();
          await gate;
          return { done: true };
        });
      };
      const live = await buildApp({ config: testConfig(), storage: h.storage, routes: [slow] });
      const address = await live.listen({ port: 0, host: '127.0.0.1' });
      const pending = fetch(`${address}/slow`);
      await inside;
      const closing = live.close();
      release();
      const res = await pending;
      assert.equal(res.status, 200);
      assert.deepEqual(await res.json(), { done: true });
      await closing;
      await assert.rejects(fetch(`${address}/healthz`));
    });
  });
}

// Every bundle of the service the build writes (its entry points, and their source maps): none is for browsers.
const SERVICE_BUNDLES = [...readFileSync(new URL('../../../esbuild.config.mjs', import.meta.url), 'utf8').matchAll(/'dist\/([\w-]+\.mjs)'/g)]
  .flatMap(([, bundle]) => [bundle!, `${bundle!}.map`]);

describe('static files', () => {
  const root = mkdtempSync(join(tmpdir(), 'svc-static-'));
  before(() => {
    mkdirSync(join(root, 'demo'));
    mkdirSync(join(root, 'dist'));
    writeFileSync(join(root, 'demo', 'index.html'), '<!doctype html><title>demo</title>');
    writeFileSync(join(root, 'dist', 'service.js'), 'window.x = 1;');
    for (const bundle of SERVICE_BUNDLES) writeFileSync(join(root, 'dist', bundle), 'secret();');
  });
  // Hooks run in the order they are registered: the files above are written before the app is built, and the
  // root is removed after the app, storage and database are closed.
  const h = useApp(DRIVERS[0]!, { staticRoot: root });
  after(() => rmSync(root, { recursive: true, force: true }));

  it('serves demo/ at / and dist/ at /svc/, but not the service bundles', async () => {
    const page = await h.app.inject({ method: 'GET', url: '/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<title>demo<\/title>/);
    const sdk = await h.app.inject({ method: 'GET', url: '/svc/service.js' });
    assert.equal(sdk.statusCode, 200);
    assert.match(String(sdk.headers['content-type']), /javascript/);
    // server.mjs, sqlite-thread.mjs and programs.mjs, each with its map: the test reads the build as it is.
    assert.ok(SERVICE_BUNDLES.length >= 6, SERVICE_BUNDLES.join());
    for (const bundle of SERVICE_BUNDLES) {
      const server = await h.app.inject({ method: 'GET', url: `/svc/${bundle}` });
      assert.equal(server.statusCode, 404, bundle);
      assert.equal(server.json().error.code, 'route_not_found');
    }
  });
});

describe('errors of a database that does not answer', () => {
  const h = useApp(DRIVERS[0]!, {
    routes: [(app) => {
      // What pg and better-sqlite3 throw when the database is down, locked or full, from a route as ingestion would.
      app.get('/fails/:code', async (request) => {
        const { code } = request.params as { code: string };
        throw Object.assign(new Error(code === 'none' ? 'Connection terminated unexpectedly' : `failed: ${code}`), code === 'none' ? {} : { code });
      });
    }],
  });

  it('answer 503 storage_unavailable with Retry-After, not 500, and any other failure stays 500', async () => {
    for (const code of ['ECONNREFUSED', '57P01', '08006', '53300', 'SQLITE_BUSY', 'SQLITE_IOERR_WRITE', 'SQLITE_FULL', 'none']) {
      const res = await h.app.inject({ method: 'GET', url: `/fails/${code}` });
      assert.equal(res.statusCode, 503, code);
      assert.equal(res.json().error.code, 'storage_unavailable', code);
      assert.equal(res.headers['retry-after'], '5', code);
    }
    for (const code of ['23505', 'SQLITE_CONSTRAINT', 'ERR_SOMETHING']) {
      const res = await h.app.inject({ method: 'GET', url: `/fails/${code}` });
      assert.equal(res.statusCode, 500, code);
      assert.equal(res.json().error.code, 'internal_error', code);
    }
  });
});

describe('graceful shutdown with keep-alive clients', () => {
  it('answers the request in flight, then closes its socket once idle: close does not wait for the idle deadline', async () => {
    const db = await DRIVERS[0]!.create();
    const storage = await db.open();
    const app = await buildApp({ config: testConfig(), storage });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const address = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
      const body = JSON.stringify({ batch: [makeEvent()] });
      const answered = new Promise<number>((resolve, reject) => {
        const request = http.request({
          host: address.hostname, port: address.port, method: 'POST', path: TRACK, agent,
          headers: { authorization: basic('web1.p4ss'), 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        request.on('error', reject);
        // The close begins once the server has the request, while its body is still coming.
        app.server.once('request', () => {
          closing = app.close();
          setTimeout(() => request.end(body.slice(10)), 50);
        });
        request.write(body.slice(0, 10));
      });
      let closing: Promise<void> | undefined;
      assert.equal(await answered, 200);
      // Without the sweep, the keep-alive socket held the close for 72 s; the test's own deadline is far below that.
      const outcome = await Promise.race([closing!.then(() => 'closed'), new Promise((resolve) => setTimeout(resolve, 20_000, 'still open').unref())]);
      assert.equal(outcome, 'closed');
    } finally {
      agent.destroy();
      await app.close();
      await storage.close();
      await db.destroy();
    }
  });
});

describe('health without storage', () => {
  it('GET /healthz answers 503 storage_unavailable when the database does not answer', async () => {
    const db = await DRIVERS[0]!.create();
    const storage = await db.open();
    const app = await buildApp({ config: testConfig(), storage });
    try {
      await storage.close();
      const res = await app.inject({ method: 'GET', url: '/healthz' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.json().error.code, 'storage_unavailable');
    } finally {
      await app.close();
      await db.destroy();
    }
  });
});
