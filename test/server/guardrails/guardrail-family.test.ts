// The guardrails' tests through the HTTP API and the watch, on SQLite and PostgreSQL: the automatic stop corrects for
// its family of guardrail × challenger tests (Holm–Bonferroni) and records the adjusted p-value and the family; the
// harm test uses the experiment's `sequentialTuning` whether or not its intervals are sequential, and the answer says
// which test and tuning; guardrails stay out of the correction's family when the experiment names no goals. Units come
// from Choose answers and values from tracked events, through the service's own endpoints.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import { GuardrailWatch } from '../../../server/guardrails/guardrail-watch.js';
import { oneSidedSequential } from '../../../server/results/inference.js';
import { ResultsService } from '../../../server/results/results-service.js';
import { compare, type Moments } from '../../../server/results/statistics.js';
import type { ServiceContext } from '../../../server/service-context.js';
import type { ServiceEvent } from '../../../wire/event.js';
import type { ResultsAnswer, VariationStats } from '../../../wire/results-answer.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };

function experiment(name: string, weights: number[], extra: Partial<ExperienceConfig> = {}): ExperienceConfig {
  const names = ['control', 'bold', 'calm'];
  return { name, variations: weights.map((weight, i) => ({ name: names[i] as string, weight, body: { v: names[i] } })), ...extra };
}

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'purchase', event: 'Product ordered', type: 'binomial' },
    { name: 'errors', event: 'Error shown', type: 'binomial', inverse: true },
    { name: 'refunds', event: 'Refund issued', type: 'binomial', inverse: true },
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

/** A binomial variation's moments from its counts. */
function binomial(units: number, converted: number): Moments {
  const mean = converted / units;
  return { units, total: converted, mean, stddev: Math.sqrt(mean * (1 - mean)) };
}

/** The smallest number of a challenger's units with an error that makes its harm test's p-value fall below `below`. */
function errorsFor(control: Moments, units: number, below: number): number {
  for (let errors = 0; errors <= units; errors++) {
    const p = compare(control, binomial(units, errors), { alpha: 0.05, guardrail: true, inverse: true }).harm?.pValue;
    if (typeof p === 'number' && p < below) return errors;
  }
  throw new Error(`no number of errors makes p < ${below}`);
}

