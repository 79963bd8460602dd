// The consent endpoint, against SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';
import { consentState } from '../helpers/stored-rows.js';
import { op } from '../../../server/storage/sql-program.js';

const URL_ = '/v1/acme/projects/shop/consents/data';
const AUTH = { authorization: basic('web1.p4ss') };
const FUTURE = Date.now() + 365 * 86_400_000;

const INVALID: { name: string; body: unknown; message: string }[] = [
  { name: 'no profileId', body: { action: 'accept', validUntil: FUTURE }, message: 'profileId: is required' },
  { name: 'bad action', body: { profileId: 'p', action: 'maybe', validUntil: FUTURE }, message: 'action: must be "accept" or "reject"' },
  { name: 'validUntil missing', body: { profileId: 'p', action: 'accept' }, message: 'validUntil: must be a timestamp in milliseconds' },
  { name: 'validUntil a string', body: { profileId: 'p', action: 'accept', validUntil: '2030' }, message: 'validUntil: must be a timestamp in milliseconds' },
  { name: 'email a number', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, email: 5 }, message: 'email: must be a non-empty string' },
  { name: 'bad timestamp', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, timestamp: 'soon' }, message: 'timestamp: must be epoch milliseconds or ISO 8601' },
  { name: 'not an object', body: [1], message: 'The body must be a consent record object.' },
  { name: 'categories an array', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, categories: ['analytics'] }, message: 'categories: must be an object of category names to true or false' },
  { name: 'categories empty', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, categories: {} }, message: 'categories: must name at least one category' },
  { name: 'a category not a boolean', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, categories: { analytics: 'yes' } }, message: 'categories.analytics: must be true or false' },
  { name: 'category and categories', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, category: 'analytics', categories: { analytics: true } }, message: 'categories: cannot be sent together with category' },
  { name: 'source upper-case', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, source: 'Banner' }, message: 'source: must be how the visitor decided: "banner", "api", "gpc", "tcf" (lower-case letters, digits, - and _)' },
  { name: 'source a number', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, source: 1 }, message: 'source: must be a non-empty string' },
  { name: 'version too long', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, version: 'v'.repeat(65) }, message: 'version: must be at most 64 characters' },
  { name: 'page too long', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, page: `https://x/${'p'.repeat(2048)}` }, message: 'page: must be at most 2048 characters' },
  { name: 'too many categories', body: { profileId: 'p', action: 'accept', validUntil: FUTURE, categories: Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`c${i}`, true])) }, message: 'categories: must name at most 64 categories' },
];

