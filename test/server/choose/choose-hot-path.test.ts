// The Choose API's per-node hot-path mechanisms: exposure dedupe, the worker-thread exposure sink (nothing
// buffered is lost on close), the targeting attribute cache (TTL on the app's clock) and the verified-key
// memory (emptied by a config reload). Real SQLite; clocks pinned, no timing assertions.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import { verifiedKey, verifyKey } from '../../../server/auth/verified-keys.js';
import { ExposureDedupe } from '../../../server/choose/exposure-dedupe.js';
import { ExposureWriter } from '../../../server/choose/exposure-writer.js';
import { ProjectScopedMap } from '../../../server/memory/project-scoped-map.js';
import { choicesJson } from '../../../server/choose/engine/choices-json.js';
import { TargetingAttributeCache } from '../../../server/choose/targeting-attribute-cache.js';
import { ConfigStore } from '../../../server/config/config-store.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { TARGETING_TTL_MS } from '../../../server/choose/choose-service.js';
import { exposureSetParams } from '../../../server/choose/exposure-programs.js';
import type { SqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { ExposureSet } from '../../../server/choose/exposure-programs.js';
import { chooseStore } from '../../../server/choose/choose-store.js';
import { makeEvent } from '../helpers/events.js';
import { sqliteDatabase, type TestDatabase } from '../helpers/storage-drivers.js';
import { ingestBatch, PROGRAMS_MODULE } from '../../../server/programs.js';
import { countExposures, getAssignment, readExposures } from '../helpers/stored-rows.js';

const P = 'acme/shop';
interface SeenExposure { profileId: string; name: string; variation: string; sessionId: string | null | undefined }
const row = (over: Partial<SeenExposure> = {}): SeenExposure => ({ profileId: 'p1', name: 'e1', variation: 'a', sessionId: 's1', ...over });
/** One answer's exposures: `n` choices for one profile and session. */
const set = (project: string, profileId: string, n = 1): ExposureSet => ({
  project, profileId, sessionId: 's1', device: 'desktop', choices: Array.from({ length: n }, (_, i) => ({ name: `e${i}`, variation: 'a' })),
});

function config(keys = ['srv1.s3cret']): ServiceConfigFile {
  return {
    organizations: { acme: { projects: { shop: {
      apiKeys: keys, writeKeys: ['web1.p4ss'], sources: ['web'],
      experiences: [{ name: 'pro-only', condition: { plan: 'pro' }, variations: [{ name: 'on', weight: 100, body: { t: 1 } }] }],
    } } } },
  };
}

describe('ExposureDedupe', () => {
  // One request's exposures: one project, profile and session (as the route passes them).
  const fresh = (dedupe: ExposureDedupe, rows: SeenExposure[]): readonly SeenExposure[] => {
    let written: readonly SeenExposure[] = [];
    dedupe.record(P, rows[0]!.profileId, rows[0]!.sessionId, rows, (f) => {
      written = f;
      return Promise.resolve();
    });
    return written;
  };

  it('drops a repeat of (profile, experience, variation, session) and keeps the first', () => {
    const dedupe = new ExposureDedupe();
    assert.equal(fresh(dedupe, [row(), row({ name: 'e2' })]).length, 2);
    assert.deepEqual(fresh(dedupe, [row(), row({ name: 'e3' })]), [row({ name: 'e3' })]);
  });

  it('keeps the same exposure in a new session, for another profile, or with another variation', () => {
    const dedupe = new ExposureDedupe();
    fresh(dedupe, [row()]);
    assert.equal(fresh(dedupe, [row({ sessionId: 's2' })]).length, 1);
    assert.equal(fresh(dedupe, [row({ profileId: 'p2' })]).length, 1);
    assert.equal(fresh(dedupe, [row({ variation: 'b' })]).length, 1);
  });

  it('holdsSession tells a remembered session without remembering one', () => {
    const dedupe = new ExposureDedupe();
    assert.equal(dedupe.holdsSession(P, 'p1', 's1'), false);
    assert.equal(dedupe.size, 0);
    fresh(dedupe, [row()]);
    assert.equal(dedupe.holdsSession(P, row().profileId, row().sessionId), true);
    assert.equal(dedupe.holdsSession(P, row().profileId, 'another-session'), false);
    assert.equal(dedupe.holdsSession('acme/blog', row().profileId, row().sessionId), false);
    assert.equal(dedupe.holdsSession(P, row().profileId, null), false);
  });

  it('never drops rows without a session id', () => {
    const dedupe = new ExposureDedupe();
    fresh(dedupe, [row({ sessionId: null })]);
    assert.equal(fresh(dedupe, [row({ sessionId: null }), row({ sessionId: null, name: 'e2' })]).length, 2);
    assert.equal(fresh(dedupe, [row({ sessionId: undefined })]).length, 1);
  });

  it('the same exposure objects again in the session are all repeats; a changed one among them is not', () => {
    const dedupe = new ExposureDedupe();
    const a = row();
    const b = row({ name: 'e2' });
    assert.deepEqual(fresh(dedupe, [a, b]), [a, b]);
    assert.deepEqual(fresh(dedupe, [a, b]), []);
    // Other objects, the same values: still repeats (compared by experience and variation).
    assert.deepEqual(fresh(dedupe, [row(), row({ name: 'e2' })]), []);
    // One object changed: only it is new; then the new pair is remembered as the session's last.
    const b2 = row({ name: 'e2', variation: 'b' });
    assert.deepEqual(fresh(dedupe, [a, b2]), [b2]);
    assert.deepEqual(fresh(dedupe, [a, b2]), []);
    assert.deepEqual(fresh(dedupe, [a, b]), [b]);
    // The same objects in another session are that session's first exposures.
    assert.deepEqual(fresh(dedupe, [{ ...a, sessionId: 's2' }, { ...b, sessionId: 's2' }]).length, 2);
    assert.equal(dedupe.size, 4);
  });

  it('forgets the least recently seen profile beyond its bound', () => {
    const dedupe = new ExposureDedupe(2);
    fresh(dedupe, [row({ profileId: 'old' })]);
    fresh(dedupe, [row({ profileId: 'mid' })]);
    fresh(dedupe, [row({ profileId: 'new' })]);
    assert.equal(dedupe.size, 2);
    assert.equal(fresh(dedupe, [row({ profileId: 'old' })]).length, 1);
    assert.equal(fresh(dedupe, [row({ profileId: 'new' })]).length, 0);
  });

  it('remembers a profile\'s 16 most recently used sessions: a 17th pushes out the least recently used', () => {
    const dedupe = new ExposureDedupe();
    const sessions = Array.from({ length: 17 }, (_, i) => `s${i + 1}`);
    for (const s of sessions.slice(0, 16)) assert.equal(fresh(dedupe, [row({ sessionId: s })]).length, 1);
    // s1 used again (a repeat): now the most recent, so the 17th pushes out s2.
    assert.equal(fresh(dedupe, [row({ sessionId: 's1' })]).length, 0);
    assert.equal(fresh(dedupe, [row({ sessionId: 's17' })]).length, 1);
    assert.equal(dedupe.size, 16);
    assert.equal(fresh(dedupe, [row({ sessionId: 's1' })]).length, 0);
    assert.equal(fresh(dedupe, [row({ sessionId: 's2' })]).length, 1);
  });
});

describe('ExposureDedupe: what an answer waits for', () => {
  it('a repeat waits for the write of the exposure it repeats while it is under way, then for nothing', async () => {
    const dedupe = new ExposureDedupe();
    let commit!: () => void;
    const first = dedupe.record(P, 'p1', 's1', [row()], () => new Promise<void>((resolve) => (commit = resolve)));
    assert.notEqual(first, null);
    const writes: number[] = [];
    const repeat = dedupe.record(P, 'p1', 's1', [row()], () => (writes.push(1), Promise.resolve()));
    assert.equal(writes.length, 0, 'a repeat writes nothing');
    assert.equal(repeat, first, 'it waits for the first answer\'s write');
    // Partly new: its own write and the one under way, both.
    let secondDone = false;
    const partly = dedupe.record(P, 'p1', 's1', [row(), row({ name: 'e2' })], () => (writes.push(2), Promise.resolve()));
    void partly?.then(() => (secondDone = true));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(writes, [2]);
    assert.equal(secondDone, false, 'not answered before the first write commits');
    commit();
    await partly;
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(dedupe.record(P, 'p1', 's1', [row(), row({ name: 'e2' })], () => Promise.resolve()), null, 'all stored: nothing to wait for');
    assert.notEqual(dedupe.record(P, 'p1', null, [row()], () => Promise.resolve()), null, 'without a session every answer writes');
  });
});

describe('exposureSetParams', () => {
  it('writes each choice as [name, variation] JSON, the same object again as it is now', () => {
    const choice: { name: string; variation?: string | null } = { name: 'hero "big"', variation: 'bold' };
    const params = (choices: { name: string; variation?: string | null }[]) =>
      exposureSetParams({ project: P, profileId: 'p', sessionId: 's', device: 'mobile', time: 5, choices }, 9);
    assert.deepEqual(params([choice, { name: 'note' }]), [P, 'p', 's', 'mobile', 5, 2, '[["hero \\"big\\"","bold"],["note",null]]', null]);
    assert.equal(params([choice])[6], '[["hero \\"big\\"","bold"]]');
    choice.variation = 'control';
    assert.equal(params([choice])[6], '[["hero \\"big\\"","control"]]');
    choice.variation = null;
    assert.equal(params([choice])[6], '[["hero \\"big\\"",null]]');
    // What results break the exposure down by, as the Choose route found it.
    const context = '{"browser":"Firefox"}';
    assert.equal(exposureSetParams({ project: P, profileId: 'p', context, choices: [choice] }, 9)[7], context);
  });
});

describe('choicesJson', () => {
  it('is the text JSON.stringify gives for the answer', () => {
    const body = { title: 'Hi "there"', n: [1, 2] };
    const choices = [{ name: 'a', group: 'g', variation: 'v', body }, { name: 'b', body }, { name: 'c', body: {} }];
    assert.equal(choicesJson(choices), JSON.stringify({ choices }));
    assert.equal(choicesJson([]), '{"choices":[]}');
  });

  it('answers the same text for the frozen choices it remembers, on every call, mixed with fresh ones', () => {
    const shared = Object.freeze({ name: 'hero', group: 'home', variation: 'bold', body: { title: 'Big' } });
    const fresh = { name: 'recs', body: { products: [{ id: 'p1' }] } };
    const expected = JSON.stringify({ choices: [shared, fresh, shared] });
    assert.equal(choicesJson([shared, fresh, shared]), expected);
    assert.equal(choicesJson([shared, fresh, shared]), expected);
  });

  it('a frozen answer\'s text is built once and is the text of its choices; an open array is read each time', () => {
    const choices = [{ name: 'a', variation: 'x', body: { n: 1 } }];
    const frozen = Object.freeze([...choices]);
    assert.equal(choicesJson(frozen), JSON.stringify({ choices }));
    assert.equal(choicesJson(frozen), choicesJson(frozen));
    const open = [...choices];
    assert.equal(choicesJson(open), JSON.stringify({ choices }));
    open.push({ name: 'b', variation: 'y', body: { n: 2 } });
    assert.equal(choicesJson(open), JSON.stringify({ choices: open }));
  });
});

describe('ProjectScopedMap', () => {
  it('is bounded over every project: the project that grew gives up its oldest entry', () => {
    const map = new ProjectScopedMap<number>(4);
    for (const id of ['a', 'b']) map.set('p1', id, 1);
    for (const id of ['a', 'b', 'c']) map.set('p2', id, 2);
    assert.equal(map.size, 4);
    assert.equal(map.get('p2', 'a'), undefined);
    assert.deepEqual([map.get('p1', 'a'), map.get('p1', 'b'), map.get('p2', 'b'), map.get('p2', 'c')], [1, 1, 2, 2]);
    // Setting an id again makes it the newest of its project.
    map.set('p2', 'b', 3);
    map.set('p2', 'd', 4);
    assert.deepEqual([map.get('p2', 'b'), map.get('p2', 'c'), map.get('p2', 'd')], [3, undefined, 4]);
  });

  it('a project under its share takes room from one over it, and one emptied is dropped', () => {
    const map = new ProjectScopedMap<number>(4);
    for (const id of ['a', 'b', 'c', 'd']) map.set('old', id, 0);
    for (const id of ['a', 'b', 'c', 'd']) map.set('new', id, 1);
    assert.equal(map.size, 4);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((id) => map.get('old', id)), [undefined, undefined, 0, 0]);
    assert.deepEqual(['a', 'b', 'c', 'd'].map((id) => map.get('new', id)), [undefined, undefined, 1, 1]);
    map.clear();
    assert.equal(map.size, 0);
    assert.equal(map.get('new', 'd'), undefined);
  });
});

