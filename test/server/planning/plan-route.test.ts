// The planner's endpoint on SQLite and PostgreSQL: the units and days an experiment needs, from the project's own
// recent events (people active in the last 14 days and their metric values), as read by the roles that read results;
// what a running experiment can detect by its end; every bad parameter a 400 naming it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExperienceConfig, MetricConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import type { PlanAnswer } from '../../../wire/plan-answer.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const DAY = 86_400_000;
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
/** z(0.975) and z(0.8): two-sided 5 % at 80 % power. */
const Z_ALPHA = 1.959963984540054;
const Z_POWER = 0.8416212335729143;

const METRICS: MetricConfig[] = [
  { name: 'purchase', event: 'Product ordered', type: 'binomial' },
  { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
  { name: 'refunds', event: 'Refunded', type: 'count', inverse: true },
];

const arms = (...weights: number[]) => weights.map((weight, i) => ({ name: i === 0 ? 'control' : `v${i}`, weight, body: {} }));

const EXPERIENCES: ExperienceConfig[] = [
  { name: 'hero', variations: arms(50, 50), goals: ['purchase'], status: 'draft' },
  { name: 'live', variations: arms(50, 50), goals: ['purchase'] },
  { name: 'three', variations: arms(40, 30, 30), goals: ['purchase'], correction: 'holm-bonferroni', status: 'draft' },
  { name: 'daily', variations: arms(50, 50), goals: ['revenue'], sequential: true, traffic: 50, status: 'draft' },
  { name: 'aimless', variations: arms(50, 50), status: 'draft' },
  { name: 'banner', body: { text: 'hi' } },
];

function config(): ServiceConfigFile {
  const file = testConfig();
  const acme = file.organizations.acme!;
  for (const name of ['shop', 'blog'] as const) {
    acme.projects[name] = { ...acme.projects[name]!, experiences: EXPERIENCES, metrics: METRICS, limits: { writeKeyPerSecond: 1_000_000 } };
  }
  acme.adminKeys = ['adm1.s3cret'];
  return file;
}

/** People 0…n−1 of the shop, each seen once; the first `buyers` order for `price` each. */
function people(n: number, buyers: number, at: number, price = 20): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  for (let i = 0; i < n; i++) {
    const base = { profileId: `p${i}`, sessionId: `s${i}`, timestamp: new Date(at + i).toISOString() };
    events.push(makeEvent({ ...base, type: 'page', name: 'View Page', data: {} }));
    if (i < buyers) events.push(makeEvent({ ...base, type: 'product', name: 'Product ordered', timestamp: new Date(at + i + 1).toISOString(), data: { productId: 'x', price } }));
  }
  return events;
}

/** The fixed-horizon units in all for a relative change of a conversion rate, two arms at `shares`, written apart. */
function closedFormUnits(p: number, mde: number, control: number, treatment: number): number {
  const q = p * (1 + mde);
  // Significant when q̂ − p̂ passes z·sqrt(q(1−q)/nB + (q/p)² p(1−p)/nA) (the uplift's delta-method standard error times
  // p), while q̂ − p̂ varies by sqrt(q(1−q)/nB + p(1−p)/nA); nA = control·N, nB = treatment·N.
  const threshold = Z_ALPHA * Math.sqrt((q * (1 - q)) / treatment + ((q / p) ** 2 * p * (1 - p)) / control);
  const spread = Z_POWER * Math.sqrt((q * (1 - q)) / treatment + (p * (1 - p)) / control);
  return (threshold + spread) ** 2 / ((q - p) ** 2);
}

