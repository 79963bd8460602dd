// The track endpoint over app.inject() and a real socket, against SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';
import { resolveUser } from '../../../server/identity/identity-store.js';
import { getAccountAttributes, getProfileAttributes, listEvents } from '../helpers/stored-rows.js';

const TRACK = '/v1/acme/projects/shop/sources/web/track';
const AUTH = { authorization: basic('web1.p4ss') };

// Spec as data: each broken event and the message naming its index and field.
const INVALID_EVENTS: { name: string; event: (e: ServiceEvent) => unknown; message: string }[] = [
  { name: 'eventId not a UUID', event: (e) => ({ ...e, eventId: 'abc' }), message: 'batch[1].eventId: must be a UUID' },
  { name: 'eventId missing', event: (e) => ({ ...e, eventId: undefined }), message: 'batch[1].eventId: must be a UUID' },
  { name: 'unknown type', event: (e) => ({ ...e, type: 'click' }), message: 'batch[1].type: must be one of identify, alias, group, track, record, product, page, session, consent, logout' },
  { name: 'empty name', event: (e) => ({ ...e, name: '' }), message: 'batch[1].name: must be a non-empty string' },
  { name: 'profileId missing', event: (e) => ({ ...e, profileId: undefined }), message: 'batch[1].profileId: is required' },
  { name: 'sessionId a number', event: (e) => ({ ...e, sessionId: 5 }), message: 'batch[1].sessionId: must be a non-empty string' },
  { name: 'pageId too long', event: (e) => ({ ...e, pageId: 'x'.repeat(300) }), message: 'batch[1].pageId: must be at most 256 characters' },
  { name: 'timestamp not ISO', event: (e) => ({ ...e, timestamp: 'yesterday' }), message: 'batch[1].timestamp: must be an ISO 8601 date-time' },
  { name: 'timestamp a number', event: (e) => ({ ...e, timestamp: 1700000000000 }), message: 'batch[1].timestamp: must be an ISO 8601 date-time' },
  { name: 'data an array', event: (e) => ({ ...e, data: [1] }), message: 'batch[1].data: must be an object' },
  { name: 'data too large', event: (e) => ({ ...e, data: { big: 'x'.repeat(17000) } }), message: 'batch[1].data: must be at most 16384 bytes as JSON' },
  { name: 'identify without userId', event: (e) => ({ ...e, type: 'identify' }), message: 'batch[1].userId: is required for identify events' },
  { name: 'alias without anotherUserId', event: (e) => ({ ...e, type: 'alias', userId: 'u' }), message: 'batch[1].anotherUserId: is required for alias events' },
  { name: 'group without accountId', event: (e) => ({ ...e, type: 'group' }), message: 'batch[1].accountId: is required for group events' },
  { name: 'userAttributes a string', event: (e) => ({ ...e, userAttributes: 'x' }), message: 'batch[1].userAttributes: must be an object' },
  { name: 'event not an object', event: () => 'event', message: 'batch[1]: must be an object' },
];

