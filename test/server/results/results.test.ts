// Experiment results through the HTTP API, on SQLite and PostgreSQL: units come from Choose answers, values from
// tracked events, both sent by the test through the service's own endpoints (no rows written behind its back).
// The app's clock is pinned and moved by the test, so exposure and receipt times are known.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, MetricConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const CHOOSE = '/v1/acme/projects/shop/optimization/choose-api';
const TRACK = '/v1/acme/projects/shop/sources/web/track';
const BROWSER = { authorization: basic('web1.p4ss') };
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

function experiment(name: string, weights: [number, number] = [50, 50]): ExperienceConfig {
  return {
    name,
    variations: [
      { name: 'control', weight: weights[0], body: { v: 'control' } },
      { name: 'bold', weight: weights[1], body: { v: 'bold' } },
    ],
  };
}

const METRICS: MetricConfig[] = [
  { name: 'purchase', event: 'Product ordered', type: 'binomial' },
  { name: 'orders', event: 'Product ordered', type: 'count' },
  { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
  { name: 'big-orders', event: 'Product ordered', type: 'count', where: { price: { $gte: 20 } } },
  { name: 'quick-purchase', event: 'Product ordered', type: 'binomial', windowHours: 1 },
  { name: 'signup', event: 'Signed up', type: 'binomial' },
  { name: 'revenue-cuped', event: 'Product ordered', type: 'sum', value: 'price', cuped: true },
];

const EXPERIMENTS = ['basic', 'identity', 'times', 'window', 'cuped', 'empty', 'forced', 'device', 'range', 'outlier'];

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.experiences = [
    ...(shop.experiences ?? []),
    ...EXPERIMENTS.map((name) => experiment(name)),
    experiment('lopsided', [90, 10]),
    {
      name: 'odd "names"]', variations: [
        { name: 'x]y', weight: 50, body: {} }, { name: 'q"z\\', weight: 50, body: {} },
      ],
    },
  ];
  shop.metrics = METRICS;
  // The test's clock stands still (or goes back): a rate limit would never refill.
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  file.organizations.other!.adminKeys = ['admother.x'];
  return file;
}

interface Answer {
  experience: string;
  control: string;
  units: number;
  multipleExposures: number;
  srm: { pValue: number | null; mismatch: boolean };
  variations: { name: string; weight: number; units: number }[];
  metrics: {
    name: string;
    type: string;
    cupedApplied: boolean;
    variations: {
      name: string; units: number; total: number; mean: number | null; stddev: number | null;
      uplift?: number | null; ci?: [number, number] | null; pValue?: number | null; chanceToWin?: number | null; risk?: number | null;
      cuped?: { theta: number; mean: number; stddev: number | null; controlMean: number; controlStddev: number | null };
    }[];
  }[];
  dimensions?: { name: string; value: string; units: number; variations: { name: string; units: number }[]; metrics: Answer['metrics'] }[];
}

function close(actual: number | null | undefined, expected: number, what: string, tolerance = 1e-9): void {
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) <= tolerance, `${what}: ${String(actual)} ≠ ${expected}`);
}

/** Mean and sample standard deviation (n − 1) of plain numbers, as a reader would compute them by hand. */
function sample(values: number[]): { mean: number; stddev: number } {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const squares = values.reduce((a, b) => a + (b - mean) ** 2, 0);
  return { mean, stddev: Math.sqrt(squares / (values.length - 1)) };
}

