// A bandit's results through the HTTP API on SQLite and PostgreSQL: its units analysed in the periods between its
// reweights (server/results/bandit-periods.ts, stratified-estimate.ts), so that the arm given more traffic when
// everybody converted more does not win by the calendar; its split tested against each period's weights; its reweights
// listed. The profiles' ids are fixed, so the assignment hash puts the same units in each arm on every run; the
// expected figures are worked from the counts each test sees.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import jStatModule from 'jstat';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { thompsonWeights } from '../../../server/bandits/thompson-weights.js';
import { writeItem, type Item } from '../../../server/management/managed-item-store.js';
import { readPhases } from '../../../server/phases/phase-store.js';
import { armPosteriors } from '../../../server/results/bandit-arms.js';
import { sampleRatioMismatch } from '../../../server/results/statistics.js';
import type { BanditArm, ResultsAnswer } from '../../../wire/results-answer.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp, type AppHandle } from '../helpers/use-test-app.js';

const { jStat } = jStatModule;
const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
const HOUR = 3_600_000;
const Z = 1.959963984540054;

function experiment(name: string, weights: [number, number], extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  return {
    name, goals: ['purchase'], allocation: 'bandit', bandit: { metric: 'purchase' },
    variations: [{ name: 'control', weight: weights[0], body: {} }, { name: 'bold', weight: weights[1], body: {} }], ...extra,
  };
}

const FROM_FILE = experiment('from-file', [50, 50]);

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'purchase', event: 'Product ordered', type: 'binomial' },
    { name: 'visits', event: 'Page viewed', type: 'count' },
    { name: 'orders-per-visit', type: 'ratio', numerator: 'purchase', denominator: 'visits' },
  ];
  shop.experiences = [...(shop.experiences ?? []), FROM_FILE];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

const close = (actual: number | null | undefined, expected: number, what: string, tolerance = 1e-9): void => {
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) <= tolerance, `${what}: ${actual} ≠ ${expected}`);
};

/** Converted units of an arm whose `nth` unit converts when `buys(nth)`. */
function converted(units: number, buys: (nth: number) => boolean): number {
  let count = 0;
  for (let nth = 1; nth <= units; nth++) if (buys(nth)) count++;
  return count;
}

