// Keys, CORS and rate limits (SQLite: nothing here depends on the driver).
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { describe, it, mock } from 'node:test';
import type { RouteModule } from '../../../server/app.js';
import { secretsEqual } from '../../../server/auth/secrets-equal.js';
import { projectEndpoint, type ProjectParams } from '../../../server/http/project-endpoint.js';
import { makeEvent } from '../helpers/events.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

// A route shaped like the Choose API (apiKey or writeKey) to exercise the reusable auth and rate-limit helpers.
const echoRoute: RouteModule = (app, ctx) => {
  app.post<{ Params: ProjectParams }>('/v1/:org/projects/:project/optimization/echo', {
    onRequest: projectEndpoint(app, ctx.config, { allowApiKey: true }),
  }, async (request) => ({ kind: request.auth?.kind, project: request.auth?.project.key }));
};

describe('security', () => {
  // A pinned clock: token buckets do not refill during the test, so the counts below are exact.
  const h = useApp(SQLITE_DRIVER, () => {
    const now = Date.now();
    return { routes: [echoRoute], now: () => now };
  });

  it('compares secrets in constant time through crypto.timingSafeEqual, for any lengths', async () => {
    const spy = mock.method(crypto, 'timingSafeEqual');
    try {
      assert.equal(secretsEqual('web1.p4ss', 'web1.p4ss'), true);
      assert.equal(secretsEqual('web1.p4s', 'web1.p4ss'), false);
      assert.equal(secretsEqual('', 'web1.p4ss'), false);
      assert.equal(spy.mock.callCount(), 3);
      // A request's key check goes through it too, also for an unknown key id.
      await h.app.inject({ method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers: { authorization: basic('zzz.p4ss') }, payload: { batch: [makeEvent()] } });
      assert.equal(spy.mock.callCount(), 4);
    } finally {
      spy.mock.restore();
    }
  });

  it('the auth helper accepts ?apiKey= and Basic writeKey where allowed, and reports the kind', async () => {
    const url = '/v1/acme/projects/shop/optimization/echo';
    const api = await h.app.inject({ method: 'POST', url: `${url}?apiKey=srv1.s3cret`, payload: {} });
    assert.deepEqual(api.json(), { kind: 'apiKey', project: 'acme/shop' });
    const write = await h.app.inject({ method: 'POST', url, headers: { authorization: basic('web1.p4ss') }, payload: {} });
    assert.deepEqual(write.json(), { kind: 'writeKey', project: 'acme/shop' });
    const wrong = await h.app.inject({ method: 'POST', url: `${url}?apiKey=srv1.nope`, payload: {} });
    assert.equal(wrong.statusCode, 401);
    const writeAsApi = await h.app.inject({ method: 'POST', url: `${url}?apiKey=web1.p4ss`, payload: {} });
    assert.equal(writeAsApi.statusCode, 401);
    const other = await h.app.inject({ method: 'POST', url: '/v1/acme/projects/blog/optimization/echo?apiKey=srv1.s3cret', payload: {} });
    assert.equal(other.statusCode, 403);
    assert.equal(other.json().error.code, 'key_not_for_project');
  });

  it('answers a CORS preflight allowing Authorization and Content-Type, cacheable, any origin by default', async () => {
    const res = await h.app.inject({
      method: 'OPTIONS', url: '/v1/acme/projects/shop/sources/web/track',
      headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
    });
    assert.equal(res.statusCode, 204);
    assert.equal(res.headers['access-control-allow-origin'], 'https://anywhere.example');
    assert.match(String(res.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(res.headers['access-control-allow-headers']), /Content-Type/);
    assert.match(String(res.headers['access-control-allow-methods']), /POST/);
    // The management API from an admin page on another origin: PUT/DELETE with If-Match, and its ETag readable.
    assert.match(String(res.headers['access-control-allow-methods']), /PUT, DELETE/);
    assert.match(String(res.headers['access-control-allow-headers']), /If-Match, If-None-Match/);
    assert.ok(Number(res.headers['access-control-max-age']) > 0);
  });

  it('reflects the origin on actual requests', async () => {
    const res = await h.app.inject({
      method: 'POST', url: '/v1/acme/projects/shop/sources/web/track',
      headers: { origin: 'https://anywhere.example', authorization: basic('web1.p4ss') }, payload: { batch: [makeEvent()] },
    });
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['access-control-allow-origin'], 'https://anywhere.example');
    assert.equal(res.headers['access-control-expose-headers'], 'ETag, Retry-After');
  });

  it('with allowedOrigins: allows the listed origin, refuses others (no CORS header, 403 on requests)', async () => {
    const url = '/v1/acme/projects/tight/sources/web/track';
    const pre = (origin: string) => h.app.inject({ method: 'OPTIONS', url, headers: { origin, 'access-control-request-method': 'POST' } });
    assert.equal((await pre('https://shop.example.com')).headers['access-control-allow-origin'], 'https://shop.example.com');
    assert.equal((await pre('https://evil.example')).headers['access-control-allow-origin'], undefined);
    const denied = await h.app.inject({
      method: 'POST', url, headers: { origin: 'https://evil.example', authorization: basic('webtight.b') }, payload: { batch: [makeEvent()] },
    });
    assert.equal(denied.statusCode, 403);
    assert.equal(denied.json().error.code, 'origin_not_allowed');
  });

  it('rate limits browser callers per (writeKey, IP) with a token bucket: 429 with Retry-After once the burst is spent', async () => {
    // Project `tight`: writeKeyPerSecond 1 → a bucket of 2.
    const url = '/v1/acme/projects/tight/sources/web/track';
    const send = (ip: string) => h.app.inject({
      method: 'POST', url, remoteAddress: ip, headers: { authorization: basic('webtight.b') }, payload: { batch: [makeEvent()] },
    });
    assert.equal((await send('10.0.0.1')).statusCode, 200);
    assert.equal((await send('10.0.0.1')).statusCode, 200);
    const limited = await send('10.0.0.1');
    assert.equal(limited.statusCode, 429);
    assert.equal(limited.headers['retry-after'], '1');
    assert.equal(limited.json().error.code, 'rate_limited');
    // Another client IP has its own bucket.
    assert.equal((await send('10.0.0.2')).statusCode, 200);
  });

  it('apiKey callers are limited only when the project sets apiKeyPerSecond', async () => {
    const statuses = async (project: string, key: string): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < 4; i++) {
        out.push((await h.app.inject({ method: 'POST', url: `/v1/acme/projects/${project}/optimization/echo?apiKey=${key}`, payload: {} })).statusCode);
      }
      return out;
    };
    assert.deepEqual(await statuses('tight', 'srvtight.a'), [200, 200, 429, 429]);
    const unlimited: number[] = [];
    for (let i = 0; i < 150; i++) {
      unlimited.push((await h.app.inject({ method: 'POST', url: '/v1/acme/projects/shop/optimization/echo?apiKey=srv1.s3cret', payload: {} })).statusCode);
    }
    assert.ok(unlimited.every((s) => s === 200));
  });

  it('a wrong apiKey secret spends its own budget (per client IP), never the real key\'s', async () => {
    // Project `tight`: apiKeyPerSecond 1 → a bucket of 2 (its second apiKey, whose budget no other test spends).
    const send = (key: string, ip: string) => h.app.inject({
      method: 'POST', url: `/v1/acme/projects/tight/optimization/echo?apiKey=${key}`, remoteAddress: ip, payload: {},
    });
    const guesses: number[] = [];
    for (let i = 0; i < 4; i++) guesses.push((await send('srvtight2.WRONG', '203.0.113.9')).statusCode);
    assert.deepEqual(guesses, [401, 401, 429, 429]);
    assert.equal((await send('srvtight2.c', '198.51.100.7')).statusCode, 200);
    assert.equal((await send('srvtight2.c', '203.0.113.9')).statusCode, 200, 'nor the real key\'s from the same address');
  });

  it('browser callers get the default burst of 100, then 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 101; i++) {
      const res = await h.app.inject({
        method: 'POST', url: '/v1/acme/projects/shop/consents/data', remoteAddress: '10.9.9.9',
        headers: { authorization: basic('web1.p4ss') }, payload: { profileId: 'rl', action: 'accept', validUntil: Date.now() + 1e6 },
      });
      statuses.push(res.statusCode);
    }
    assert.ok(statuses.slice(0, 100).every((s) => s === 200));
    assert.equal(statuses[100], 429);
  });
});

describe('behind a load balancer (trustProxy: 1)', () => {
  const h = useApp(SQLITE_DRIVER, () => {
    const now = Date.now();
    return { routes: [echoRoute], now: () => now, trustProxy: 1 };
  });

  it('takes the client IP the balancer saw, not an X-Forwarded-For entry the client wrote', async () => {
    // Project `tight`: writeKeyPerSecond 1 → a bucket of 2 per client IP.
    const send = (forwardedFor: string) => h.app.inject({
      method: 'POST', url: '/v1/acme/projects/tight/sources/web/track', remoteAddress: '10.0.0.2',
      headers: { authorization: basic('webtight.b'), 'x-forwarded-for': forwardedFor }, payload: { batch: [makeEvent()] },
    });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await send(`192.0.2.${i}, 203.0.113.7`)).statusCode);
    assert.deepEqual(statuses, [200, 200, 429, 429], 'a made-up leftmost address buys no new bucket');
    assert.equal((await send('203.0.113.8')).statusCode, 200, 'another client has its own bucket');
  });
});
