// A bandit over two feeds run end to end on one node, SQLite and PostgreSQL: people served through the Choose API, their
// orders sent to /track, and the bandit watch looked through with the app's clock pinned and moved across cadences. It
// explores with equal weights first, then reweights once per cadence toward the feed that sells; nobody already
// assigned moves; a stop, a winner or a switch to fixed weights ends its reweights; a reweight that cannot be recorded
// changes nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DRIVERS } from '../helpers/storage-drivers.js';
import {
  auditOf, banditConfig, choose, crowd, feedBandit, HOUR, MINUTE, put, read, reweightsOf, watchOf, weightsOf,
} from '../helpers/bandit-scenario.js';
import { readPhases } from '../../../server/phases/phase-store.js';
import { useApp } from '../helpers/use-test-app.js';
import { refuseReweights } from '../helpers/refuse-reweights.js';

for (const driver of DRIVERS) {
  describe(`a bandit's reweights on one node (${driver.name})`, () => {
    let clock = Date.parse('2026-12-01T00:00:00.000Z');
    // The app's own watch would look with the same clock whenever its timer fires: kept out of the way.
    const h = useApp(driver, () => ({ config: banditConfig(), now: () => clock, banditIntervalMs: 24 * HOUR }));
    // The reweights of these bandits the watch made in one look (the other tests' bandits are due at times too).
    const look = async (...names: string[]) => (await watchOf(h.app, () => clock).check()).filter((r) => names.includes(r.experience));

    it('explores with equal weights, then reweights once per cadence toward the better feed, each recorded', async () => {
      const name = `feeds-${driver.name}`;
      clock += 24 * HOUR;
      const started = clock;
      const created = await put(h.app, feedBandit(name, { explorationHours: 2, explorationUnits: 40 }, [70, 30]));
      assert.equal(created.statusCode, 201, created.body);

      // Exploring: the weights a person typed are set equal at the first look, and stay so.
      clock += MINUTE;
      assert.deepEqual((await look(name)).map((r) => [r.experience, r.reason, r.weights]), [[name, 'exploration', { 'feed-1': 50, 'feed-2': 50 }]]);
      assert.deepEqual(weightsOf(await read(h.app, name)), { 'feed-1': 50, 'feed-2': 50 });
      clock += MINUTE;
      assert.deepEqual(await look(name), []);
      const arms = await crowd(h.app, name, name, 100, clock);
      assert.ok([...arms.values()].filter((a) => a === 'feed-2').length > 30, 'both feeds were served');
      // A cadence has passed, but not the exploration's two hours: nothing.
      clock = started + 90 * MINUTE;
      assert.deepEqual(await look(name), []);

      clock = started + 2 * HOUR;
      const [first, ...more] = await look(name);
      assert.equal(more.length, 0);
      assert.equal(first?.reason, 'thompson');
      assert.ok(first.weights['feed-2']! > 90, JSON.stringify(first.weights));
      assert.equal(first.weights['feed-1']! + first.weights['feed-2']!, 100);
      // Looks within the cadence do nothing; the next cadence reweights once more.
      for (const minutes of [1, 30, 59]) {
        clock = started + 2 * HOUR + minutes * MINUTE;
        assert.deepEqual(await look(name), [], `${minutes} minutes after the reweight`);
      }
      clock = started + 3 * HOUR;
      assert.deepEqual((await look(name)).map((r) => r.reason), ['thompson']);
      assert.deepEqual(await look(name), []);

      const recorded = await reweightsOf(h.storage, name);
      assert.deepEqual(recorded.map((r) => [r.at - started, r.reason, r.version]), [
        [MINUTE, 'exploration', 2], [2 * HOUR, 'thompson', 3], [3 * HOUR, 'thompson', 4],
      ]);
      const thompson = recorded[1]!;
      assert.deepEqual(thompson.weights, first.weights);
      assert.deepEqual(thompson.arms.map((a) => a.name), ['feed-1', 'feed-2']);
      assert.deepEqual(thompson.arms.map((a) => a.units), ['feed-1', 'feed-2'].map((arm) => [...arms.values()].filter((a) => a === arm).length));
      assert.ok(thompson.arms[1]!.mean! > thompson.arms[0]!.mean!, JSON.stringify(thompson.arms));
      assert.ok(thompson.arms[1]!.probabilityBest > 0.9, JSON.stringify(thompson.arms));
      assert.ok(thompson.arms.every((a) => a.stddev! > 0));

      const served = await read(h.app, name);
      assert.deepEqual(weightsOf(served), recorded[2]!.weights);
      assert.equal(served.version, 4);
      assert.deepEqual((await readPhases(h.storage, 'acme/shop', name)).map((p) => p.reason), ['started'], 'a reweight is no phase');
      const audit = await auditOf(h.app, name);
      assert.deepEqual(audit.map((e) => [e.action, e.keyId, e.actor.name]), [
        ['reweight', 'service', 'svc bandit'], ['reweight', 'service', 'svc bandit'], ['reweight', 'service', 'svc bandit'], ['create', 'adm1', 'adm1'],
      ]);
      assert.deepEqual(weightsOf(audit[0]!.after), recorded[2]!.weights);
      const metrics = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, new RegExp(`svc_bandit_reweights_total\\{project="acme/shop",experience="${name}",reason="thompson"\\} 2\\n`));
      assert.match(metrics, new RegExp(`svc_bandit_reweights_total\\{project="acme/shop",experience="${name}",reason="exploration"\\} 1\\n`));
    });

    it('keeps exploring while fewer units than explorationUnits were exposed, however many cadences pass', async () => {
      const name = `few-units-${driver.name}`;
      clock += 24 * HOUR;
      assert.equal((await put(h.app, feedBandit(name, { explorationUnits: 500 }))).statusCode, 201);
      await crowd(h.app, name, name, 60, clock);
      for (let hour = 1; hour <= 3; hour++) {
        clock += HOUR;
        assert.deepEqual(await look(name), []);
      }
      assert.deepEqual(await reweightsOf(h.storage, name), []);
      assert.deepEqual(weightsOf(await read(h.app, name)), { 'feed-1': 50, 'feed-2': 50 });
    });

    it('moves nobody already assigned: a person keeps their feed after it falls to the floor, new people go to the winner', async () => {
      const name = `sticky-${driver.name}`;
      clock += 24 * HOUR;
      assert.equal((await put(h.app, feedBandit(name, { minShare: 1 }))).statusCode, 201);
      const before = await crowd(h.app, name, name, 200, clock);
      clock += HOUR;
      const [reweight] = await look(name);
      assert.deepEqual(reweight?.weights, { 'feed-1': 1, 'feed-2': 99 }, 'feed-1 fell to its floor');

      const onFeed1 = [...before].filter(([, arm]) => arm === 'feed-1').map(([profile]) => profile);
      assert.ok(onFeed1.length > 60, `${onFeed1.length} people were on feed-1`);
      for (const [profile, arm] of before) {
        const again = await choose(h.app, name, profile);
        assert.equal(again.variation, arm, `${profile} kept ${arm}`);
        assert.equal(again.body?.feed, arm === 'feed-1' ? 1 : 2);
      }
      const newcomers = await crowd(h.app, name, `${name}-new`, 100, clock);
      assert.ok([...newcomers.values()].filter((a) => a === 'feed-2').length >= 90, 'the new weights serve the newcomers');
    });

    it('stops reweighting a bandit once it is stopped, ships a winner or switches to fixed weights', async () => {
      clock += 24 * HOUR;
      const names = ['stopped', 'shipped', 'fixed'].map((what) => `${what}-${driver.name}`);
      for (const name of names) {
        assert.equal((await put(h.app, feedBandit(name))).statusCode, 201);
        await crowd(h.app, name, name, 40, clock);
      }
      clock += HOUR;
      assert.deepEqual((await look(...names)).map((r) => r.experience).sort(), [...names].sort());
      const ended = [
        { ...feedBandit(names[0]!), status: 'stopped' as const },
        { ...feedBandit(names[1]!), status: 'stopped' as const, winner: 'feed-2' },
        { ...feedBandit(names[2]!), allocation: 'fixed' as const, bandit: undefined },
      ];
      for (const item of ended) {
        const res = await put(h.app, { ...item, variations: (await read(h.app, item.name)).variations! });
        assert.equal(res.statusCode, 200, res.body);
      }
      for (let hour = 1; hour <= 3; hour++) {
        clock += HOUR;
        assert.deepEqual(await look(...names), []);
      }
      for (const name of names) assert.equal((await reweightsOf(h.storage, name)).length, 1, name);
      assert.equal((await read(h.app, names[0]!)).status, 'stopped');
      assert.equal((await read(h.app, names[2]!)).allocation, 'fixed');
    });

    it('changes nothing when a reweight cannot be recorded, and reweights at the next look once it can', async () => {
      const name = `refused-${driver.name}`;
      clock += 24 * HOUR;
      assert.equal((await put(h.app, feedBandit(name))).statusCode, 201);
      await crowd(h.app, name, name, 40, clock);
      const before = await read(h.app, name);
      const auditBefore = await auditOf(h.app, name);
      clock += HOUR;
      const allow = await refuseReweights(h.storage, driver.name);
      try {
        assert.deepEqual(await look(name), []);
      } finally {
        await allow();
      }
      // The weights, the version, the audit and the reweights are as they were: the write was one transaction.
      const after = await read(h.app, name);
      assert.deepEqual([after.version, weightsOf(after)], [before.version, weightsOf(before)]);
      assert.deepEqual(await auditOf(h.app, name), auditBefore);
      assert.deepEqual(await reweightsOf(h.storage, name), []);

      clock += MINUTE;
      assert.deepEqual((await look(name)).map((r) => [r.experience, r.reason]), [[name, 'thompson']]);
      assert.equal((await read(h.app, name)).version, before.version + 1);
    });
  });
}
