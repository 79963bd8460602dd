// Privacy requests as an operator meets them, on SQLite and PostgreSQL: an erasure stopped mid-walk (its node gone)
// finishes after a restart from where its last chunk left it; bad requests change nothing; exports come as JSON and
// as CSV; the proof of consent of a period.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../server/app.js';
import type { ServiceConfigFile } from '../../server/config/config-types.js';
import { ingestBatch } from '../../server/ingest/event-store.js';
import { SCAN_CHUNK } from '../../server/privacy/person-rows.js';
import type { PrivacyRequest } from '../../server/privacy/privacy-requests.js';
import { op } from '../../server/storage/sql-program.js';
import type { ServiceEvent } from '../../src/event.js';
import { makeEvent } from './helpers/events.js';
import { DRIVERS, POSTGRES_DRIVER } from './helpers/storage-drivers.js';
import { basic, testConfig } from './helpers/test-config.js';
import { useApp } from './helpers/use-test-app.js';

const PRIVACY = '/v1/acme/projects/shop/privacy';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');

function config(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  file.organizations.acme!.projects.shop!.limits = { writeKeyPerSecond: 1_000_000 };
  return file;
}

/** A crash after the first chunk of the events walk that did not finish it. */
class Crash extends Error {}

for (const driver of DRIVERS) {
  describe(`privacy requests: crash, validation, exports (${driver.name})`, () => {
    let shift = 0;
    let crashAt: ((request: PrivacyRequest) => boolean) | null = null;
    const h = useApp(driver, () => ({
      config: config(),
      now: () => Date.now() + shift,
      privacy: {
        leaseMs: 60_000,
        afterChunk: (request) => {
          if (crashAt?.(request)) {
            crashAt = null;
            throw new Crash('the node died here');
          }
        },
      },
    }));

    async function rows(sql: string, ...params: (string | number)[]) {
      return h.storage.run(function* () {
        return (yield op(sql, ...params)).rows;
      });
    }

    async function status(id: string): Promise<Record<string, unknown>> {
      const res = await h.app.inject({ method: 'GET', url: `${PRIVACY}/erasures/${id}`, headers: ADMIN });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Record<string, unknown>;
    }

    it('an erasure stopped mid-walk finishes after a restart, from its last committed chunk', async () => {
      // More events than a chunk, the person's spread among them (random event ids).
      const crowd: ServiceEvent[] = [];
      for (let i = 0; i < SCAN_CHUNK * 2 + 500; i++) crowd.push(makeEvent({ profileId: `crowd-${i % 300}`, sessionId: `crowd-s-${i % 300}` }));
      const mine = Array.from({ length: 40 }, () => makeEvent({ profileId: 'prof-crash-5e1d', sessionId: 'sess-crash-5e1d' }));
      const all = [...crowd, ...mine];
      for (let i = 0; i < all.length; i += 1000) await ingestBatch(h.storage, 'acme/shop', 'web', all.slice(i, i + 1000));
      crashAt = (request) => request.step === 'events' && request.cursor !== '' && request.cursor !== null;

      const created = await h.app.inject({ method: 'POST', url: `${PRIVACY}/erasures`, headers: ADMIN, payload: { profileId: 'prof-crash-5e1d', sourceId: 'web' } });
      assert.equal(created.statusCode, 202, created.body);
      const { id } = created.json() as { id: string };
      // The run stops after its first chunk of events; the request stays running, leased by the node that died.
      for (let s = await status(id); s.step !== 'events' || crashAt !== null; s = await status(id)) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const stopped = await status(id);
      assert.equal(stopped.status, 'running');
      const erasedBefore = (stopped.counts as Record<string, number>).events ?? 0;
      assert.ok(erasedBefore < mine.length, `the first chunk left events to erase (${erasedBefore} of ${mine.length})`);

      // A restart: the lease lapses (the clock moves past it), and the new node takes the request over.
      shift = 120_000;
      await h.restart();
      for (let s = await status(id); s.status !== 'done'; s = await status(id)) await new Promise((resolve) => setTimeout(resolve, 20));
      const done = await status(id);
      assert.equal((done.counts as Record<string, number>).events, mine.length);
      assert.deepEqual(await rows("SELECT event_id FROM events WHERE project = 'acme/shop' AND profile_id = ?", 'prof-crash-5e1d'), []);
      assert.equal((await rows("SELECT COUNT(*) AS n FROM events WHERE project = 'acme/shop'"))[0]!.n, driver.name === 'sqlite' ? crowd.length : String(crowd.length));
    });

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
      for (;;) {
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
      for (;;) {
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