for (const driver of DRIVERS) {
  describe(`plan route (${driver.name})`, () => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));
    let ready: Promise<void> | undefined;

    /** 200 people 7 days before `now`, 20 of them buyers: the shop's baseline. Once per suite, read-only after. */
    function seed(): Promise<void> {
      ready ??= (async () => {
        const events = people(200, 20, clock);
        for (let i = 0; i < events.length; i += 400) {
          const res = await h.app.inject({
            method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers: { authorization: basic('web1.p4ss') },
            payload: { batch: events.slice(i, i + 400) },
          });
          assert.equal(res.statusCode, 200, res.body);
        }
        clock += 7 * DAY;
      })();
      return ready;
    }

    async function plan(query: string, name = 'hero', headers: Record<string, string> = ADMIN, project = 'shop') {
      return h.app.inject({ method: 'GET', url: `/v1/acme/projects/${project}/experiences/${name}/plan?${query}`, headers });
    }
    async function planned(query: string, name = 'hero'): Promise<PlanAnswer> {
      const res = await plan(query, name);
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as PlanAnswer;
    }

    it('plans the primary goal from the last 14 days: the closed form per variation, days from people per day', async () => {
      await seed();
      const answer = await planned('mde=0.1');
      assert.equal(answer.metric, 'purchase');
      assert.equal(answer.interval, 'fixed-horizon');
      assert.equal(answer.baseline.units, 200);
      assert.equal(answer.baseline.mean, 0.1);
      assert.ok(Math.abs(answer.baseline.stddev! - 0.3) < 1e-12);
      assert.equal(answer.baseline.days, 7, 'the project is 7 days old: its window starts at its first event');
      assert.ok(Math.abs(answer.baseline.unitsPerDay - 200 / 7) < 1e-9);
      const perArm = Math.ceil(closedFormUnits(0.1, 0.1, 0.5, 0.5) / 2);
      assert.deepEqual(answer.fixedHorizon.variations.map((v) => v.units), [perArm, perArm]);
      assert.equal(answer.fixedHorizon.units, 2 * perArm);
      assert.equal(answer.fixedHorizon.days, Math.ceil((2 * perArm) / (200 / 7)));
      assert.equal(answer.units, answer.fixedHorizon.units);
      assert.equal(answer.days, answer.fixedHorizon.days);
      assert.ok(answer.sequential.units! > answer.fixedHorizon.units!, 'always-valid intervals cost units');
      assert.deepEqual(answer.analysis, {
        alpha: 0.05, power: 0.8, correction: 'none', comparisons: 1, alphaPerComparison: 0.05, sequentialTuning: 5000,
      });
      assert.equal(answer.detectable, undefined, 'a draft without days or endAt');
      assert.equal(answer.gap, undefined);
    });

    it('a draft run of `days` detects the change whose plan takes that many units', async () => {
      await seed();
      const answer = await planned('mde=0.1&days=365');
      const d = answer.detectable!;
      assert.equal(d.byDate, new Date(clock + 365 * DAY).toISOString());
      assert.equal(d.unitsSoFar, 0);
      assert.equal(d.units, Math.floor(365 * 200 / 7));
      assert.equal(d.mde, d.fixedHorizonMde);
      assert.ok(d.sequentialMde! > d.fixedHorizonMde!);
      const back = await planned(`mde=${d.fixedHorizonMde}`);
      assert.ok(Math.abs(back.fixedHorizon.units! - d.units) <= 2, `${back.fixedHorizon.units}`);
    });

    it('a running experiment says what it can detect by its end, from its units so far and their daily rate', async () => {
      await seed();
      const before = clock;
      try {
        await runningExperiment();
      } finally {
        clock = before;
      }
    });

    async function runningExperiment(): Promise<void> {
      for (let i = 0; i < 40; i++) {
        const res = await h.app.inject({
          method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api', headers: { authorization: basic('web1.p4ss') },
          payload: { identification: { sourceId: 'web', profileId: `p${i}` }, names: ['live'] },
        });
        assert.equal(res.statusCode, 200, res.body);
      }
      const started = clock;
      clock += 2 * DAY;
      const answer = await planned('mde=0.2&endAt=' + new Date(started + 10 * DAY).toISOString(), 'live');
      const d = answer.detectable!;
      assert.equal(d.unitsSoFar, 40);
      assert.equal(d.unitsPerDay, 20);
      assert.equal(d.units, 40 + 8 * 20);
      assert.equal(d.byDate, new Date(started + 10 * DAY).toISOString());
      // Without an end asked for: the plan's own, from the phase's start.
      const own = await planned('mde=0.2', 'live');
      assert.equal(own.detectable!.byDate, new Date(started + own.days! * DAY).toISOString());
    }

    it('corrects across challengers, lets the smallest arm drive the units, and plans a sequential experiment sequentially', async () => {
      await seed();
      const three = await planned('mde=0.1', 'three');
      assert.equal(three.analysis.comparisons, 2);
      assert.equal(three.analysis.alphaPerComparison, 0.025);
      const [control, v1, v2] = three.fixedHorizon.variations;
      assert.deepEqual([control!.weight, v1!.weight, v2!.weight], [40, 30, 30]);
      assert.equal(v1!.units, v2!.units);
      assert.ok(Math.abs(control!.units! / v1!.units! - 4 / 3) < 1e-3);
      const daily = await planned('mde=0.05', 'daily');
      assert.equal(daily.metric, 'revenue');
      assert.equal(daily.interval, 'sequential');
      assert.equal(daily.units, daily.sequential.units);
      assert.equal(daily.trafficShare, 0.5);
      assert.equal(daily.days, Math.ceil(daily.sequential.units! / ((200 / 7) * 0.5)));
    });

    it('answers a project nobody visited lately with no figure and why, and a metric that never happened likewise', async () => {
      const empty = await plan('mde=0.03', 'hero', ADMIN, 'blog');
      assert.equal(empty.statusCode, 200, empty.body);
      const answer = empty.json() as PlanAnswer;
      assert.equal(answer.gap, 'no-traffic');
      assert.equal(answer.units, null);
      assert.equal(answer.days, null);
      assert.equal(answer.baseline.units, 0);
      await seed();
      const never = await planned('mde=0.03&metric=refunds');
      assert.equal(never.gap, 'zero-mean');
      assert.equal(never.sequential.units, null);
    });

    it('refuses each bad parameter with 400 invalid_request naming it', async () => {
      await seed();
      const cases: [string, string, string?][] = [
        ['', 'mde'], ['mde=', 'mde'], ['mde=0', 'mde'], ['mde=-0.1', 'mde'], ['mde=abc', 'mde'], ['mde=11', 'mde'],
        ['mde=Infinity', 'mde'], ['mde=0.1&mde=0.2', 'mde'], ['mde=9.5', 'mde'], ['mde=0.1&metric=nope', 'metric'],
        ['mde=0.1&metric=a&metric=b', 'metric'], ['mde=0.1', 'metric', 'aimless'], ['mde=0.1&days=0', 'days'],
        ['mde=0.1&days=1.5', 'days'], ['mde=0.1&endAt=tomorrow', 'endAt'], ['mde=0.1&days=3&endAt=2026-12-01', 'endAt'],
      ];
      for (const [query, field, name] of cases) {
        const res = await plan(query, name);
        assert.equal(res.statusCode, 400, `${query}: ${res.body}`);
        const { error } = res.json() as { error: { code: string; message: string } };
        assert.equal(error.code, 'invalid_request', query);
        assert.ok(error.message.startsWith(`${field}:`), `${query}: ${error.message}`);
      }
    });

    it('reads as results do: an unknown experience or a non-experiment is 404, a writeKey 401, another project\'s key 403', async () => {
      assert.equal((await plan('mde=0.1', 'nope')).json().error.code, 'experience_not_found');
      assert.equal((await plan('mde=0.1', 'banner')).statusCode, 404);
      assert.equal((await plan('mde=0.1', 'hero', { authorization: basic('web1.p4ss') })).json().error.code, 'invalid_credentials');
      assert.equal((await plan('mde=0.1', 'hero', { authorization: 'Bearer srvblog.x' })).json().error.code, 'key_not_for_project');
      assert.equal((await plan('mde=0.1', 'hero', { authorization: 'Bearer srv1.s3cret' })).statusCode, 200);
      const created = await h.app.inject({ method: 'POST', url: '/v1/acme/keys', headers: ADMIN, payload: { name: 'kiosk', role: 'viewer' } });
      assert.equal(created.statusCode, 201, created.body);
      const viewer = { authorization: `Bearer ${(created.json() as { key: string }).key}` };
      assert.equal((await plan('mde=0.1', 'hero', viewer)).statusCode, 200);
    });
  });
}