describe('TargetingAttributeCache', () => {
  it('answers within the TTL and reads again once it has passed', () => {
    let now = 1000;
    const cache = new TargetingAttributeCache(() => now, 10_000);
    cache.set(P, 'p1', 'p1', { profile: { plan: 'pro' }, account: {} });
    now += 9_999;
    assert.deepEqual(cache.get(P, 'p1', 'p1')?.profile, { plan: 'pro' });
    now += 1;
    assert.equal(cache.get(P, 'p1', 'p1'), undefined);
  });

  it('is keyed by the canonical profile too (an identified profile is a different entry)', () => {
    const cache = new TargetingAttributeCache(() => 0);
    cache.set(P, 'p1', 'p1', { profile: { plan: 'pro' }, account: {} });
    assert.equal(cache.get(P, 'p1', 'canonical'), undefined);
  });
});

describe('verified keys', () => {
  it('remembers a verified key under the current config only: a reload forgets it', () => {
    const store = new ConfigStore(config());
    const entry = store.keyById('srv1');
    assert.ok(entry);
    assert.equal(verifiedKey(store, 'srv1.s3cret'), undefined);
    assert.equal(verifyKey(store, 'srv1.s3cret', 'srv1'), entry);
    assert.equal(verifiedKey(store, 'srv1.s3cret'), entry);
    assert.equal(verifyKey(store, 'srv1.wrong', 'srv1'), undefined);
    assert.equal(verifiedKey(store, 'srv1.wrong'), undefined, 'a failure is never remembered');
    store.replace(config(['srv1.rotated']));
    assert.equal(verifiedKey(store, 'srv1.s3cret'), undefined);
    assert.equal(verifyKey(store, 'srv1.s3cret', 'srv1'), undefined);
  });
});