for (const driver of DRIVERS) {
  describe(`guardrail tests and their family (${driver.name})`, () => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    async function expose(app: FastifyInstance, name: string, profileId: string): Promise<string> {
      const res = await app.inject({
        method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
        payload: { identification: { sourceId: 'web', profileId }, names: [name], device: 'desktop' },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { choices: { name: string; variation?: string }[] }).choices.find((c) => c.name === name)?.variation as string;
    }

    /** Exposes `count` people; answers them by variation. */
    async function exposeAll(app: FastifyInstance, name: string, count: number): Promise<Map<string, string[]>> {
      const byVariation = new Map<string, string[]>();
      for (let i = 0; i < count; i++) {
        const profile = `${name}-${i}`;
        const variation = await expose(app, name, profile);
        byVariation.set(variation, [...(byVariation.get(variation) ?? []), profile]);
      }
      return byVariation;
    }

    async function track(app: FastifyInstance, name: string, profiles: readonly string[]): Promise<void> {
      clock += 1000;
      const batch: ServiceEvent[] = profiles.map((profileId) => makeEvent({
        type: 'track', name, profileId, timestamp: new Date(clock).toISOString(), data: {},
      }));
      const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch } });
      assert.equal(res.statusCode, 200, res.body);
    }

    async function put(app: FastifyInstance, item: ExperienceConfig): Promise<void> {
      const res = await app.inject({ method: 'PUT', url: `${BASE}/experiences/${item.name}`, headers: ADMIN, payload: item });
      assert.equal(res.statusCode, 201, res.body);
    }

    async function results(app: FastifyInstance, name: string, query = ''): Promise<ResultsAnswer> {
      const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as ResultsAnswer;
    }

    async function status(app: FastifyInstance, name: string): Promise<{ status: string; stoppedBy?: Record<string, unknown> }> {
      return (await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}`, headers: ADMIN })).json();
    }

    function watchOf(app: FastifyInstance): GuardrailWatch {
      const svc = (app as unknown as { svc: ServiceContext }).svc;
      return new GuardrailWatch({ ...svc, results: new ResultsService(svc.storage) }, { now: () => clock });
    }

    const harmOf = (answer: ResultsAnswer, metric: string, variation: string): VariationStats =>
      answer.metrics.find((m) => m.name === metric)!.variations.find((v) => v.name === variation)!;

    it('stops only when a harm test is below alpha once corrected for 2 guardrails × 2 challengers, and records how', async () => {
      const app = h.app;
      const name = `family-${driver.name}`;
      clock += 3_600_000;
      await put(app, experiment(name, [34, 33, 33], { guardrails: ['errors', 'refunds'] }));
      const people = await exposeAll(app, name, 600);
      const [control, bold, calm] = ['control', 'bold', 'calm'].map((v) => people.get(v) ?? []) as [string[], string[], string[]];
      // 5 % of control and of calm see an error; bold enough for a harm p-value between alpha / 4 and alpha.
      const base = Math.round(control.length / 20);
      const controlMoments = binomial(control.length, base);
      const weak = errorsFor(controlMoments, bold.length, 0.045);
      await track(app, 'Error shown', [...control.slice(0, base), ...calm.slice(0, Math.round(calm.length / 20)), ...bold.slice(0, weak)]);

      const before = await results(app, name);
      const weakP = harmOf(before, 'errors', 'bold').harm?.pValue as number;
      assert.ok(weakP > 0.0125 && weakP < 0.05, `the harm test alone would stop: p = ${weakP}`);
      assert.equal(harmOf(before, 'errors', 'bold').harm?.harmed, true, 'the answer keeps the test alone');
      // …and says that the stop, corrected for the 4, does not act on it: bold's p is the smallest, so × 4.
      const weakAdjusted = harmOf(before, 'errors', 'bold').harm?.pValueAdjusted as number;
      assert.ok(Math.abs(weakAdjusted - 4 * weakP) < 1e-12, `${weakAdjusted} ≠ 4 × ${weakP}`);
      assert.equal(harmOf(before, 'errors', 'bold').harm?.stops, false);
      assert.deepEqual(harmOf(before, 'refunds', 'bold').harm, { pValue: null, harmed: false, pValueAdjusted: null, stops: false }, 'nobody refunded: no test');
      const watch = watchOf(app);
      const none = await watch.check();
      assert.deepEqual(none.filter((s) => s.experience === name), [], 'Holm: 4 × p is not below alpha');
      assert.equal((await status(app, name)).status, 'running');

      const strong = errorsFor(controlMoments, bold.length, 0.002);
      await track(app, 'Error shown', bold.slice(weak, strong));
      const harmed = harmOf(await results(app, name), 'errors', 'bold').harm;
      assert.equal(harmed?.stops, true, JSON.stringify(harmed));
      const stopped = await watch.check();
      await watch.close();
      const ours = stopped.find((s) => s.experience === name);
      assert.ok(ours, JSON.stringify(stopped));
      assert.equal(ours.stop.metric, 'errors');
      assert.equal(ours.stop.variation, 'bold');
      const p = ours.stop.pValue as number;
      assert.ok(p < 0.002, String(p));
      // The other three tests' p-values are larger (calm as control, nobody refunded): bold's is the smallest, × 4.
      assert.ok(Math.abs((ours.stop.pValueAdjusted as number) - 4 * p) < 1e-12, `${ours.stop.pValueAdjusted} ≠ 4 × ${p}`);
      assert.equal(ours.stop.familySize, 4);
      assert.deepEqual([harmed?.pValue, harmed?.pValueAdjusted], [p, ours.stop.pValueAdjusted], 'the answer and the stop agree');
      assert.equal(ours.stop.correction, 'holm-bonferroni');
      const item = await status(app, name);
      assert.equal(item.status, 'stopped');
      assert.deepEqual(
        [item.stoppedBy?.pValue, item.stoppedBy?.pValueAdjusted, item.stoppedBy?.familySize, item.stoppedBy?.metric],
        [p, ours.stop.pValueAdjusted, 4, 'errors'],
      );
      const audit = await app.inject({ method: 'GET', url: `${BASE}/audit?limit=5`, headers: ADMIN });
      const entry = (audit.json().entries as { action: string; name: string; after: any }[]).find((e) => e.name === name);
      assert.equal(entry?.action, 'stop');
      assert.deepEqual([entry?.after.stoppedBy.pValueAdjusted, entry?.after.stoppedBy.familySize], [ours.stop.pValueAdjusted, 4]);
    });

    it('tests harm with the experiment\'s sequentialTuning under fixed-horizon intervals, and the answer says so', async () => {
      const app = h.app;
      const name = `tuned-${driver.name}`;
      clock += 3_600_000;
      await put(app, experiment(name, [50, 50], { guardrails: ['errors'], sequentialTuning: 200 }));
      const people = await exposeAll(app, name, 300);
      const control = people.get('control') ?? [];
      const bold = people.get('bold') ?? [];
      await track(app, 'Error shown', [...control.slice(0, Math.round(control.length / 10)), ...bold.slice(0, Math.round(bold.length / 5))]);

      for (const query of ['', '&phase=all']) {
        const answer = await results(app, name, query);
        assert.equal(answer.analysis.interval, 'fixed-horizon');
        assert.equal('sequentialTuning' in answer.analysis, false, 'the intervals are not sequential');
        // By hand: the absolute difference of the error rates and its variance, tested one-sided (up is harm) tuned at 200.
        const [a, b] = answer.metrics[0]!.variations as [VariationStats, VariationStats];
        const estimate = {
          point: (b.mean as number) - (a.mean as number),
          variance: (b.stddev as number) ** 2 / b.units + (a.stddev as number) ** 2 / a.units,
          dof: Infinity, units: a.units + b.units,
        };
        const tuned = oneSidedSequential(estimate, 0.05, 'greater', 200).pValue as number;
        const untuned = oneSidedSequential(estimate, 0.05, 'greater', 5000).pValue as number;
        assert.ok(Math.abs(tuned - untuned) > 1e-4, `the tunings must give different p-values here: ${tuned}, ${untuned}`);
        assert.ok(Math.abs((b.harm?.pValue as number) - tuned) < 1e-12, `${query}: harm p ${b.harm?.pValue}, tuned ${tuned}, default ${untuned}`);
        assert.deepEqual(answer.analysis.harmTest, { test: 'sequential-one-sided', tuning: 200, correction: 'holm-bonferroni', family: 1 }, query);
        // A family of one: the adjusted p-value is the test's own, and the stop acts on it as the test alone says.
        assert.deepEqual([b.harm?.pValueAdjusted, b.harm?.stops], [b.harm?.pValue, b.harm?.harmed], query);
      }
    });

    it('with no goals named, guardrails are judged on their own p-values, outside the corrected family', async () => {
      const app = h.app;
      const name = `no-goals-${driver.name}`;
      clock += 3_600_000;
      await put(app, experiment(name, [50, 50], { guardrails: ['errors'], correction: 'holm-bonferroni' }));
      const people = await exposeAll(app, name, 200);
      const control = people.get('control') ?? [];
      const bold = people.get('bold') ?? [];
      await track(app, 'Product ordered', [...control.slice(0, 10), ...bold.slice(0, 25)]);
      await track(app, 'Error shown', [...control.slice(0, 10), ...bold.slice(0, 12)]);

      const answer = await results(app, name, '&metrics=purchase,errors');
      const purchase = harmOf(answer, 'purchase', 'bold');
      const errors = harmOf(answer, 'errors', 'bold');
      assert.equal(typeof purchase.pValue, 'number');
      assert.equal(typeof errors.pValue, 'number');
      // The family is purchase alone: Holm over one test leaves its p-value as it is.
      assert.equal(purchase.pValueAdjusted, purchase.pValue);
      assert.equal('pValueAdjusted' in errors, false, JSON.stringify(errors));
      assert.equal(errors.significant, (errors.pValue as number) < 0.05);
    });
  });
}
