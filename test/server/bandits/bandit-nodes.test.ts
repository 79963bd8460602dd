// A bandit served by two nodes of one database (PostgreSQL, and SQLite's shared file), each with its own bandit watch:
// however often both look, each cadence has exactly one reweight, in bandit_reweights and in the audit; both nodes
// serve the new weights; a person keeps their arm on either node. A node whose view is behind (SQLite, polling
// rarely) neither reweights a second time nor undoes a person's edit.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../server/app.js';
import { ResultsService } from '../../../server/results/results-service.js';
import type { Storage } from '../../../server/storage/storage.js';
import { BanditWatch } from '../../../server/bandits/bandit-watch.js';
import {
  auditOf, banditConfig, choose, crowd, feedBandit, HOUR, MINUTE, put, read, reweightsOf, watchOf, weightsOf,
} from '../helpers/bandit-scenario.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

/** Reads until `ok` holds: another node's write reaches this one by its poll (or PostgreSQL's NOTIFY), boundedly. */
async function until<T>(read: () => Promise<T>, ok: (value: T) => boolean, what: string): Promise<T> {
  for (let tries = 0; ; tries++) {
    const value = await read();
    if (ok(value)) return value;
    if (tries >= 300) assert.fail(`${what}: still ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

for (const driver of DRIVERS) {
  describe(`a bandit on two nodes of one database (${driver.name})`, () => {
    let clock = Date.parse('2026-12-01T00:00:00.000Z');
    let other: Storage | undefined;
    let second: FastifyInstance | undefined;
    // Registered before the database's hooks: the second node closes before the database is dropped.
    after(async () => {
      await second?.close();
      await other?.close();
    });
    // The apps' own watches would look whenever their timers fire: kept out of the way; the tests' watches look.
    const h = useApp(driver, () => ({ config: banditConfig(), now: () => clock, banditIntervalMs: 24 * HOUR }));
    before(async () => {
      other = await h.db.open();
      second = await buildApp({ config: banditConfig(), storage: other, now: () => clock, banditIntervalMs: 24 * HOUR });
    });
    const nodes = (): FastifyInstance[] => [h.app, second as FastifyInstance];

    it('reweights exactly once per cadence however often both nodes look; both serve the weights; nobody moves', async () => {
      const name = `two-nodes-${driver.name}`;
      clock += 24 * HOUR;
      const started = clock;
      assert.equal((await put(h.app, feedBandit(name))).statusCode, 201);
      await until(() => read(second!, name).catch(() => null), (e) => e !== null, 'the second node serves the bandit');
      const people = new Map([...await crowd(h.app, name, `${name}-a`, 60, clock), ...await crowd(second!, name, `${name}-b`, 60, clock)]);
      // Machines' clocks differ a little: the second node's is a quarter second ahead.
      const watches = nodes().map((app, i) => watchOf(app, () => clock + i * 250));

      for (let cadence = 1; cadence <= 4; cadence++) {
        let made = 0;
        for (const minutes of [0, 0, 1, 20, 59]) {
          clock = started + cadence * HOUR + minutes * MINUTE;
          const looks = await Promise.all(watches.map((w) => w.check()));
          made += looks.flat().filter((r) => r.experience === name).length;
        }
        assert.equal(made, 1, `cadence ${cadence}`);
        const recorded = await reweightsOf(h.storage, name);
        assert.deepEqual(recorded.map((r) => Math.floor((r.at - started) / HOUR)), Array.from({ length: cadence }, (_, i) => i + 1));
        const last = recorded.at(-1)!;
        for (const app of nodes()) {
          const served = await until(() => read(app, name), (e) => e.version === last.version, `cadence ${cadence}'s weights on each node`);
          assert.deepEqual(weightsOf(served), last.weights);
        }
      }
      const recorded = await reweightsOf(h.storage, name);
      assert.deepEqual(recorded.map((r) => [r.reason, r.version]), [['thompson', 2], ['thompson', 3], ['thompson', 4], ['thompson', 5]]);
      assert.ok(recorded[0]!.weights['feed-2']! > 90, JSON.stringify(recorded[0]!.weights));
      const audit = await auditOf(second!, name);
      assert.deepEqual(audit.map((e) => e.action), ['reweight', 'reweight', 'reweight', 'reweight', 'create']);

      // Everybody keeps their arm, on either node; newcomers on the second node get the new weights.
      for (const [profile, arm] of people) {
        for (const app of nodes()) assert.equal((await choose(app, name, profile)).variation, arm, profile);
      }
      const newcomers = await crowd(second!, name, `${name}-new`, 60, clock);
      assert.ok([...newcomers.values()].filter((a) => a === 'feed-2').length >= 50, 'the second node serves the new weights');
    });

    it('of two looks at the same moment, one reweights; the other\'s write is refused and changes nothing', async () => {
      const name = `same-moment-${driver.name}`;
      clock += 24 * HOUR;
      assert.equal((await put(h.app, feedBandit(name))).statusCode, 201);
      await until(() => read(second!, name).catch(() => null), (e) => e !== null, 'the second node serves the bandit');
      await crowd(h.app, name, name, 60, clock);
      clock += HOUR;
      // The second node's look reads the version and the last reweight, then waits in its results until the first
      // node has reweighted: then it writes what it drew from a view that is no longer the latest.
      let release = (): void => undefined;
      const gate = new Promise<void>((resolve) => { release = resolve; });
      let waiting = (): void => undefined;
      const reading = new Promise<void>((resolve) => { waiting = resolve; });
      class HeldResults extends ResultsService {
        override async compute(...args: Parameters<ResultsService['compute']>) {
          if (args[1].name === name) {
            waiting();
            await gate;
          }
          return super.compute(...args);
        }
      }
      // Its clock is a second ahead of the first node's, as another machine's may be.
      const held = new BanditWatch({ ...second!.svc, results: new HeldResults(second!.svc.storage) }, { now: () => clock + 1000 });
      const late = held.check();
      await reading;
      const first = (await watchOf(h.app, () => clock).check()).filter((r) => r.experience === name);
      release();
      assert.deepEqual((await late).filter((r) => r.experience === name), []);
      assert.equal(first.length, 1);
      const recorded = await reweightsOf(h.storage, name);
      assert.deepEqual(recorded.map((r) => [r.at, r.version, r.weights]), [[clock, 2, first[0]!.weights]]);
      assert.equal((await auditOf(h.app, name)).filter((e) => e.action === 'reweight').length, 1);
      assert.deepEqual(weightsOf(await read(h.app, name)), first[0]!.weights);
    });
  });
}