for (const driver of DRIVERS) {
  describe(`consent endpoint (${driver.name})`, () => {
    const h = useApp(driver);

    it('stores a record and answers {ok:true}; the latest valid record per category is the state', async () => {
      const send = (body: Record<string, unknown>) => h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: body });
      const first = await send({ profileId: 'cp', sourceId: 'web', action: 'accept', validUntil: FUTURE, timestamp: '2025-01-01T00:00:00.000Z', email: 'a@b.c', message: 'ok' });
      assert.equal(first.statusCode, 200);
      assert.deepEqual(first.json(), { ok: true });
      await send({ profileId: 'cp', action: 'reject', validUntil: FUTURE, timestamp: Date.parse('2025-01-02T00:00:00.000Z') });
      await send({ profileId: 'cp', action: 'accept', validUntil: FUTURE, category: 'analytics', timestamp: '2025-01-03T00:00:00.000Z' });
      const state = await consentState(h.storage, 'acme/shop', 'cp');
      assert.deepEqual(state.map((s) => [s.category, s.action]), [['analytics', 'accept'], ['default', 'reject']]);
    });

    it('stores a record resent with the same eventId once', async () => {
      const body = { profileId: 'cd', action: 'accept', validUntil: FUTURE, eventId: '6f1c2a8e-3b1d-4c55-9a77-1f2e3d4c5b6a', timestamp: '2025-01-01T00:00:00.000Z' };
      for (let i = 0; i < 3; i++) {
        const res = await h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: body });
        assert.deepEqual(res.json(), { ok: true });
      }
      // A later reject with another id must win; three copies of the accept must not have been stored as newer rows.
      await h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: { ...body, eventId: undefined, action: 'reject', timestamp: '2025-01-02T00:00:00.000Z' } });
      assert.deepEqual((await consentState(h.storage, 'acme/shop', 'cd')).map((s) => s.action), ['reject']);
    });

    it('stores a decision over several categories, sent as one record, as a row per category, once per eventId', async () => {
      const body = {
        profileId: 'cc', sourceId: 'web', action: 'accept', validUntil: FUTURE, eventId: '0193b2a4-6c1e-7a55-9a77-1f2e3d4c5b6a',
        timestamp: '2025-01-01T00:00:00.000Z', categories: { necessary: true, analytics: true, marketing: false },
      };
      for (let i = 0; i < 2; i++) {
        const res = await h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: body });
        assert.deepEqual(res.json(), { ok: true });
      }
      const state = await consentState(h.storage, 'acme/shop', 'cc');
      assert.deepEqual(state.map((s) => [s.category, s.action]), [['analytics', 'accept'], ['marketing', 'reject'], ['necessary', 'accept']]);
      const counted = await h.storage.run(function* () {
        return (yield op(`SELECT COUNT(*) AS n FROM consents WHERE project = ? AND profile_id = ?`, 'acme/shop', 'cc')).rows[0];
      });
      assert.equal(Number((counted as { n: number }).n), 3, 'the resend stored nothing');
    });

    it('keeps the proof of each decision: how it was made, the version of what was shown, the page', async () => {
      const body = {
        profileId: 'cproof', sourceId: 'web', action: 'accept', validUntil: FUTURE, eventId: '0193b2a4-6c1e-7a55-9a77-aaaaaaaaaaaa',
        categories: { necessary: true, analytics: false }, source: 'banner', version: '2026-11', page: 'https://shop.example/checkout',
      };
      assert.equal((await h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: body })).statusCode, 200);
      const api = { profileId: 'cproof', action: 'reject', validUntil: FUTURE, source: 'api' };
      assert.equal((await h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: api })).statusCode, 200);
      const rows = await h.storage.run(function* () {
        return (yield op(`SELECT category, action, source, banner_version, page FROM consents WHERE project = ? AND profile_id = ? ORDER BY id`, 'acme/shop', 'cproof')).rows;
      });
      assert.deepEqual(rows, [
        { category: 'necessary', action: 'accept', source: 'banner', banner_version: '2026-11', page: 'https://shop.example/checkout' },
        { category: 'analytics', action: 'reject', source: 'banner', banner_version: '2026-11', page: 'https://shop.example/checkout' },
        { category: 'default', action: 'reject', source: 'api', banner_version: null, page: null },
      ]);
    });

    it('takes text/plain JSON bodies', async () => {
      const res = await h.app.inject({
        method: 'POST', url: URL_, headers: { ...AUTH, 'content-type': 'text/plain' },
        payload: JSON.stringify({ profileId: 'ct', action: 'reject', validUntil: FUTURE }),
      });
      assert.equal(res.statusCode, 200);
      assert.equal((await consentState(h.storage, 'acme/shop', 'ct'))[0]?.action, 'reject');
    });

    for (const c of INVALID) {
      it(`answers 400 invalid_consent: ${c.name}`, async () => {
        const res = await h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: c.body as Record<string, unknown> });
        assert.equal(res.statusCode, 400);
        assert.deepEqual(res.json(), { error: { code: 'invalid_consent', message: c.message } });
      });
    }

    it('answers 401 without a key, 403 for a source of no project source and for a key of another project', async () => {
      const body = { profileId: 'cx', action: 'accept', validUntil: FUTURE };
      const none = await h.app.inject({ method: 'POST', url: URL_, payload: body });
      assert.equal(none.statusCode, 401);
      const source = await h.app.inject({ method: 'POST', url: URL_, headers: AUTH, payload: { ...body, sourceId: 'pos' } });
      assert.equal(source.statusCode, 403);
      assert.equal(source.json().error.code, 'source_not_allowed');
      const other = await h.app.inject({ method: 'POST', url: '/v1/acme/projects/blog/consents/data', headers: AUTH, payload: body });
      assert.equal(other.statusCode, 403);
      assert.equal(other.json().error.code, 'key_not_for_project');
      assert.deepEqual(await consentState(h.storage, 'acme/shop', 'cx'), []);
    });

    it('works over a real socket', async () => {
      const live = await buildApp({ config: testConfig(), storage: h.storage });
      try {
        const address = await live.listen({ port: 0, host: '127.0.0.1' });
        const res = await fetch(`${address}${URL_}`, {
          method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({ profileId: 'cs', action: 'accept', validUntil: FUTURE }),
        });
        assert.equal(res.status, 200);
        assert.deepEqual(await res.json(), { ok: true });
      } finally {
        await live.close();
      }
    });
  });
}