for (const driver of DRIVERS) {
  describe(`a bandit's results (${driver.name})`, () => {
    let clock = Date.parse('2026-11-02T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    /** Exposes `count` profiles `prefix0…` to `name`; the `nth` unit of an arm purchases when `buys(arm, nth)`. */
    async function expose(app: FastifyInstance, name: string, prefix: string, count: number, buys: (arm: string, nth: number) => boolean) {
      const seen: Record<string, number> = { control: 0, bold: 0 };
      const batch = [];
      for (let i = 0; i < count; i++) {
        const profileId = `${prefix}${i}`;
        const res = await app.inject({
          method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
          payload: { identification: { sourceId: 'web', profileId }, names: [name] },
        });
        assert.equal(res.statusCode, 200, res.body);
        const arm = (res.json() as { choices: { variation: string }[] }).choices[0]!.variation;
        const nth = (seen[arm] = (seen[arm] ?? 0) + 1);
        if (buys(arm, nth)) {
          batch.push(makeEvent({ type: 'product', name: 'Product ordered', profileId, timestamp: new Date(clock).toISOString(), data: { productId: 'p1' } }));
        }
      }
      if (batch.length > 0) {
        const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch } });
        assert.equal(res.statusCode, 200, res.body);
      }
      return seen as { control: number; bold: number };
    }

    /** A reweight as the bandit's job writes one: the recorded weights, and those the experience serves from then. */
    async function reweight(handle: AppHandle, item: ExperienceConfig, ifMatch: number, recorded: Record<string, number>, fileItem: ExperienceConfig | null = null) {
      const arms: BanditArm[] = Object.keys(recorded).map((name) => ({ name, units: 0, mean: null, stddev: null, probabilityBest: 0 }));
      await writeItem(handle.storage, {
        project: 'acme/shop', kind: 'experience', name: item.name, item: item as unknown as Item, fileItem: fileItem as unknown as Item | null,
        ifMatch, keyId: 'service', at: clock, action: 'reweight', reweight: { weights: recorded, reason: 'thompson', arms },
      });
      await handle.app.svc.managed.refresh();
    }

    async function results(app: FastifyInstance, name: string, query = ''): Promise<ResultsAnswer> {
      const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as ResultsAnswer;
    }

    it('stratifies by the periods between reweights: the arm better in every period wins, though pooled it loses', async () => {
      const app = h.app;
      const name = 'simpson';
      clock += HOUR;
      assert.equal((await app.inject({ method: 'PUT', url: `${BASE}/experiences/${name}`, headers: ADMIN, payload: experiment(name, [50, 50]) })).statusCode, 201);
      // Period 1 (50/50): control converts 20 %, bold 10 %.
      const buys1 = { control: (nth: number) => nth % 5 === 0, bold: (nth: number) => nth % 10 === 0 };
      const one = await expose(app, name, 'a', 200, (arm, nth) => buys1[arm as 'control'](nth));
      clock += HOUR;
      const reweightAt = clock;
      await reweight(h, experiment(name, [10, 90]), 1, { control: 10, bold: 90 });
      clock += HOUR;
      // Period 2 (10/90), when everybody converts more: control 60 %, bold 50 %.
      const buys2 = { control: (nth: number) => nth % 5 >= 1 && nth % 5 <= 3, bold: (nth: number) => nth % 2 === 0 };
      const two = await expose(app, name, 'b', 200, (arm, nth) => buys2[arm as 'control'](nth));

      const answer = await results(app, name);
      const [control, bold] = answer.metrics[0]!.variations;
      const c = [converted(one.control, buys1.control), converted(two.control, buys2.control)];
      const b = [converted(one.bold, buys1.bold), converted(two.bold, buys2.bold)];
      // Pooled over the calendar, bold looks better: it got most of the second period's traffic.
      close(control!.mean, (c[0]! + c[1]!) / (one.control + two.control), 'raw control mean');
      close(bold!.mean, (b[0]! + b[1]!) / (one.bold + two.bold), 'raw bold mean');
      assert.ok(bold!.mean! > control!.mean!, `pooled, bold wins: ${bold!.mean} > ${control!.mean}`);
      // By period (w = each period's share of all units), control is better in each and wins.
      const w = [(one.control + one.bold) / 400, (two.control + two.bold) / 400];
      const mean = (x: number[], n: number[]): number => w[0]! * (x[0]! / n[0]!) + w[1]! * (x[1]! / n[1]!);
      const variance = (x: number[], n: number[]): number => [0, 1].reduce((sum, p) => {
        const m = x[p]! / n[p]!;
        return sum + (w[p]! ** 2 * (n[p]! / (n[p]! - 1)) * m * (1 - m)) / n[p]!;
      }, 0);
      const nc = [one.control, two.control];
      const nb = [one.bold, two.bold];
      const [mc, mb, vc, vb] = [mean(c, nc), mean(b, nb), variance(c, nc), variance(b, nb)];
      close(control!.stratified!.mean, mc, 'stratified control');
      close(bold!.stratified!.mean, mb, 'stratified bold');
      close(bold!.stratified!.standardError, Math.sqrt(vb), 'standard error');
      assert.ok(mc > mb, `stratified, control wins: ${mc} > ${mb}`);
      const uplift = (mb - mc) / mc;
      const v = vb / mc ** 2 + (mb ** 2 * vc) / mc ** 4;
      close(bold!.uplift, uplift, 'uplift');
      close(bold!.ci![0], uplift - Z * Math.sqrt(v), 'ci low', 1e-7);
      close(bold!.ci![1], uplift + Z * Math.sqrt(v), 'ci high', 1e-7);
      close(bold!.absolute!.effect, mb - mc, 'absolute effect');
      close(bold!.absolute!.ci![0], mb - mc - Z * Math.sqrt(vb + vc), 'absolute ci low', 1e-7);
      assert.equal(answer.analysis.correction, 'holm-bonferroni', 'a bandit corrects across its challengers by default');
      assert.deepEqual(answer.variations.map((x) => x.weight), [10, 90], 'the weights now');

      // Thompson sampling reads the stratified posteriors, and sends most traffic to the control.
      const arms = armPosteriors(answer, 'purchase');
      assert.deepEqual(arms.map((a) => [a.name, a.units, a.probabilityBest]), [['control', one.control + two.control, 0], ['bold', one.bold + two.bold, 0]]);
      close(arms[0]!.mean, mc, 'posterior mean');
      close(arms[0]!.stddev, Math.sqrt(vc), 'posterior stddev');
      const drawn = thompsonWeights(arms, { minShare: 1, seed: 'simpson' });
      assert.ok(drawn.weights.control! > drawn.weights.bold!, JSON.stringify(drawn.weights));

      // The split against each period's weights: 200 × 50 % + 200 × 10 % for the control.
      const expected = [w[0]! * 400 * 0.5 + w[1]! * 400 * 0.1, w[0]! * 400 * 0.5 + w[1]! * 400 * 0.9];
      const units = [one.control + two.control, one.bold + two.bold];
      const chi2 = units.reduce((sum, u, k) => sum + (u - expected[k]!) ** 2 / expected[k]!, 0);
      close(answer.srm.pValue, 1 - jStat.chisquare.cdf(chi2, 1), 'srm p-value', 1e-9);
      assert.equal(answer.srm.expected, 'per-period');
      assert.equal(answer.srm.mismatch, false);
      assert.equal(sampleRatioMismatch(units, [10, 90]).mismatch, true, 'against the weights now alone, the split would be a mismatch');
      assert.equal(answer.bandit!.metric, 'purchase');
      assert.deepEqual([answer.bandit!.periods, answer.bandit!.strata], [2, 2]);
      close(answer.bandit!.expectedUnits.bold, expected[1]!, 'expected bold units');
      assert.deepEqual(answer.reweights, [{
        at: new Date(reweightAt).toISOString(), weights: { control: 10, bold: 90 }, reason: 'thompson',
        arms: [{ name: 'control', units: 0, mean: null, stddev: null, probabilityBest: 0 }, { name: 'bold', units: 0, mean: null, stddev: null, probabilityBest: 0 }],
      }]);
      // Over every phase (one here): the same reweights and the same effect.
      const all = await results(app, name, '&phase=all');
      assert.equal(all.reweights?.length, 1);
      close(all.metrics[0]!.variations[1]!.absolute!.effect, mb - mc, 'all phases: absolute effect');
      close(all.srm.pValue, answer.srm.pValue!, 'all phases: srm');
    });

    it('finds a sample ratio mismatch in a period served with other weights than the reweight recorded', async () => {
      const app = h.app;
      const name = 'stale-weights';
      clock += HOUR;
      assert.equal((await app.inject({ method: 'PUT', url: `${BASE}/experiences/${name}`, headers: ADMIN, payload: experiment(name, [50, 50]) })).statusCode, 201);
      await expose(app, name, 'c', 100, () => false);
      clock += HOUR;
      // Recorded as 10/90, but the experience still serves 50/50 (a node that never took the new weights).
      await reweight(h, experiment(name, [50, 50]), 1, { control: 10, bold: 90 });
      clock += HOUR;
      await expose(app, name, 'd', 200, () => false);
      const answer = await results(app, name);
      assert.equal(answer.srm.expected, 'per-period');
      assert.equal(answer.srm.mismatch, true, `p ${answer.srm.pValue}`);
    });

    it('records the phase of a bandit from the file at its first reweight, so its first period keeps the file\'s weights', async () => {
      const app = h.app;
      clock += HOUR;
      const before = await expose(app, FROM_FILE.name, 'e', 60, () => false);
      clock += HOUR;
      await reweight(h, experiment(FROM_FILE.name, [20, 80]), 1, { control: 20, bold: 80 }, FROM_FILE);
      const phases = await readPhases(h.storage, 'acme/shop', FROM_FILE.name);
      assert.deepEqual(phases.map((p) => [p.phase, p.startedAt, p.endedAt, p.weights, p.reason]), [[1, null, null, { control: 50, bold: 50 }, 'started']]);
      clock += HOUR;
      const after = await expose(app, FROM_FILE.name, 'f', 100, () => false);
      const answer = await results(app, FROM_FILE.name);
      assert.equal(answer.units, 160);
      assert.equal(before.control + before.bold, 60);
      close(answer.bandit!.expectedUnits.control, 60 * 0.5 + (after.control + after.bold) * 0.2, 'expected control units');
    });

    it('keeps a fixed experiment\'s answer as it was: no periods, no reweights, no stratified means, no default correction', async () => {
      const app = h.app;
      const name = 'fixed-split';
      clock += HOUR;
      const fixed = experiment(name, [50, 50], { allocation: undefined, bandit: undefined });
      assert.equal((await app.inject({ method: 'PUT', url: `${BASE}/experiences/${name}`, headers: ADMIN, payload: fixed })).statusCode, 201);
      await expose(app, name, 'g', 40, (_, nth) => nth % 3 === 0);
      const answer = await results(app, name);
      assert.equal(answer.reweights, undefined);
      assert.equal(answer.bandit, undefined);
      assert.equal(answer.srm.expected, undefined);
      assert.equal(answer.analysis.correction, 'none');
      assert.ok(answer.metrics[0]!.variations.every((v) => v.stratified === undefined));
      assert.equal(typeof answer.metrics[0]!.variations[1]!.pValue, 'number');
    });

    it('refuses a ratio metric as the decision metric with 400 invalid_config naming bandit.metric, and stores nothing', async () => {
      const app = h.app;
      const cases = [
        experiment('ratio-named', [50, 50], { goals: ['purchase', 'orders-per-visit'], bandit: { metric: 'orders-per-visit' } }),
        experiment('ratio-first', [50, 50], { goals: ['orders-per-visit', 'purchase'], bandit: {} }),
      ];
      for (const item of cases) {
        const res = await app.inject({ method: 'PUT', url: `${BASE}/experiences/${item.name}`, headers: ADMIN, payload: item });
        assert.equal(res.statusCode, 400, res.body);
        const { error } = res.json() as { error: { code: string; message: string } };
        assert.equal(error.code, 'invalid_config');
        assert.match(error.message, /bandit\.metric/);
        assert.match(error.message, /ratio/);
        assert.equal((await app.inject({ method: 'GET', url: `${BASE}/experiences/${item.name}`, headers: ADMIN })).statusCode, 404);
      }
    });
  });
}