describe('a node whose view is behind (SQLite, polling once an hour)', () => {
  let clock = Date.parse('2026-12-01T00:00:00.000Z');
  let other: Storage | undefined;
  let behind: FastifyInstance | undefined;
  after(async () => {
    await behind?.close();
    await other?.close();
  });
  const h = useApp(DRIVERS[0]!, () => ({ config: banditConfig(), now: () => clock, banditIntervalMs: 24 * HOUR }));
  before(async () => {
    other = await h.db.open();
    behind = await buildApp({ config: banditConfig(), storage: other, now: () => clock, banditIntervalMs: 24 * HOUR, configPollMs: 3_600_000 });
  });

  it('neither reweights a second time nor undoes a person\'s edit', async () => {
    const name = 'behind';
    clock += 24 * HOUR;
    const started = clock;
    assert.equal((await put(h.app, feedBandit(name))).statusCode, 201);
    await behind!.svc.managed.refresh();
    const seen = (await read(behind!, name)).version;
    await crowd(h.app, name, name, 60, clock);
    const fresh = watchOf(h.app, () => clock);
    const stale = watchOf(behind!, () => clock);

    // The first node reweights; the node behind still has the version before, but reads the reweight's time: not due.
    clock = started + HOUR;
    assert.equal((await fresh.check()).length, 1);
    assert.equal((await read(behind!, name)).version, seen, 'the second node is behind');
    clock += MINUTE;
    assert.deepEqual(await stale.check(), []);

    // A person edits the bandit on the first node; at the next cadence the node behind draws from its old copy first:
    // its write is refused, and the edit stands.
    const edited = feedBandit(name, { minShare: 5 });
    edited.variations = (await read(h.app, name)).variations!.map((v) => (v.name === 'feed-1' ? { ...v, body: { feed: 1, title: 'Bestsellers' } } : v));
    assert.equal((await put(h.app, edited)).statusCode, 200);
    clock = started + 2 * HOUR;
    assert.deepEqual(await stale.check(), []);
    assert.equal((await reweightsOf(h.storage, name)).length, 1);
    const afterEdit = await read(h.app, name);
    assert.deepEqual(afterEdit.bandit?.minShare, 5);

    // Its view caught up when its write was refused; the first node's look reweights from the edited bandit.
    clock += MINUTE;
    const [reweight] = await fresh.check();
    assert.equal(reweight?.experience, name);
    const now = await read(h.app, name);
    assert.equal(now.version, afterEdit.version + 1);
    assert.deepEqual(now.variations![0]!.body, { feed: 1, title: 'Bestsellers' });
    assert.ok(now.variations!.every((v) => v.weight >= 5), JSON.stringify(now.variations));
    assert.deepEqual(await stale.check(), []);
    assert.equal((await reweightsOf(h.storage, name)).length, 2);
  });
});
