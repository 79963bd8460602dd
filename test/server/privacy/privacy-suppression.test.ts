// The suppression list against every id a request names, end to end on SQLite and PostgreSQL: once a person is erased,
// no event (by any of its ids, an alias's other id or the email in its traits), no consent record (by its profile id
// or its email, however spelt) and no Choose request (a userId, a profile aliased to them) brings them back; and
// emails are one address however they were typed, for erasure as for the list.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { readAllRows, type AllRows } from '../helpers/all-rows.js';
import { makeEvent } from '../helpers/events.js';
import { op, type SqlProgram } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import { DRIVERS, POSTGRES_DRIVER } from '../helpers/storage-drivers.js';
import { ADMIN, PRIVACY, requestDone, send } from '../helpers/privacy-api.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp, useStorage } from '../helpers/use-test-app.js';

const CHOOSE_API = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
const TRACK = '/v1/acme/projects/shop/sources/web/track';
const CONSENT = '/v1/acme/projects/shop/consents/data';
const FUTURE = Date.parse('2030-01-01T00:00:00.000Z');

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.experiences = [{ name: 'hero', variations: [{ name: 'control', weight: 50, body: { v: 'a' } }, { name: 'bold', weight: 50, body: { v: 'b' } }] }];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
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

/** A session advisory lock the test holds: the consent's program waits on it right after reading the list. */
const GATE = 4242;

/**
 * `storage`, whose next program that looks ids up on the suppression list waits, right after that read, until the test
 * lets it go (it asks for the test's lock): the moment between the consent endpoint's check and its store, held open.
 */
function pausedAfterListRead(storage: Storage): Storage {
  let armed = true;
  function* paused<T>(program: SqlProgram<T>): SqlProgram<T> {
    let step = program.next();
    while (!step.done) {
      const result = yield step.value;
      if (armed && /FROM suppressions WHERE project = \? AND kind = \?/.test(step.value.sql)) {
        armed = false;
        yield op(`SELECT pg_advisory_lock_shared(${GATE})`);
        yield op(`SELECT pg_advisory_unlock_shared(${GATE})`);
      }
      step = program.next(result);
    }
    return step.value;
  }
  return new Proxy(storage, {
    get(target, prop) {
      if (prop === 'run' || prop === 'transaction') {
        return (make: () => SqlProgram<unknown>, options?: object) => target[prop](() => paused(make()), options);
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

// PostgreSQL only: on SQLite a consent's program runs whole on the one connection, so no erasure can commit between its
// check and its store, and there is no moment to hold open.
describe('a consent record sent while its person is erased (postgres)', () => {
  const h = useStorage(POSTGRES_DRIVER);

  it('an erasure that runs between the check and the store still leaves no record naming the person', async () => {
    const profileId = 'prof-race-41f0';
    const side = new pg.Client({ connectionString: h.db.location });
    await side.connect();
    const app = await buildApp({ config: config(), storage: pausedAfterListRead(h.storage) });
    try {
      await side.query(`SELECT pg_advisory_lock(${GATE})`);
      const waiting = async (gate: boolean): Promise<boolean> => (await side.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND (classid = 0 AND objid = ${GATE}) = $1`, [gate],
      )).rows.length > 0;
      const consent = send(app, CONSENT, { profileId, action: 'accept', validUntil: FUTURE });
      for (let polls = 0; !(await waiting(true)); polls++) {
        assert.ok(polls < 500, 'the consent never read the list');
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      // The consent has read the list (its id is not on it yet) and waits to store. The erasure runs now: to its end,
      // or until it waits for the consent.
      const created = await app.inject({ method: 'POST', url: `${PRIVACY}/erasures`, headers: ADMIN, payload: { profileId, sourceId: 'web' } });
      const { id } = created.json() as { id: string };
      for (let polls = 0; ; polls++) {
        assert.ok(polls < 1000, 'the erasure neither finished nor waited');
        const status = (await app.inject({ method: 'GET', url: `${PRIVACY}/erasures/${id}`, headers: ADMIN })).json() as { status: string };
        if (status.status === 'done' || (await waiting(false))) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await side.query(`SELECT pg_advisory_unlock(${GATE})`);
      await consent;
      for (let polls = 0; ; polls++) {
        assert.ok(polls < 1000, 'the erasure did not finish');
        const status = (await app.inject({ method: 'GET', url: `${PRIVACY}/erasures/${id}`, headers: ADMIN })).json() as { status: string };
        if (status.status === 'done') break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      assert.deepEqual(mentions(await readAllRows(h.db), [profileId]), []);
    } finally {
      await side.end();
      await app.close();
    }
  });
});
