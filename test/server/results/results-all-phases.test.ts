// The whole experiment over its phases (`?phase=all`), through the HTTP API on SQLite and PostgreSQL: each phase's
// effect on its own units, combined with inverse-variance weights (server/results/phase-pooling.ts). The profiles'
// ids are fixed, so the assignment hash puts the same units in each variation on every run; the numbers below are
// worked by hand from those counts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
const HOUR = 3_600_000;
const NAME = 'all-phases';

function experiment(weights: [number, number], extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  return {
    name: NAME, goals: ['purchase'],
    variations: [{ name: 'control', weight: weights[0], body: {} }, { name: 'bold', weight: weights[1], body: {} }], ...extra,
  };
}

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [{ name: 'purchase', event: 'Product ordered', type: 'binomial' }];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

for (const driver of DRIVERS) {
  describe(`results over all phases (${driver.name})`, () => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    /** Exposes `count` profiles `prefix0…`; the `nth` unit of a variation purchases when `buys(variation, nth)`. */
    async function phase(app: FastifyInstance, prefix: string, count: number, buys: (variation: string, nth: number) => boolean): Promise<Record<string, number>> {
      const seen: Record<string, number> = {};
      const batch = [];
      for (let i = 0; i < count; i++) {
        const profileId = `${prefix}${i}`;
        const res = await app.inject({
          method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
          payload: { identification: { sourceId: 'web', profileId }, names: [NAME] },
        });
        assert.equal(res.statusCode, 200, res.body);
        const variation = (res.json() as { choices: { variation: string }[] }).choices[0]!.variation;
        const nth = (seen[variation] = (seen[variation] ?? 0) + 1);
        if (buys(variation, nth)) {
          batch.push(makeEvent({ type: 'product', name: 'Product ordered', profileId, timestamp: new Date(clock).toISOString(), data: { productId: 'p1' } }));
        }
      }
      const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch } });
      assert.equal(res.statusCode, 200, res.body);
      return seen;
    }

    async function results(app: FastifyInstance, query = ''): Promise<ResultsAnswer> {
      const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${NAME}/results?apiKey=srv1.s3cret${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as ResultsAnswer;
    }

    it('refuses a phase that is neither a phase number nor all, with 400 invalid_request', async () => {
      const app = h.app;
      const name = 'phase-input';
      assert.equal((await app.inject({ method: 'PUT', url: `${BASE}/experiences/${name}`, headers: ADMIN, payload: experiment([50, 50], { name }) })).statusCode, 201);
      for (const phase of ['All', '0', '-1', '1.5', 'all,1', '']) {
        const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret&phase=${encodeURIComponent(phase)}` });
        assert.equal(res.statusCode, 400, `${phase}: ${res.body}`);
        assert.equal(res.json().error.code, 'invalid_request');
      }
    });

    it('answers ?phase=all: each phase\'s uplift combined with inverse-variance weights, the units of every phase', async () => {
      const app = h.app;
      clock += HOUR;
      assert.equal((await app.inject({ method: 'PUT', url: `${BASE}/experiences/${NAME}`, headers: ADMIN, payload: experiment([50, 50]) })).statusCode, 201);
      const one = await phase(app, 'a', 40, (v, nth) => (v === 'bold' ? nth % 4 !== 0 : nth % 2 === 0));
      clock += HOUR;
      assert.equal((await app.inject({ method: 'PUT', url: `${BASE}/experiences/${NAME}`, headers: ADMIN, payload: experiment([20, 80]) })).statusCode, 200);
      clock += HOUR;
      const two = await phase(app, 'b', 40, (v, nth) => (v === 'bold' ? nth % 2 === 0 : nth % 4 === 0));
      // The hash's split of these ids: phase 1 (50/50) control 23, bold 17; phase 2 (20/80) control 7, bold 33.
      assert.deepEqual([one.control, one.bold, two.control, two.bold], [23, 17, 7, 33]);
      const all = await results(app, '&phase=all');
      assert.deepEqual(all.allPhases, { phases: 2, method: 'inverse-variance' });
      assert.equal(all.phase, 2);
      assert.equal(all.units, 80);
      const [control, bold] = all.metrics[0]!.variations;
      // Purchases: control 11 of 23 then 1 of 7, bold 13 of 17 then 16 of 33.
      assert.deepEqual([control!.units, control!.total, bold!.units, bold!.total], [30, 12, 50, 29]);
      assert.ok(Math.abs(control!.mean! - 0.4) < 1e-9 && Math.abs(bold!.mean! - 0.58) < 1e-9);
      // Per phase, the absolute difference and its variance p(1 − p)/n summed over the two sides:
      const d1 = 13 / 17 - 11 / 23;
      const v1 = (13 / 17) * (4 / 17) / 17 + (11 / 23) * (12 / 23) / 23;
      const d2 = 16 / 33 - 1 / 7;
      const v2 = (16 / 33) * (17 / 33) / 33 + (1 / 7) * (6 / 7) / 7;
      // …combined with weights 1/v: 0.31205 ± 1.959964 × 0.10748 (the naive pool, 0.58 − 0.40 = 0.18, mixes phases).
      const weight = 1 / v1 + 1 / v2;
      const effect = (d1 / v1 + d2 / v2) / weight;
      const se = Math.sqrt(1 / weight);
      assert.ok(Math.abs(bold!.absolute!.effect! - effect) < 1e-9, `effect ${bold!.absolute!.effect}`);
      assert.ok(Math.abs(effect - 0.31205) < 1e-5);
      const [low, high] = bold!.absolute!.ci!;
      assert.ok(Math.abs(low - (effect - 1.959964 * se)) < 1e-6 && Math.abs(high - (effect + 1.959964 * se)) < 1e-6, `ci ${low} ${high}`);
      assert.ok(Math.abs(bold!.absolute!.pValue! - 0.0036935) < 1e-6, `p ${bold!.absolute!.pValue}`);
      assert.equal(bold!.absolute!.significant, true);
      // The split against what each phase's weights expect: control 20 + 8 = 28, bold 20 + 32 = 52;
      // χ² = 2²/28 + 2²/52 = 0.21978, 1 df.
      assert.ok(Math.abs(all.srm.pValue! - 0.63921) < 1e-4, `srm ${all.srm.pValue}`);

      // ?phase=N and the default still answer one phase, exactly as before.
      const first = await results(app, '&phase=1');
      const current = await results(app);
      assert.equal(first.allPhases, undefined);
      assert.deepEqual([first.phase, first.units, current.phase, current.units], [1, 40, 2, 40]);
      assert.ok(Math.abs(first.metrics[0]!.variations[1]!.absolute!.effect! - d1) < 1e-9);
      assert.ok(Math.abs(current.metrics[0]!.variations[1]!.absolute!.effect! - d2) < 1e-9);
    });
  });
}
