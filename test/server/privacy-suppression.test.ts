// The suppression list against every id a request names, end to end on SQLite and PostgreSQL: once a person is erased,
// no event (by any of its ids, an alias's other id or the email in its traits), no consent record (by its profile id
// or its email, however spelt) and no Choose request (a userId, a profile aliased to them) brings them back; and
// emails are one address however they were typed, for erasure as for the list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../../server/config/config-types.js';
import { readAllRows, type AllRows } from './helpers/all-rows.js';
import { makeEvent } from './helpers/events.js';
import { DRIVERS } from './helpers/storage-drivers.js';
import { basic, testConfig } from './helpers/test-config.js';
import { useApp } from './helpers/use-test-app.js';

const CHOOSE_API = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
const TRACK = '/v1/acme/projects/shop/sources/web/track';
const CONSENT = '/v1/acme/projects/shop/consents/data';
const PRIVACY = '/v1/acme/projects/shop/privacy';
const BROWSER = { authorization: basic('web1.p4ss') };
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.experiences = [{ name: 'hero', variations: [{ name: 'control', weight: 50, body: { v: 'a' } }, { name: 'bold', weight: 50, body: { v: 'b' } }] }];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

async function send(app: FastifyInstance, url: string, payload: unknown, headers: Record<string, string> = BROWSER) {
  const res = await app.inject({ method: 'POST', url, headers, payload: payload as Record<string, unknown> });
  assert.ok(res.statusCode < 300, `${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown>;
}

/** POSTs a privacy request and reads it until it is done. */
async function requestDone(app: FastifyInstance, kind: 'erasures' | 'exports', body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const created = await app.inject({ method: 'POST', url: `${PRIVACY}/${kind}`, headers: ADMIN, payload: body });
  assert.equal(created.statusCode, 202, created.body);
  const { id } = created.json() as { id: string };
  for (let polls = 0; ; polls++) {
    assert.ok(polls < 2000, 'the request did not finish: gave up polling');
    const answer = (await app.inject({ method: 'GET', url: `${PRIVACY}/${kind}/${id}`, headers: ADMIN })).json() as Record<string, unknown>;
    if (answer.status === 'done') return answer;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The tables (but the suppression list) with a row mentioning one of `ids` (case-insensitively), and that row. */
function mentions(rows: AllRows, ids: string[]): string[] {
  const lower = ids.map((id) => id.toLowerCase());
  const found: string[] = [];
  for (const [table, list] of rows) {
    if (table === 'suppressions') continue;
    for (const row of list) {
      const text = JSON.stringify(row).toLowerCase();
      const id = lower.find((i) => text.includes(i));
      if (id !== undefined) {
        found.push(`${table}: ${id} in ${text}`);
        break;
      }
    }
  }
  return found;
}

/** The kinds of rows an export found (those with any). */
function exportedKinds(exported: Record<string, unknown>): string[] {
  return Object.entries(exported.counts as Record<string, number>).filter(([, n]) => n > 0).map(([kind]) => kind).sort();
}

for (const driver of DRIVERS) {
  describe(`the suppression list checks every id (${driver.name})`, () => {
    const h = useApp(driver, () => ({ config: config() }));

    it('after erasing a user, an alias naming them either way, a consent and a Choose by their userId store nothing of them', async () => {
      const { app } = h;
      const user = 'user-erased-b71c';
      const profile = 'prof-erased-b71c';
      await send(app, TRACK, { batch: [makeEvent({ profileId: profile, sessionId: 's-erased-b71c', type: 'identify', name: 'identify', userId: user })] });
      await requestDone(app, 'erasures', { userId: user });

      // A new device of theirs, aliased to the erased id from either side, then asked for by the erased userId.
      const late = [
        makeEvent({ profileId: 'prof-new-a-5d20', sessionId: 's-new-a', type: 'alias', name: 'alias', userId: user, anotherUserId: 'user-other-a-5d20' }),
        makeEvent({ profileId: 'prof-new-b-5d20', sessionId: 's-new-b', type: 'alias', name: 'alias', userId: 'user-other-b-5d20', anotherUserId: user }),
        makeEvent({ profileId: 'prof-new-c-5d20', sessionId: 's-new-c', type: 'identify', name: 'identify', userId: user }),
      ];
      assert.deepEqual(await send(app, TRACK, { batch: late }), { accepted: 3, duplicates: 0 });
      await send(app, CONSENT, { profileId: profile, action: 'accept', validUntil: FUTURE });
      const chosen = await send(app, CHOOSE_API, { identification: { userId: user }, names: ['hero'], sessionId: 's-new-a' }, {});
      assert.deepEqual(chosen, { choices: [] });
      await app.svc.models.settle();

      const ids = [user, profile, 'prof-new-a-5d20', 'prof-new-b-5d20', 'prof-new-c-5d20', 'user-other-a-5d20', 'user-other-b-5d20'];
      assert.deepEqual(mentions(await readAllRows(h.db), ids), []);
      assert.deepEqual(exportedKinds(await requestDone(app, 'exports', { userId: user })), []);
    });

    it('after erasing an address in one spelling, consent records and traits in other spellings are not stored', async () => {
      const { app } = h;
      await send(app, CONSENT, { profileId: 'prof-mail-1-8e0a', action: 'accept', validUntil: FUTURE, email: 'Erased.X@Example.com' });
      await requestDone(app, 'erasures', { email: 'Erased.X@Example.com' });
      const spellings = ['erased.x@example.com', 'ERASED.X@EXAMPLE.COM', '  Erased.X@Example.com\t', 'erased.X@example.COM '];
      for (const [i, email] of spellings.entries()) {
        await send(app, CONSENT, { profileId: `prof-mail-late-${i}-8e0a`, action: 'accept', validUntil: FUTURE, email });
      }
      const traits = makeEvent({ profileId: 'prof-mail-trait-8e0a', type: 'identify', name: 'identify', userId: 'user-mail-8e0a', userAttributes: { email: ' ERASED.x@example.com' } });
      assert.deepEqual(await send(app, TRACK, { batch: [traits] }), { accepted: 1, duplicates: 0 });
      await app.svc.models.settle();
      assert.deepEqual(mentions(await readAllRows(h.db), ['erased.x@example.com', 'prof-mail-', 'user-mail-8e0a']), []);
    });

    it('an erasure by one spelling of an address finds every record stored under any spelling of it', async () => {
      const { app } = h;
      const spelt = ['Twice.Y@Example.org', 'twice.y@example.org ', 'TWICE.Y@EXAMPLE.ORG'];
      for (const [i, email] of spelt.entries()) {
        await send(app, CONSENT, { profileId: `prof-twice-${i}-3c55`, action: 'accept', validUntil: FUTURE, email });
        await send(app, TRACK, { batch: [makeEvent({ profileId: `prof-twice-${i}-3c55`, sessionId: `s-twice-${i}` })] });
      }
      const exported = await requestDone(app, 'exports', { email: ' twice.Y@example.ORG' });
      assert.deepEqual((exported.profiles as { profileId: string }[]).map((p) => p.profileId), ['prof-twice-0-3c55', 'prof-twice-1-3c55', 'prof-twice-2-3c55']);
      const erased = await requestDone(app, 'erasures', { email: 'tWiCe.y@Example.Org' });
      assert.deepEqual([(erased.counts as Record<string, number>).consents, (erased.counts as Record<string, number>).events], [3, 3]);
      assert.deepEqual(mentions(await readAllRows(h.db), ['twice.y@example.org', 'prof-twice-']), []);
      const listed = (await app.inject({ method: 'GET', url: `${PRIVACY}/suppressions`, headers: ADMIN })).json() as { suppressions: { kind: string; value: string }[] };
      assert.deepEqual(listed.suppressions.filter((s) => s.kind === 'email' && s.value.includes('twice')).map((s) => s.value), ['twice.y@example.org']);
    });
  });
}
