// Privacy requests as an operator meets them, on SQLite and PostgreSQL: an erasure whose node is killed mid-walk
// finishes on the next node from where its last chunk left it; bad requests change nothing; exports come as JSON and
// as CSV; the proof of consent of a period; two nodes on one PostgreSQL.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { SCAN_CHUNK } from '../../../server/privacy/person-rows.js';
import { op } from '../../../server/storage/sql-program.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS, POSTGRES_DRIVER } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { forkHelper } from '../helpers/fork-helper.js';
import { useApp, useDatabase } from '../helpers/use-test-app.js';

const PRIVACY = '/v1/acme/projects/shop/privacy';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');

function config(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  file.organizations.acme!.projects.shop!.limits = { writeKeyPerSecond: 1_000_000 };
  return file;
}

for (const driver of DRIVERS) {
  describe(`privacy requests: a node killed mid-erasure (${driver.name})`, () => {
    const database = useDatabase(driver);

    it('the erasure finishes on the next node to start, from its last committed chunk, once the lease lapsed', async () => {
      const profileId = 'prof-killed-5e1d';
      const { db } = database;
      const { firstMessage, exited } = forkHelper<{ id: string; erased: number }>('erase-then-crash.ts', [
        driver.name, db.location, JSON.stringify(config()), profileId,
      ]);
      const { id, erased } = await firstMessage;
      assert.equal(await exited, 'SIGKILL');
      assert.ok(erased < 40, `the first chunk left events to erase (${erased} of 40)`);
      const storage = await db.open();
      // The next node starts with its clock past the dead node's lease (30 s).
      const app = await buildApp({ config: config(), storage, now: () => Date.now() + 60_000 });
      try {
        let status: Record<string, unknown>;
        for (let polls = 0; ; polls++) {
          assert.ok(polls < 2000, 'the request did not finish: gave up polling');
          status = (await app.inject({ method: 'GET', url: `${PRIVACY}/erasures/${id}`, headers: ADMIN })).json();
          if (status.status === 'done') break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        assert.equal((status.counts as Record<string, number>).events, 40);
        const left = await storage.run(function* () {
          return (yield op('SELECT profile_id, COUNT(*) AS n FROM events GROUP BY profile_id HAVING profile_id = ? OR profile_id LIKE ?', profileId, 'crowd-%')).rows;
        });
        assert.deepEqual(left.filter((r) => r.profile_id === profileId), []);
        assert.equal(left.reduce((sum, r) => sum + Number(r.n), 0), SCAN_CHUNK * 2 + 500);
      } finally {
        await app.close();
        await storage.close();
      }
    });
  });

  describe(`privacy requests: validation, exports (${driver.name})`, () => {
    const h = useApp(driver, () => ({ config: config() }));

    async function rows(sql: string, ...params: (string | number)[]) {
      return h.storage.run(function* () {
        return (yield op(sql, ...params)).rows;
      });
    }

    it('refuses bad requests with a clear error and stores nothing', async () => {
      const cases: [unknown, number, string][] = [
        [{}, 400, 'body: name the person one way: {profileId, sourceId}, {userId} or {email} (got none)'],
        [{ userId: 'u', email: 'a@b.c' }, 400, 'body: name the person one way: {profileId, sourceId}, {userId} or {email} (got userId and email)'],
        [{ profileId: 'p' }, 400, 'sourceId: is required with profileId (the source that profile id came from)'],
        [{ profileId: 'p', sourceId: 'nope' }, 403, 'The source "nope" is not a source of this project.'],
        [{ userId: 'u', sourceId: 'web' }, 400, 'sourceId: goes with profileId only'],
        [{ email: 'not-an-address' }, 400, 'email: must be an email address'],
        [{ userId: '' }, 400, 'userId: must be a non-empty string of at most 256 characters'],
        [{ userId: 'u', why: 'x' }, 400, 'why: is not a field of a privacy request'],
        [[1], 400, 'body: must be an object naming the person: {profileId, sourceId}, {userId} or {email}'],
      ];
      const before = await rows('SELECT COUNT(*) AS n FROM privacy_requests');
      for (const [payload, code, message] of cases) {
        for (const kind of ['erasures', 'exports']) {
          const res = await h.app.inject({ method: 'POST', url: `${PRIVACY}/${kind}`, headers: ADMIN, payload: payload as object });
          assert.equal(res.statusCode, code, `${JSON.stringify(payload)}: ${res.body}`);
          assert.equal((res.json() as { error: { message: string } }).error.message, message);
        }
      }
      // Only admin keys: a project's server key is refused, and so is a browser key.
      const server = await h.app.inject({ method: 'POST', url: `${PRIVACY}/erasures?apiKey=srv1.s3cret`, payload: { userId: 'u' } });
      assert.equal(server.statusCode, 403);
      assert.equal(server.json().error.code, 'admin_key_required');
      const browser = await h.app.inject({ method: 'GET', url: `${PRIVACY}/suppressions`, headers: { authorization: basic('web1.p4ss') } });
      assert.equal(browser.statusCode, 403);
      assert.equal(browser.json().error.code, 'admin_key_required');
      assert.deepEqual(await rows('SELECT COUNT(*) AS n FROM privacy_requests'), before);
      const missing = await h.app.inject({ method: 'GET', url: `${PRIVACY}/erasures/er_nothing`, headers: ADMIN });
      assert.equal(missing.statusCode, 404);
      assert.equal(missing.json().error.code, 'privacy_request_not_found');
      // Query strings and paths: each bad one a 4xx in the error shape, naming what is wrong.
      const queries: [string, number, string, string][] = [
        ['erasures?limit=0', 400, 'invalid_request', 'limit: must be a whole number from 1 to 1000'],
        ['exports?limit=abc', 400, 'invalid_request', 'limit: must be a whole number from 1 to 1000'],
        ['consents?format=xml', 400, 'invalid_request', 'format: must be json or csv'],
        ['consents?to=soon', 400, 'invalid_request', 'to: must be an ISO 8601 time or epoch milliseconds'],
        ['consents?limit=1001', 400, 'invalid_request', 'limit: must be a whole number from 1 to 1000'],
        ['exports/ex_nothing/events.csv', 404, 'privacy_request_not_found', 'There is no export request "ex_nothing" in this project.'],
        ['exports/ex_nothing/events.json', 404, 'route_not_found', 'Ask for one kind of row as CSV: exports/{id}/events.csv.'],
      ];
      for (const [path, code, errorCode, message] of queries) {
        const res = await h.app.inject({ method: 'GET', url: `${PRIVACY}/${path}`, headers: ADMIN });
        assert.equal(res.statusCode, code, `${path}: ${res.body}`);
        assert.deepEqual(res.json(), { error: { code: errorCode, message } }, path);
      }
    });

    it('exports a person as JSON and each kind of row as CSV; lists requests; proves consent of a period', async () => {
      const events = [
        makeEvent({ profileId: 'prof-export-3a', sessionId: 's-export', name: 'Said "hi", then left', data: { note: '=1+1' } }),
        makeEvent({ profileId: 'prof-export-3a', sessionId: 's-export', type: 'identify', name: 'identify', userId: 'user-export-3a' }),
      ];
      const track = await h.app.inject({
        method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers: { authorization: basic('web1.p4ss') }, payload: { batch: events },
      });
      assert.equal(track.statusCode, 200, track.body);
      for (const [timestamp, action] of [['2026-03-01T10:00:00.000Z', 'accept'], ['2026-04-01T10:00:00.000Z', 'reject']] as const) {
        const res = await h.app.inject({
          method: 'POST', url: '/v1/acme/projects/shop/consents/data', headers: { authorization: basic('web1.p4ss') },
          payload: { profileId: 'prof-export-3a', action, category: 'advertising', validUntil: FUTURE, timestamp, source: 'banner', version: 'v7' },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      const created = await h.app.inject({ method: 'POST', url: `${PRIVACY}/exports`, headers: ADMIN, payload: { email: 'nobody@example.com' } });
      assert.equal(created.statusCode, 202);
      const byUser = await h.app.inject({ method: 'POST', url: `${PRIVACY}/exports`, headers: ADMIN, payload: { userId: 'user-export-3a' } });
      const { id } = byUser.json() as { id: string };
      assert.equal(byUser.headers.location, `${PRIVACY}/exports/${id}`);
      let answer: Record<string, unknown>;
      for (let polls = 0; ; polls++) {
        assert.ok(polls < 2000, 'the request did not finish: gave up polling');
        answer = (await h.app.inject({ method: 'GET', url: `${PRIVACY}/exports/${id}`, headers: ADMIN })).json();
        if (answer.status === 'done') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      assert.deepEqual(answer.subject, { kind: 'userId', value: 'user-export-3a' });
      assert.deepEqual(answer.profiles, [{ profileId: 'prof-export-3a', userIds: ['user-export-3a'] }]);
      assert.deepEqual((answer.events as { eventId: string }[]).map((e) => e.eventId).sort(), events.map((e) => e.eventId).sort());
      assert.equal((answer.events as { payload: { name: string } }[]).find((e) => e.payload.name.startsWith('Said'))?.payload.name, 'Said "hi", then left');
      assert.equal((answer.counts as Record<string, number>).consents, 2);

      const csv = await h.app.inject({ method: 'GET', url: `${PRIVACY}/exports/${id}/events.csv`, headers: ADMIN });
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      const lines = csv.body.trimEnd().split('\r\n');
      assert.equal(lines.length, 3);
      assert.match(lines[0]!, /^eventId,sourceId,type,name,profileId,/);
      // A formula-looking value is escaped; a quoted one is quoted.
      assert.ok(csv.body.includes('""note"":""=1+1""'), csv.body);
      const unknownKind = await h.app.inject({ method: 'GET', url: `${PRIVACY}/exports/${id}/secrets.csv`, headers: ADMIN });
      assert.equal(unknownKind.statusCode, 400);

      const list = (await h.app.inject({ method: 'GET', url: `${PRIVACY}/exports`, headers: ADMIN })).json() as { exports: { id: string }[] };
      assert.ok(list.exports.some((e) => e.id === id));
      // Audited: asked (by the admin key) and done, named by the request's id, never by the person.
      const audit = (await h.app.inject({ method: 'GET', url: '/v1/acme/projects/shop/audit', headers: ADMIN })).json() as {
        entries: { keyId: string; action: string; kind: string; name: string; after: Record<string, unknown> }[];
      };
      const mine = audit.entries.filter((e) => e.name === id);
      assert.deepEqual(mine.map((e) => [e.action, e.kind, e.keyId, e.after.status]), [['update', 'export', 'adm1', 'done'], ['create', 'export', 'adm1', 'received']]);
      assert.ok(!JSON.stringify(audit.entries).includes('user-export-3a'));

      const period = await h.app.inject({ method: 'GET', url: `${PRIVACY}/consents?from=2026-03-15T00:00:00Z&to=2026-05-01T00:00:00Z`, headers: ADMIN });
      assert.equal(period.statusCode, 200, period.body);
      const proof = (period.json() as { consents: Record<string, unknown>[] }).consents.filter((c) => c.profileId === 'prof-export-3a');
      assert.deepEqual(proof.map((c) => [c.category, c.action, c.source, c.bannerVersion, c.ts]), [['advertising', 'reject', 'banner', 'v7', '2026-04-01T10:00:00.000Z']]);
      const periodCsv = await h.app.inject({ method: 'GET', url: `${PRIVACY}/consents?format=csv&from=2026-01-01`, headers: ADMIN });
      assert.match(periodCsv.body, /^id,profileId,sourceId,category,action,validUntil,email,source,bannerVersion,page,ts,receivedAt\r\n/);
      const badPeriod = await h.app.inject({ method: 'GET', url: `${PRIVACY}/consents?from=yesterday`, headers: ADMIN });
      assert.equal(badPeriod.statusCode, 400);
    });
  });
}

describe('privacy requests across two nodes on one PostgreSQL', () => {
  const h = useApp(POSTGRES_DRIVER, () => ({ config: config() }));

  it('an erasure waits for the batches being stored, which then cannot slip past the suppression list', async () => {
    // A batch being stored by another node: its transaction holds the project's erasure lock shared (ingest-program.ts).
    const other = new pg.Client({ connectionString: h.db.location });
    await other.connect();
    try {
      await other.query('BEGIN');
      await other.query("SELECT pg_advisory_xact_lock_shared(hashtextextended('svc_erasure:acme/shop', 0))");
      const created = await h.app.inject({ method: 'POST', url: `${PRIVACY}/erasures`, headers: ADMIN, payload: { userId: 'user-lock-3f7a' } });
      const { id } = created.json() as { id: string };
      // The erasure waits for that lock before it reads anyone's ids or adds them to the list.
      let waiting = 0;
      for (let i = 0; i < 500 && waiting === 0; i++) {
        waiting = Number((await other.query("SELECT COUNT(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted")).rows[0].n);
        if (waiting === 0) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(waiting, 1, 'the erasure waits for the lock');
      const during = (await h.app.inject({ method: 'GET', url: `${PRIVACY}/erasures/${id}`, headers: ADMIN })).json();
      assert.equal(during.step, 'resolve');
      await other.query('COMMIT');
      let status = '';
      for (let i = 0; i < 500 && status !== 'done'; i++) {
        status = (await h.app.inject({ method: 'GET', url: `${PRIVACY}/erasures/${id}`, headers: ADMIN })).json().status;
        if (status !== 'done') await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.equal(status, 'done');
    } finally {
      await other.end();
    }
  });

  it("an erasure asked of one node is refused by the other's ingestion at once and by its Choose API within a second", async () => {
    const other = await buildApp({ config: config(), storage: h.storage });
    try {
      const profileId = 'prof-two-nodes-8b2c';
      const choose = (app: FastifyInstance) => app.inject({
        method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api', headers: { authorization: basic('web1.p4ss') },
        payload: { identification: { sourceId: 'web', profileId }, names: ['welcome-note'], sessionId: 's-two' },
      });
      assert.equal((await choose(other)).json().choices.length, 1);
      const created = await h.app.inject({ method: 'POST', url: `${PRIVACY}/erasures`, headers: ADMIN, payload: { profileId, sourceId: 'web' } });
      const { id } = created.json() as { id: string };
      // Read through the other node: the request is shared.
      for (let polls = 0; ; polls++) {
        assert.ok(polls < 2000, 'the request did not finish: gave up polling');
        const res = await other.inject({ method: 'GET', url: `${PRIVACY}/erasures/${id}`, headers: ADMIN });
        if (res.json().status === 'done') break;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const track = await other.inject({
        method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers: { authorization: basic('web1.p4ss') },
        payload: { batch: [makeEvent({ profileId })] },
      });
      assert.deepEqual(track.json(), { accepted: 1, duplicates: 0 });
      assert.deepEqual(await h.storage.run(function* () {
        return (yield op('SELECT event_id FROM events WHERE profile_id = ?', profileId)).rows;
      }), []);
      let answer: { choices: unknown[] } = { choices: [1] };
      for (let i = 0; i < 100 && answer.choices.length > 0; i++) {
        answer = (await choose(other)).json();
        if (answer.choices.length > 0) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(answer, { choices: [] });
    } finally {
      await other.close();
    }
  });
});