for (const driver of DRIVERS) {
  describe(`track endpoint (${driver.name})`, () => {
    const h = useApp(driver);

    const post = (payload: unknown, headers: Record<string, string> = AUTH, url = TRACK) =>
      h.app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });

    it('accepts a batch and answers {accepted, duplicates}', async () => {
      const batch = [makeEvent({ profileId: 'tr-1' }), makeEvent({ profileId: 'tr-1' })];
      const res = await post({ batch });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { accepted: 2, duplicates: 0 });
      assert.equal((await listEvents(h.storage, 'acme/shop', { profileId: 'tr-1' })).length, 2);
    });

    it('is idempotent by eventId: a resend counts as duplicates', async () => {
      const batch = [makeEvent(), makeEvent()];
      await post({ batch });
      const res = await post({ batch: [...batch, makeEvent()] });
      assert.deepEqual(res.json(), { accepted: 1, duplicates: 2 });
    });

    it('treats an eventId resent in another letter case as the same event (UUIDs compare case-insensitively)', async () => {
      const event = makeEvent({ profileId: 'tr-case', eventId: '0193B2A4-6C1E-7A55-9A77-1F2E3D4C5B6A' });
      assert.deepEqual((await post({ batch: [event] })).json(), { accepted: 1, duplicates: 0 });
      assert.deepEqual((await post({ batch: [{ ...event, eventId: event.eventId.toLowerCase() }] })).json(), { accepted: 0, duplicates: 1 });
      const stored = await listEvents(h.storage, 'acme/shop', { profileId: 'tr-case' });
      assert.deepEqual(stored.map((s) => s.event.eventId), ['0193b2a4-6c1e-7a55-9a77-1f2e3d4c5b6a']);
    });

    it('takes text/plain bodies containing JSON (sendBeacon)', async () => {
      const res = await post(JSON.stringify({ batch: [makeEvent()] }), { ...AUTH, 'content-type': 'text/plain;charset=UTF-8' });
      assert.equal(res.statusCode, 200);
      assert.deepEqual(res.json(), { accepted: 1, duplicates: 0 });
    });

    for (const c of INVALID_EVENTS) {
      it(`refuses the whole batch when an event is invalid: ${c.name}`, async () => {
        const good = makeEvent({ profileId: 'never-stored' });
        const res = await post({ batch: [good, c.event(makeEvent({ profileId: 'never-stored' })), makeEvent()] });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { error: { code: 'invalid_event', message: c.message } });
        assert.equal((await listEvents(h.storage, 'acme/shop', { profileId: 'never-stored' })).length, 0);
      });
    }

    it('refuses bodies that are not {batch:[…]}, empty batches and batches over 500', async () => {
      for (const [payload, message] of [
        [{ events: [] }, 'The body must be an object {batch:[event…]}.'],
        [{ batch: [] }, 'batch: must contain at least one event'],
        [{ batch: Array.from({ length: 501 }, () => makeEvent()) }, 'batch: must contain at most 500 events'],
      ] as const) {
        const res = await post(payload);
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { error: { code: 'invalid_batch', message } });
      }
    });

    it('answers 400 invalid_json for broken JSON, as application/json and as text/plain', async () => {
      for (const type of ['application/json', 'text/plain']) {
        const res = await post('{"batch": [', { ...AUTH, 'content-type': type });
        assert.equal(res.statusCode, 400);
        assert.equal(res.json().error.code, 'invalid_json');
      }
    });

    it('answers 400 unsupported_media_type for other content types', async () => {
      const res = await post('<batch/>', { ...AUTH, 'content-type': 'application/xml' });
      assert.equal(res.statusCode, 400);
      assert.equal(res.json().error.code, 'unsupported_media_type');
    });

    it('answers 413 for a body over 1 MiB, as JSON', async () => {
      const res = await post(JSON.stringify({ batch: [], pad: 'x'.repeat(1024 * 1024) }), { ...AUTH, 'content-type': 'application/json' });
      assert.equal(res.statusCode, 413);
      assert.deepEqual(res.json(), { error: { code: 'payload_too_large', message: 'The request body is over the 1 MiB limit.' } });
    });

    // Order of checks: no key or a bad key → 401 before anything about the project is told.
    const AUTH_CASES: { name: string; url: string; headers: Record<string, string>; status: number; code: string }[] = [
      { name: 'no credentials', url: TRACK, headers: {}, status: 401, code: 'missing_credentials' },
      { name: 'wrong password', url: TRACK, headers: { authorization: basic('web1.wrong') }, status: 401, code: 'invalid_credentials' },
      { name: 'unknown key id', url: TRACK, headers: { authorization: basic('nope.p4ss') }, status: 401, code: 'invalid_credentials' },
      { name: 'not Basic', url: TRACK, headers: { authorization: 'Bearer web1.p4ss' }, status: 401, code: 'invalid_credentials' },
      { name: 'apiKey sent as Basic', url: TRACK, headers: { authorization: basic('srv1.s3cret') }, status: 401, code: 'invalid_credentials' },
      { name: 'apiKey query on a browser endpoint', url: `${TRACK}?apiKey=srv1.s3cret`, headers: {}, status: 401, code: 'missing_credentials' },
      { name: 'unknown project without a key', url: '/v1/acme/projects/ghost/sources/web/track', headers: {}, status: 401, code: 'missing_credentials' },
      { name: 'unknown project with a bad key', url: '/v1/ghost/projects/x/sources/web/track', headers: { authorization: basic('web1.bad') }, status: 401, code: 'invalid_credentials' },
      { name: 'unknown project with a valid key', url: '/v1/acme/projects/ghost/sources/web/track', headers: AUTH, status: 404, code: 'project_not_found' },
      { name: 'unknown org with a valid key', url: '/v1/ghost/projects/shop/sources/web/track', headers: AUTH, status: 404, code: 'project_not_found' },
      { name: 'key of another project', url: '/v1/acme/projects/blog/sources/web/track', headers: AUTH, status: 403, code: 'key_not_for_project' },
      { name: 'key of another organization', url: '/v1/other/projects/site/sources/web/track', headers: AUTH, status: 403, code: 'key_not_for_project' },
      { name: 'source not in the project', url: '/v1/acme/projects/shop/sources/pos/track', headers: AUTH, status: 403, code: 'source_not_allowed' },
    ];
    for (const c of AUTH_CASES) {
      it(`answers ${c.status} ${c.code}: ${c.name}`, async () => {
        const res = await post({ batch: [makeEvent({ profileId: 'unauth' })] }, c.headers, c.url);
        assert.equal(res.statusCode, c.status);
        assert.equal(res.json().error.code, c.code);
        assert.match(res.headers['content-type'] as string, /^application\/json/);
        assert.equal((await listEvents(h.storage, 'acme/shop', { profileId: 'unauth' })).length, 0);
      });
    }

    it('splits a writeKey at the first dot only (password with dots)', async () => {
      const res = await post({ batch: [makeEvent()] }, { authorization: basic('web2.dot.ted') }, '/v1/acme/projects/shop/sources/app/track');
      assert.equal(res.statusCode, 200);
    });

    it('applies identify, alias and group events to the identity graph in the same request', async () => {
      const res = await post({ batch: [
        makeEvent({ type: 'identify', name: 'Identify', profileId: 'http-p', userId: 'http-u', userAttributes: { plan: 'pro' } }),
        makeEvent({ type: 'alias', name: 'Alias', profileId: 'http-p', userId: 'http-u2', anotherUserId: 'http-u' }),
        makeEvent({ type: 'group', name: 'Group', profileId: 'http-p', accountId: 'http-acc', accountAttributes: { seats: 5 } }),
      ] });
      assert.equal(res.statusCode, 200);
      assert.equal(await resolveUser(h.storage, 'acme/shop', 'http-u2'), 'http-p');
      assert.deepEqual(await getProfileAttributes(h.storage, 'acme/shop', 'http-p'), { plan: 'pro' });
      assert.deepEqual(await getAccountAttributes(h.storage, 'acme/shop', 'http-acc'), { seats: 5 });
    });

    it('counts resends as duplicates after a restart (new app, storage reopened on the same database)', async () => {
      const batch = [makeEvent({ profileId: 'restart' }), makeEvent({ profileId: 'restart' })];
      assert.deepEqual((await post({ batch })).json(), { accepted: 2, duplicates: 0 });
      await h.restart();
      assert.deepEqual((await post({ batch })).json(), { accepted: 0, duplicates: 2 });
    });

    it('works over a real socket (listen on port 0 + fetch)', async () => {
      const live = await buildApp({ config: testConfig(), storage: h.storage });
      try {
        const address = await live.listen({ port: 0, host: '127.0.0.1' });
        const batch = [makeEvent({ profileId: 'socket' })];
        const ok = await fetch(`${address}${TRACK}`, {
          method: 'POST', headers: { ...AUTH, 'content-type': 'text/plain;charset=UTF-8' }, body: JSON.stringify({ batch }),
        });
        assert.equal(ok.status, 200);
        assert.deepEqual(await ok.json(), { accepted: 1, duplicates: 0 });
        const again = await fetch(`${address}${TRACK}`, {
          method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ batch }),
        });
        assert.deepEqual(await again.json(), { accepted: 0, duplicates: 1 });
        const denied = await fetch(`${address}${TRACK}`, { method: 'POST', body: JSON.stringify({ batch }), headers: { 'content-type': 'application/json' } });
        assert.equal(denied.status, 401);
        assert.equal(((await denied.json()) as { error: { code: string } }).error.code, 'missing_credentials');
        const big = await fetch(`${address}${TRACK}`, {
          method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: 'x'.repeat(1024 * 1024 + 10),
        });
        assert.equal(big.status, 413);
        assert.equal(((await big.json()) as { error: { code: string } }).error.code, 'payload_too_large');
      } finally {
        await live.close();
      }
    });
  });
}