describe('Choose API hot path over SQLite', () => {
  let db: TestDatabase;
  let storage: SqliteStorage;

  before(async () => {
    db = sqliteDatabase();
    storage = (await db.open()) as SqliteStorage;
    // The Choose programs run on the interactive lane's thread, as in a service.
    storage.hostPrograms(PROGRAMS_MODULE);
  });
  after(async () => {
    await storage.close();
    await db.destroy();
  });

  it('the writer thread: answers added in one turn are one write, committed when their add() resolves', async () => {
    const before = await countExposures(storage, 'acme/worker');
    const sink = chooseStore(storage);
    let writes = 0;
    const writer = new ExposureWriter({ recordExposures: (sets) => (writes++, sink.recordExposures(sets)) }, { maxBatch: 1000 });
    try {
      await Promise.all(Array.from({ length: 25 }, (_, i) => writer.add(set('acme/worker', `w-${i}`, 10))));
      assert.equal(writes, 1);
      assert.equal(await countExposures(storage, 'acme/worker'), before + 250);
    } finally {
      await writer.close();
    }
  });

  it('the writer thread: a full batch is written by the worker while the app runs', async () => {
    const sink = chooseStore(storage);
    await sink.recordExposures([set('acme/worker2', 'p1', 2), { ...set('acme/worker2', 'p2'), sessionId: null, device: null, time: 1_700_000_000_000 }]);
    const stored = await readExposures(storage, 'acme/worker2');
    assert.deepEqual(stored.map((e) => [e.profileId, e.experience, e.variation, e.sessionId, e.device]), [
      ['p1', 'e0', 'a', 's1', 'desktop'], ['p1', 'e1', 'a', 's1', 'desktop'], ['p2', 'e0', 'a', null, null],
    ]);
    assert.equal(stored[2]?.time, 1_700_000_000_000);
  });

  it('the writer thread: first assignments are inserted if absent and answered with what is stored', async () => {
    const sink = chooseStore(storage);
    const input = (unit: string, variation: string) => ['e1', 'e2'].map((experience) => ({
      project: 'acme/worker3', experience, unit, variation, hashVersion: 2,
    }));
    {
      // Two requests for one unit in the same turn (one group commit) and a later one proposing another variation.
      const [first, second] = await Promise.all([sink.getOrCreateAssignments(input('u1', 'a')), sink.getOrCreateAssignments(input('u1', 'a'))]);
      const later = await sink.getOrCreateAssignments(input('u1', 'b'));
      assert.deepEqual(first?.map((a) => [a.variation, a.created]), [['a', true], ['a', true]]);
      assert.deepEqual(second?.map((a) => [a.variation, a.created]), [['a', false], ['a', false]]);
      assert.deepEqual(later.map((a) => [a.experience, a.unit, a.variation, a.hashVersion, a.created]), [
        ['e1', 'u1', 'a', 2, false], ['e2', 'u1', 'a', 2, false],
      ]);
      // Committed before the answer: the main connection reads them.
      assert.equal((await getAssignment(storage, 'acme/worker3', 'e2', 'u1'))?.variation, 'a');
    }
  });

  it('a config reload: a removed apiKey is refused at once although it was verified before', async () => {
    const app = await buildApp({ config: config(), storage });
    try {
      const url = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
      const payload = { identification: { sourceId: 'web', profileId: 'k-1' }, names: ['pro-only'] };
      assert.equal((await app.inject({ method: 'POST', url, payload })).statusCode, 200);
      app.svc.config.replace(config(['srv1.rotated']));
      assert.equal((await app.inject({ method: 'POST', url, payload })).statusCode, 401);
    } finally {
      await app.close();
    }
  });

  it('exposures: a repeat in the same session is written once, a new session again (through app.inject)', async () => {
    const app = await buildApp({ config: config(), storage });
    const before = await countExposures(storage, P);
    await ingestBatch(storage, P, 'web', [makeEvent({ profileId: 'd-1', userAttributes: { plan: 'pro' } })]);
    const url = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
    const choose = (sessionId: string) => app.inject({ method: 'POST', url, payload: { identification: { sourceId: 'web', profileId: 'd-1' }, names: ['pro-only'], sessionId } });
    try {
      for (const sessionId of ['s-1', 's-1', 's-1', 's-2']) assert.equal((await choose(sessionId)).statusCode, 200);
    } finally {
      await app.close();
    }
    assert.equal(await countExposures(storage, P), before + 2);
  });

  it('exposures: two answers in one session, asked at once, both come after its exposure is committed', async () => {
    const app = await buildApp({ config: config(), storage });
    await ingestBatch(storage, P, 'web', [makeEvent({ profileId: 'r-1', userAttributes: { plan: 'pro' } })]);
    const url = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
    const choose = (sessionId: string) => app.inject({ method: 'POST', url, payload: { identification: { sourceId: 'web', profileId: 'r-1' }, names: ['pro-only'], sessionId } });
    const stored = async () => (await readExposures(storage, P)).filter((e) => e.profileId === 'r-1' && e.sessionId === 'race').length;
    try {
      // A returning visitor (its assignment and attributes cached), so the repeat could be answered at once.
      assert.equal((await choose('warm')).statusCode, 200);
      // The storage's main connection sees what the writer thread committed, at the moment each answer arrives.
      const seenAtAnswer = await Promise.all(['race', 'race'].map((sessionId) => choose(sessionId).then(async (res) => {
        assert.equal(res.statusCode, 200);
        return stored();
      })));
      assert.deepEqual(seenAtAnswer, [1, 1]);
    } finally {
      await app.close();
    }
  });

  it('targeting: stored attributes are reused for the TTL on the app clock, then read again', async () => {
    let now = Date.parse('2025-06-01T00:00:00Z');
    const app = await buildApp({ config: config(), storage, now: () => now });
    const url = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
    const names = async () => ((await app.inject({ method: 'POST', url, payload: { identification: { sourceId: 'web', profileId: 't-1' }, names: ['pro-only'] } }))
      .json() as { choices: { name: string }[] }).choices.map((c) => c.name);
    try {
      assert.deepEqual(await names(), []);
      await ingestBatch(storage, P, 'web', [makeEvent({ profileId: 't-1', userAttributes: { plan: 'pro' } })]);
      now += TARGETING_TTL_MS - 1;
      assert.deepEqual(await names(), [], 'within the TTL the cached (empty) attributes still count');
      now += 1;
      assert.deepEqual(await names(), ['pro-only']);
    } finally {
      await app.close();
    }
  });
});
