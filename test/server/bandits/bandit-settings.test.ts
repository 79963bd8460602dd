// A bandit's settings through the management API (SQLite and PostgreSQL): every bad setting is a 400 naming the field
// and changes nothing; a bandit's weights moving keeps its phase, while a person switching allocation starts one; a
// reweight write is recorded beside the experience, in its transaction.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { writeItem, type Item } from '../../../server/management/managed-item-store.js';
import { readPhases } from '../../../server/phases/phase-store.js';
import { readReweights } from '../../../server/phases/reweight-store.js';
import { thompsonWeights } from '../../../server/bandits/thompson-weights.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'purchase', event: 'Product ordered', type: 'binomial' },
    { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
  ];
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

function bandit(extra: Partial<ExperienceConfig> = {}, arms = 2): ExperienceConfig {
  const variations = Array.from({ length: arms }, (_, i) => ({ name: `arm${i}`, weight: 100 / arms, body: { arm: i } }));
  return { name: 'headline', variations, goals: ['purchase', 'revenue'], allocation: 'bandit', bandit: { cadenceMinutes: 60 }, ...extra };
}

for (const driver of DRIVERS) {
  describe(`bandit settings (${driver.name})`, () => {
    const h = useApp(driver, () => ({ config: config() }));

    const put = (app: FastifyInstance, item: ExperienceConfig) => app.inject({ method: 'PUT', url: `${BASE}/experiences/${item.name}`, headers: ADMIN, payload: item });

    it('refuses each bad setting with 400 invalid_config naming the field, and stores nothing', async () => {
      const app = h.app;
      const cases: [ExperienceConfig, string][] = [
        [bandit({ allocation: 'greedy' as 'bandit' }), 'experience.allocation'],
        [bandit({ bandit: { metric: 'signup' } }), 'bandit.metric'],
        [bandit({ goals: ['purchase'], bandit: { metric: 'revenue' } }), 'bandit.metric'],
        [bandit({ goals: undefined }), 'goals'],
        [bandit({ bandit: { cadenceMinutes: 4 } }), 'bandit.cadenceMinutes'],
        [bandit({ bandit: { minShare: 30 } }, 4), 'bandit.minShare'],
        [bandit({ bandit: { explorationUnits: 1.5 } }), 'bandit.explorationUnits'],
        [bandit({ bandit: { explorationHours: -1 } }), 'bandit.explorationHours'],
        [bandit({ bandit: { speed: 2 } as ExperienceConfig['bandit'] }), 'bandit.speed'],
        [bandit({ allocation: 'fixed' }), 'experience.bandit'],
      ];
      for (const [item, field] of cases) {
        const res = await put(app, { ...item, name: 'refused' });
        assert.equal(res.statusCode, 400, `${field}: ${res.body}`);
        const body = res.json() as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'invalid_config');
        assert.match(body.error.message, new RegExp(field.replace('.', '\\.')), body.error.message);
      }
      const read = await app.inject({ method: 'GET', url: `${BASE}/experiences/refused`, headers: ADMIN });
      assert.equal(read.statusCode, 404);
    });

    it('accepts a bandit deciding by its first goal, or by another goal it names', async () => {
      const app = h.app;
      assert.equal((await put(app, bandit({ name: 'by-goal', bandit: undefined }))).statusCode, 201);
      const res = await put(app, bandit({ name: 'by-goal', bandit: { metric: 'revenue', minShare: 25, explorationUnits: 100, explorationHours: 0 } }, 4));
      assert.equal(res.statusCode, 200, res.body);
      assert.deepEqual((res.json() as ExperienceConfig).bandit, { metric: 'revenue', minShare: 25, explorationUnits: 100, explorationHours: 0 });
    });

    it('a reweight moves the weights without a phase, and is recorded in the write; switching allocation starts one', async () => {
      const app = h.app;
            assert.equal((await put(app, bandit())).statusCode, 201);
      const drawn = thompsonWeights([{ name: 'arm0', mean: 0.05, stddev: 0.01 }, { name: 'arm1', mean: 0.07, stddev: 0.01 }], { minShare: 1, seed: 't' });
      const moved = bandit({ variations: bandit().variations!.map((v) => ({ ...v, weight: drawn.weights[v.name] as number })) });
      const at = Date.now();
      const outcome = await writeItem(h.storage, {
        project: 'acme/shop', kind: 'experience', name: 'headline', item: moved as unknown as Item, fileItem: null, ifMatch: 1,
        keyId: 'service', at, action: 'reweight',
        reweight: { weights: drawn.weights, reason: 'thompson', arms: [
          { name: 'arm0', units: 10, mean: 0.05, stddev: 0.01, probabilityBest: drawn.probabilityBest.arm0 as number },
          { name: 'arm1', units: 10, mean: 0.07, stddev: 0.01, probabilityBest: drawn.probabilityBest.arm1 as number },
        ] },
      });
      assert.equal(outcome.version, 2);
      const reweights = await readReweights(h.storage, 'acme/shop', 'headline');
      assert.deepEqual(reweights.map((r) => [r.at, r.version, r.reason, r.weights]), [[at, 2, 'thompson', drawn.weights]]);
      assert.equal((await readPhases(h.storage, 'acme/shop', 'headline')).length, 1, 'a reweight is not a phase');

      // A stale reweight (another node moved it first) changes nothing.
      await assert.rejects(writeItem(h.storage, {
        project: 'acme/shop', kind: 'experience', name: 'headline', item: moved as unknown as Item, fileItem: null, ifMatch: 1,
        keyId: 'service', at: at + 1, action: 'reweight', reweight: { weights: drawn.weights, reason: 'thompson', arms: [] },
      }), /version/);
      assert.equal((await readReweights(h.storage, 'acme/shop', 'headline')).length, 1);

      const fixed = await put(app, { ...moved, allocation: 'fixed', bandit: undefined });
      assert.equal(fixed.statusCode, 200, fixed.body);
      const phases = await readPhases(h.storage, 'acme/shop', 'headline');
      assert.deepEqual(phases.map((p) => p.reason), ['started', 'allocation bandit → fixed']);
    });

    it('a person moving a running bandit\'s weights is recorded as a manual reweight, not a phase', async () => {
      const app = h.app;
      assert.equal((await put(app, bandit({ name: 'by-hand' }))).statusCode, 201);
      const moved = bandit({ name: 'by-hand', variations: [{ name: 'arm0', weight: 30, body: { arm: 0 } }, { name: 'arm1', weight: 70, body: { arm: 1 } }] });
      assert.equal((await put(app, moved)).statusCode, 200);
      assert.equal((await put(app, { ...moved, secondary: ['revenue'], goals: ['purchase'] })).statusCode, 200, 'an edit that keeps the weights');
      const reweights = await readReweights(h.storage, 'acme/shop', 'by-hand');
      assert.deepEqual(reweights.map((r) => [r.reason, r.weights, r.version, r.arms]), [['manual', { arm0: 30, arm1: 70 }, 2, []]]);
      assert.deepEqual((await readPhases(h.storage, 'acme/shop', 'by-hand')).map((p) => p.reason), ['started']);
    });
  });
}