for (const driver of DRIVERS) {
  describe(`experiment results (${driver.name})`, () => {
    let clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));
    // Fixed ids (each suite has a fresh database): the same variations on every run, so no assertion rests on chance.
    const run = 'r1';

    /** A Choose request from the browser for one profile; the variation served. */
    async function expose(app: FastifyInstance, name: string, profileId: string, device: 'desktop' | 'mobile' = 'desktop'): Promise<string> {
      const res = await app.inject({
        method: 'POST', url: CHOOSE, headers: BROWSER,
        payload: { identification: { sourceId: 'web', profileId }, names: [name], device, sessionId: `s-${profileId}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      const choice = (res.json() as { choices: { name: string; variation: string }[] }).choices.find((c) => c.name === name);
      assert.ok(choice, `${name} was not served to ${profileId}`);
      return choice.variation;
    }

    async function track(app: FastifyInstance, events: ServiceEvent[], sentAt?: string): Promise<void> {
      const res = await app.inject({
        method: 'POST', url: TRACK, headers: BROWSER, payload: { batch: events, ...(sentAt !== undefined ? { sentAt } : {}) },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { accepted: number }).accepted, events.length);
    }

    function order(profileId: string, price: unknown, at = clock): ServiceEvent {
      return makeEvent({
        type: 'product', name: 'Product ordered', profileId, timestamp: new Date(at).toISOString(),
        data: { productId: 'p1', quantity: 1, price },
      });
    }

    async function results(app: FastifyInstance, name: string, query = '', key = 'srv1.s3cret'): Promise<Answer> {
      const res = await app.inject({ method: 'GET', url: `/v1/acme/projects/shop/experiences/${name}/results?apiKey=${key}${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as Answer;
    }

    function metric(answer: Answer, name: string): Answer['metrics'][number] {
      const found = answer.metrics.find((m) => m.name === name);
      assert.ok(found, `metric ${name} missing`);
      return found;
    }

    it('counts units per variation from exposures and each metric per unit, with the statistics of every variation', async () => {
      const app = h.app;
      const variationOf = new Map<string, string>();
      const revenue = new Map<string, number[]>();
      for (let i = 0; i < 60; i++) {
        const profile = `basic-${run}-${i}`;
        variationOf.set(profile, await expose(app, 'basic', profile));
      }
      // Seen again: a second exposure of the same unit is not a second unit.
      await expose(app, 'basic', `basic-${run}-0`);
      clock += 60_000;
      const events: ServiceEvent[] = [];
      for (let i = 0; i < 60; i++) {
        const profile = `basic-${run}-${i}`;
        const prices = i % 3 === 0 ? [] : i % 3 === 1 ? [10 + i] : [5, 30 + i];
        for (const price of prices) events.push(order(profile, price));
        revenue.set(profile, prices);
      }
      // A price that is not a JSON number counts 0 in the sum (and the order still counts).
      events.push(order(`basic-${run}-1`, 'n/a'));
      revenue.get(`basic-${run}-1`)!.push(0);
      // Other events, and events of people never exposed, count nothing.
      events.push(makeEvent({ type: 'track', name: 'Clicked banner', profileId: `basic-${run}-2`, timestamp: new Date(clock).toISOString() }));
      events.push(order(`never-exposed-${run}`, 500));
      await track(app, events);

      const answer = await results(app, 'basic');
      assert.equal(answer.experience, 'basic');
      assert.equal(answer.control, 'control');
      assert.equal(answer.units, 60);
      assert.equal(answer.multipleExposures, 0);
      const units = (v: string) => [...variationOf.values()].filter((x) => x === v).length;
      assert.deepEqual(answer.variations, [
        { name: 'control', weight: 50, units: units('control') },
        { name: 'bold', weight: 50, units: units('bold') },
      ]);
      assert.equal(typeof answer.srm.pValue, 'number');
      assert.equal(answer.dimensions, undefined);
      assert.deepEqual(answer.metrics.map((m) => m.name), METRICS.map((m) => m.name));

      for (const [index, name] of ['control', 'bold'].entries()) {
        const profiles = [...variationOf].filter(([, v]) => v === name).map(([p]) => p);
        const perUnit = {
          purchase: profiles.map((p): number => (revenue.get(p)!.length > 0 ? 1 : 0)),
          orders: profiles.map((p) => revenue.get(p)!.length),
          revenue: profiles.map((p) => revenue.get(p)!.reduce((a, b) => a + b, 0)),
          'big-orders': profiles.map((p) => revenue.get(p)!.filter((price) => price >= 20).length),
        };
        const conversion = perUnit.purchase.reduce((a, b) => a + b, 0) / profiles.length;
        const purchase = metric(answer, 'purchase').variations[index]!;
        assert.equal(purchase.units, profiles.length);
        assert.equal(purchase.total, perUnit.purchase.reduce((a, b) => a + b, 0));
        close(purchase.mean, conversion, `${name} purchase mean`);
        close(purchase.stddev, Math.sqrt(conversion * (1 - conversion)), `${name} purchase stddev`);
        for (const m of ['orders', 'revenue', 'big-orders'] as const) {
          const got = metric(answer, m).variations[index]!;
          const want = sample(perUnit[m]);
          assert.equal(got.total, perUnit[m].reduce((a, b) => a + b, 0), `${name} ${m} total`);
          close(got.mean, want.mean, `${name} ${m} mean`);
          close(got.stddev, want.stddev, `${name} ${m} stddev`);
        }
      }
      for (const m of answer.metrics) {
        const [control, bold] = m.variations;
        assert.ok(!('uplift' in control!) && !('pValue' in control!), 'the control carries no comparison');
        if (control!.mean === 0) continue;
        close(bold!.uplift, (bold!.mean! - control!.mean!) / control!.mean!, `${m.name} uplift`);
        assert.ok(bold!.ci![0] <= bold!.uplift! && bold!.uplift! <= bold!.ci![1], `${m.name}: the CI holds the uplift`);
        for (const p of [bold!.pValue, bold!.chanceToWin]) assert.ok(typeof p === 'number' && p >= 0 && p <= 1);
        assert.ok(typeof bold!.risk === 'number' && bold!.risk >= 0);
      }
      // A metric never tracked: everyone counts 0, so the comparison is undefined (control mean 0).
      const signup = metric(answer, 'signup');
      assert.equal(signup.variations[0]!.mean, 0);
      assert.equal(signup.variations[1]!.uplift, null);
      assert.equal(signup.variations[1]!.ci, null);
      assert.equal(signup.variations[1]!.pValue, null);
    });

    it('treats a person as one unit across linked profiles, and leaves out people exposed to two variations', async () => {
      const app = h.app;
      // Two anonymous profiles that got different variations, then identified as one user: left out, counted.
      const first = `idm-${run}-a`;
      const firstVariation = await expose(app, 'identity', first);
      let other = '';
      for (let i = 0; other === '' && i < 40; i++) {
        const candidate = `idm-${run}-b${i}`;
        if (await expose(app, 'identity', candidate) !== firstVariation) other = candidate;
        else await track(app, [order(candidate, 1)]);
      }
      const mixed = `mixed-${run}`;
      await track(app, [
        makeEvent({ type: 'identify', name: 'Identify', profileId: first, userId: mixed, timestamp: new Date(clock).toISOString() }),
        makeEvent({ type: 'identify', name: 'Identify', profileId: other, userId: mixed, timestamp: new Date(clock).toISOString() }),
      ]);
      // A person seen on a phone, then on a laptop after log-in: one unit, from the earliest exposure; the laptop's
      // order counts for it.
      const phone = `one-${run}-phone`;
      const laptop = `one-${run}-laptop`;
      const personVariation = await expose(app, 'identity', phone, 'mobile');
      await track(app, [makeEvent({ type: 'identify', name: 'Identify', profileId: phone, userId: `one-${run}`, timestamp: new Date(clock).toISOString() })]);
      clock += 1000;
      await track(app, [makeEvent({ type: 'identify', name: 'Identify', profileId: laptop, userId: `one-${run}`, timestamp: new Date(clock).toISOString() })]);
      assert.equal(await expose(app, 'identity', laptop), personVariation, 'the laptop shares the person\'s assignment');
      await track(app, [order(laptop, 42)]);
      // A shared device: identified as someone else first, then as this person. Its link to the person is not the
      // first of anything Choose keeps, yet it links the two: its order counts for the person.
      const shared = `one-${run}-shared`;
      await track(app, [
        makeEvent({ type: 'identify', name: 'Identify', profileId: shared, userId: `else-${run}`, timestamp: new Date(clock).toISOString() }),
        makeEvent({ type: 'identify', name: 'Identify', profileId: shared, userId: `one-${run}`, timestamp: new Date(clock).toISOString() }),
      ]);
      await track(app, [order(shared, 8)]);

      const answer = await results(app, 'identity', '&dimension=device');
      assert.equal(answer.multipleExposures, 1);
      // Every candidate that got the first variation is a unit, plus the person; the two mixed profiles are out.
      assert.notEqual(other, '', 'a candidate in the other variation');
      const candidates = Number(other.slice(other.lastIndexOf('b') + 1));
      assert.equal(answer.units, candidates + 1);
      // Each candidate in the first variation ordered for 1; the person for 42 on the laptop and 8 on the shared device.
      const revenue = metric(answer, 'revenue').variations.find((v) => v.name === personVariation)!;
      assert.equal(revenue.total, 50 + (personVariation === firstVariation ? candidates : 0));
      // The person's first exposure was on mobile: it is the mobile unit.
      const mobile = answer.dimensions!.find((d) => d.value === 'mobile')!;
      assert.equal(mobile.units, 1);
      assert.equal(metric({ ...answer, metrics: mobile.metrics }, 'revenue').variations.find((v) => v.name === personVariation)!.total, 50);
    });

    it('counts events from the first exposure on, corrects clock skew with sentAt, and never dates an event after it was received', async () => {
      const app = h.app;
      const early = `times-${run}-early`;
      const skewed = `times-${run}-skewed`;
      const future = `times-${run}-future`;
      const before = `times-${run}-before`;
      // An order received before the exposure does not count.
      await track(app, [order(before, 100)]);
      clock += 1000;
      for (const p of [early, skewed, future, before]) await expose(app, 'times', p);
      clock += 10 * 60_000;
      // The device's clock is an hour behind: its timestamp says "before the exposure", its sentAt shows the skew.
      const behind = clock - HOUR;
      await track(app, [order(skewed, 10, behind - 1000)], new Date(behind).toISOString());
      // The same timestamp without sentAt is taken as it is: before the exposure, not counted.
      await track(app, [order(early, 10, behind - 1000)]);
      // A timestamp in the future (a clock ahead, no sentAt) is capped at when the service received it: it counts.
      await track(app, [order(future, 10, clock + DAY)]);

      const answer = await results(app, 'times');
      const orders = metric(answer, 'orders');
      const total = orders.variations.reduce((a, v) => a + v.total, 0);
      assert.equal(total, 2, 'the skew-corrected order and the future-dated one count; the early and the pre-exposure ones do not');
    });

    it('counts only events within windowHours of the first exposure for a metric with a window', async () => {
      const app = h.app;
      const quick = `window-${run}-quick`;
      const slow = `window-${run}-slow`;
      await expose(app, 'window', quick);
      await expose(app, 'window', slow);
      clock += 30 * 60_000;
      await track(app, [order(quick, 10)]);
      clock += HOUR;
      await track(app, [order(slow, 10)]);
      const answer = await results(app, 'window', '&metrics=quick-purchase,purchase');
      assert.deepEqual(answer.metrics.map((m) => m.name), ['quick-purchase', 'purchase']);
      assert.equal(metric(answer, 'quick-purchase').variations.reduce((a, v) => a + v.total, 0), 1);
      assert.equal(metric(answer, 'purchase').variations.reduce((a, v) => a + v.total, 0), 2);
    });

    it('a sum value too large to be a price counts as 0: one event cannot blank the statistics', async () => {
      const app = h.app;
      const ids = Array.from({ length: 8 }, (_, i) => `outlier-${run}-${i}`);
      for (const id of ids) await expose(app, 'outlier', id);
      clock += 60_000;
      await track(app, ids.map((id, i) => order(id, 10 + i)));
      await track(app, [order(ids[0]!, 1e200), order(ids[1]!, 1e308), order(ids[1]!, 1e308), order(ids[2]!, -1e300)]);
      const revenue = metric(await results(app, 'outlier', '&metrics=revenue'), 'revenue');
      assert.equal(revenue.variations.reduce((a, v) => a + v.total, 0), ids.reduce((a, _, i) => a + 10 + i, 0));
      const [control, treatment] = revenue.variations;
      assert.ok(control!.units >= 2 && treatment!.units >= 2, JSON.stringify(revenue.variations));
      for (const v of revenue.variations) assert.equal(typeof v.stddev, 'number', JSON.stringify(v));
      assert.equal(typeof treatment!.pValue, 'number', JSON.stringify(treatment));
      assert.ok(Array.isArray(treatment!.ci), JSON.stringify(treatment));
    });

    it('CUPED narrows the interval on behaviour correlated with the weeks before exposure and keeps the estimate', async () => {
      const app = h.app;
      // Pre-exposure spend varies a lot between people and predicts their spend after exposure.
      const start = clock;
      const people: { id: string; base: number }[] = [];
      for (let i = 0; i < 80; i++) people.push({ id: `cuped-${run}-${i}`, base: 10 + (i * 37) % 90 });
      // Too old for the 14-day window: counts for nobody.
      clock = start - 20 * DAY;
      await track(app, people.map((p) => order(p.id, 1000)));
      clock = start - 7 * DAY;
      await track(app, people.map((p) => order(p.id, p.base)));
      clock = start;
      const variationOf = new Map<string, string>();
      for (const p of people) variationOf.set(p.id, await expose(app, 'cuped', p.id));
      clock += HOUR;
      const noise = (i: number) => ((i * 7919) % 7) - 3;
      await track(app, people.map((p, i) => order(p.id, p.base + (variationOf.get(p.id) === 'bold' ? 5 : 0) + noise(i))));

      const answer = await results(app, 'cuped');
      const plain = metric(answer, 'revenue');
      const adjusted = metric(answer, 'revenue-cuped');
      assert.equal(plain.cupedApplied, false);
      assert.equal(adjusted.cupedApplied, true);
      const width = (m: Answer['metrics'][number]) => m.variations[1]!.ci![1] - m.variations[1]!.ci![0];
      assert.ok(width(adjusted) < width(plain) / 2, `CUPED CI ${width(adjusted)} vs plain ${width(plain)}`);
      // The reported mean, stddev and total stay the raw ones (mean = total / units); CUPED's figures are their own.
      for (const i of [0, 1]) {
        assert.equal(adjusted.variations[i]!.total, plain.variations[i]!.total, 'totals are the raw ones');
        close(adjusted.variations[i]!.mean, plain.variations[i]!.mean!, 'means are the raw ones');
        close(adjusted.variations[i]!.stddev, plain.variations[i]!.stddev!, 'stddevs are the raw ones');
      }
      const cuped = adjusted.variations[1]!.cuped!;
      assert.ok(cuped.theta > 0.5, `theta ${cuped.theta}`);
      // Unbiased: the adjusted means average to the raw ones over both variations, and the lift stays near the true +5.
      const [a, b] = adjusted.variations as [Answer['metrics'][number]['variations'][number], Answer['metrics'][number]['variations'][number]];
      close((cuped.controlMean * a.units + cuped.mean * b.units) / answer.units, (a.mean! * a.units + b.mean! * b.units) / answer.units, 'pooled mean', 1e-6);
      assert.ok(Math.abs(cuped.mean - cuped.controlMean - 5) < 2, `adjusted lift ${cuped.mean - cuped.controlMean}`);
      // The relative uplift divides the adjusted difference by the raw control mean (gbstats).
      close(b.uplift, (cuped.mean - cuped.controlMean) / a.mean!, 'uplift over the raw control mean', 1e-9);
    });

    it('opens results to the organization\'s admin key and to server keys sent as a Bearer token', async () => {
      const app = h.app;
      const url = '/v1/acme/projects/shop/experiences/basic/results';
      const byQuery = await results(app, 'basic', '', 'adm1.s3cret');
      for (const authorization of ['Bearer adm1.s3cret', 'Bearer srv1.s3cret']) {
        const res = await app.inject({ method: 'GET', url, headers: { authorization } });
        assert.equal(res.statusCode, 200, `${authorization}: ${res.body}`);
        assert.deepEqual(res.json(), byQuery);
      }
      // Every project of the organization: the blog has no such experience, but the key opens it.
      const blog = await app.inject({ method: 'GET', url: '/v1/acme/projects/blog/experiences/basic/results?apiKey=adm1.s3cret' });
      assert.equal(blog.statusCode, 404);
      assert.equal((blog.json() as { error: { code: string } }).error.code, 'experience_not_found');
    });

    it('answers an experiment nobody saw with zero units and null statistics', async () => {
      const answer = await results(h.app, 'empty');
      assert.equal(answer.units, 0);
      assert.deepEqual(answer.srm, { pValue: null, mismatch: false });
      for (const m of answer.metrics) {
        assert.deepEqual(m.variations[0], { name: 'control', units: 0, total: 0, mean: null, stddev: null });
        assert.deepEqual(m.variations[1], {
          name: 'bold', units: 0, total: 0, mean: null, stddev: null, uplift: null, ci: null, pValue: null, chanceToWin: null, risk: null,
          credibleInterval: null, absolute: { effect: null, ci: null, pValue: null, significant: false }, significant: false,
        });
      }
    });

    it('does not count forced (QA) answers as exposures', async () => {
      const app = h.app;
      const res = await app.inject({
        method: 'POST', url: `${CHOOSE}?apiKey=srv1.s3cret`,
        payload: { identification: { sourceId: 'web', profileId: `forced-${run}` }, names: ['forced'], force: { forced: 'bold' } },
      });
      assert.equal(res.statusCode, 200);
      assert.equal((res.json() as { choices: { variation: string }[] }).choices[0]!.variation, 'bold');
      assert.equal((await results(app, 'forced')).units, 0);
    });

    it('splits by the device of the first exposure with dimension=device', async () => {
      const app = h.app;
      for (let i = 0; i < 6; i++) await expose(app, 'device', `device-${run}-${i}`, i < 4 ? 'desktop' : 'mobile');
      const answer = await results(app, 'device', '&dimension=device&metrics=purchase');
      assert.deepEqual(answer.dimensions!.map((d) => [d.name, d.value, d.units]), [['device', 'desktop', 4], ['device', 'mobile', 2]]);
      for (const d of answer.dimensions!) {
        assert.equal(d.variations.reduce((a, v) => a + v.units, 0), d.units);
        assert.deepEqual(d.metrics.map((m) => m.name), ['purchase']);
      }
    });

    it('keeps units whose first exposure is within from/to', async () => {
      const app = h.app;
      const t0 = clock;
      await expose(app, 'range', `range-${run}-a`);
      clock += DAY;
      const t1 = clock;
      await expose(app, 'range', `range-${run}-b`);
      await expose(app, 'range', `range-${run}-a`);
      clock += DAY;
      const iso = (t: number) => new Date(t).toISOString();
      assert.equal((await results(app, 'range')).units, 2);
      assert.equal((await results(app, 'range', `&from=${iso(t1)}`)).units, 1);
      assert.equal((await results(app, 'range', `&to=${iso(t1)}`)).units, 1);
      assert.equal((await results(app, 'range', `&from=${iso(t0)}&to=${iso(t1 + 1)}`)).units, 2);
      assert.equal((await results(app, 'range', `&from=${iso(clock)}`)).units, 0);
      // A date alone is midnight UTC; an offset is honoured.
      assert.equal((await results(app, 'range', `&to=${iso(t0).slice(0, 10)}`)).units, 0);
      assert.equal((await results(app, 'range', `&from=${encodeURIComponent(new Date(t1).toISOString().replace('Z', '+00:00'))}`)).units, 1);
      // `metrics=` empty is the default: every metric.
      assert.equal((await results(app, 'range', '&metrics=')).metrics.length, METRICS.length);
    });

    it('flags a sample ratio mismatch against the current weights', async () => {
      const app = h.app;
      // 90/10 weights; the units split about 90/10, which matches.
      for (let i = 0; i < 100; i++) await expose(app, 'lopsided', `lop-${run}-${i}`);
      const answer = await results(app, 'lopsided');
      assert.equal(answer.srm.mismatch, false);
      // Each first exposure stored a first assignment and an exposure (the earlier tests' too).
      const written = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      const count = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(written)?.[1] ?? 0);
      assert.ok(count('svc_assignments_written_total') >= 100, written);
      assert.ok(count('svc_exposures_written_total') >= 100);

      assert.ok(answer.srm.pValue! > 0.001);
      // The same units judged against 50/50 weights (a reload that changed them): a mismatch.
      const file = config();
      const lopsided = file.organizations.acme!.projects.shop!.experiences!.find((e) => e.name === 'lopsided')!;
      lopsided.variations = experiment('lopsided').variations;
      await h.restart(file);
      const after = await results(h.app, 'lopsided');
      assert.deepEqual(after.variations.map((v) => v.weight), [50, 50]);
      assert.equal(after.srm.mismatch, true);
      assert.ok(after.srm.pValue! < 0.001);
      const metrics = (await h.app.inject({ method: 'GET', url: '/metrics' })).body;
      assert.match(metrics, /svc_srm_mismatches_total\{project="acme\/shop",experience="lopsided"\} 1\n/);
      assert.match(metrics, /svc_results_duration_seconds_count 1\n/);
      await h.restart(config());
    });

    it('finds variations whose names hold JSON\'s own characters', async () => {
      const app = h.app;
      const name = 'odd "names"]';
      const served = new Map<string, number>();
      for (let i = 0; i < 12; i++) {
        const variation = await expose(app, name, `odd-${run}-${i}`);
        served.set(variation, (served.get(variation) ?? 0) + 1);
      }
      const answer = await results(app, encodeURIComponent(name));
      assert.equal(answer.experience, name);
      assert.deepEqual(answer.variations.map((v) => [v.name, v.units]), [['x]y', served.get('x]y') ?? 0], ['q"z\\', served.get('q"z\\') ?? 0]]);
    });

    it('refuses bad requests with the contract\'s codes and changes nothing', async () => {
      const app = h.app;
      const get = (path: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url: path, headers });
      const base = '/v1/acme/projects/shop/experiences';
      const cases: [string, Record<string, string>, number, string][] = [
        [`${base}/basic/results`, {}, 401, 'missing_credentials'],
        [`${base}/basic/results`, BROWSER, 401, 'invalid_credentials'],
        [`${base}/basic/results?apiKey=web1.p4ss`, {}, 401, 'invalid_credentials'],
        [`${base}/basic/results?apiKey=srv1.wrong`, {}, 401, 'invalid_credentials'],
        [`${base}/basic/results?apiKey=srvblog.x`, {}, 403, 'key_not_for_project'],
        [`${base}/nope/results?apiKey=srv1.s3cret`, {}, 404, 'experience_not_found'],
        [`${base}/welcome-note/results?apiKey=srv1.s3cret`, {}, 404, 'experience_not_found'],
        [`${base}/basic/results?apiKey=srv1.s3cret&metrics=purchase,nope`, {}, 400, 'invalid_request'],
        [`${base}/basic/results?apiKey=srv1.s3cret&from=yesterday`, {}, 400, 'invalid_request'],
        [`${base}/basic/results?apiKey=srv1.s3cret&to=2026-13-45`, {}, 400, 'invalid_request'],
        [`${base}/basic/results?apiKey=srv1.s3cret&from=2026-02-31`, {}, 400, 'invalid_request'],
        [`${base}/basic/results?apiKey=srv1.s3cret&from=2026-04-30T24:00:00Z`, {}, 400, 'invalid_request'],
        [`${base}/basic/results?apiKey=srv1.s3cret&dimension=country`, {}, 400, 'invalid_request'],
      ];
      for (const [url, headers, status, code] of cases) {
        const res = await get(url, headers);
        assert.equal(res.statusCode, status, `${url}: ${res.body}`);
        const body = res.json() as { error: { code: string; message: string } };
        assert.equal(body.error.code, code, url);
        assert.ok(body.error.message.length > 0);
      }
      const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
      const more: [string, Record<string, string>, number, string][] = [
        [`${base}/basic/results?apiKey=admother.x`, {}, 403, 'key_not_for_project'],
        [`${base}/basic/results`, bearer('admother.x'), 403, 'key_not_for_project'],
        [`${base}/basic/results`, bearer('web1.p4ss'), 401, 'invalid_credentials'],
        [`${base}/basic/results`, bearer('adm1.wrong'), 401, 'invalid_credentials'],
      ];
      for (const [url, headers, status, code] of more) {
        const res = await get(url, headers);
        assert.equal(res.statusCode, status, `${url} ${JSON.stringify(headers)}: ${res.body}`);
        assert.equal((res.json() as { error: { code: string } }).error.code, code);
      }
      // An admin key administers: it does not choose for visitors.
      const choose = await app.inject({
        method: 'POST', url: `${CHOOSE}?apiKey=adm1.s3cret`, payload: { identification: { sourceId: 'web', profileId: 'adm' }, names: ['basic'] },
      });
      assert.equal(choose.statusCode, 401);
      assert.equal((choose.json() as { error: { code: string } }).error.code, 'invalid_credentials');
      // A server key may travel as a Bearer token on the Choose API too (out of access logs).
      const bearerChoose = await app.inject({
        method: 'POST', url: CHOOSE, headers: bearer('srv1.s3cret'), payload: { identification: { sourceId: 'web', profileId: 'adm' }, names: ['basic'] },
      });
      assert.equal(bearerChoose.statusCode, 200, bearerChoose.body);
      const unknownMetric = await get(`${base}/basic/results?apiKey=srv1.s3cret&metrics=nope`);
      assert.match((unknownMetric.json() as { error: { message: string } }).error.message, /metrics: .*"nope"/);
    });

    it('refuses a batch whose sentAt is not a date, storing nothing of it', async () => {
      const app = h.app;
      const event = order(`sent-${run}`, 1);
      const res = await app.inject({ method: 'POST', url: TRACK, headers: BROWSER, payload: { batch: [event], sentAt: 'soon' } });
      assert.equal(res.statusCode, 400);
      assert.equal((res.json() as { error: { code: string } }).error.code, 'invalid_batch');
      const again = await app.inject({ method: 'POST', url: TRACK, headers: BROWSER, payload: { batch: [event] } });
      assert.deepEqual(again.json(), { accepted: 1, duplicates: 0 });
    });
  });
}
