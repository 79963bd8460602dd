// The results' analysis settings and metric kinds through the HTTP API, on SQLite and PostgreSQL: sequential
// intervals, alpha and corrections per experiment; inverse, ratio, capped and negative metrics; weight-0 variations
// out of the SRM check; and the config rules that guard them. Units come from Choose answers and values from tracked
// events, both through the service's own endpoints; expected numbers are computed here by hand from what was sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ExperienceConfig, MetricConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ServiceEvent } from '../../../wire/event.js';
import type { MetricResult, ResultsAnswer, VariationStats, VariationUnits } from '../../../wire/results-answer.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const SHOP = '/v1/acme/projects/shop';
const BROWSER = { authorization: basic('web1.p4ss') };
const ADMIN = 'adm1.s3cret';

function experiment(name: string, settings: Partial<ExperienceConfig> = {}, weights = [50, 50]): ExperienceConfig {
  const names = ['control', 'bold', 'third'];
  return {
    name,
    variations: weights.map((weight, i) => ({ name: names[i] as string, weight, body: { v: names[i] } })),
    ...settings,
  };
}

const METRICS: MetricConfig[] = [
  { name: 'purchase', event: 'Product ordered', type: 'binomial' },
  { name: 'orders', event: 'Product ordered', type: 'count' },
  { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
  { name: 'order-value', type: 'ratio', numerator: 'revenue', denominator: 'orders' },
  { name: 'order-value-cuped', type: 'ratio', numerator: 'revenue', denominator: 'orders', cuped: true },
  { name: 'revenue-cuped', event: 'Product ordered', type: 'sum', value: 'price', cuped: true },
  { name: 'orders-cuped', event: 'Product ordered', type: 'count', cuped: true },
  { name: 'order-value-of-cuped-parts', type: 'ratio', numerator: 'revenue-cuped', denominator: 'orders-cuped' },
  { name: 'revenue-capped', event: 'Product ordered', type: 'sum', value: 'price', cap: { type: 'absolute', value: 50 } },
  { name: 'revenue-p90', event: 'Product ordered', type: 'sum', value: 'price', cap: { type: 'percentile', value: 0.9 } },
  { name: 'refunds', event: 'Refund issued', type: 'count', inverse: true },
  { name: 'refunds-plain', event: 'Refund issued', type: 'count' },
  { name: 'margin', event: 'Margin booked', type: 'sum', value: 'amount' },
];

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.experiences = [
    ...(shop.experiences ?? []),
    experiment('plain'),
    experiment('kinds'),
    experiment('sequential', { sequential: true, sequentialTuning: 200, alpha: 0.1, correction: 'holm-bonferroni' }),
    experiment('fdr', { correction: 'benjamini-hochberg' }),
    experiment('ramped', {}, [50, 25, 25]),
    experiment('ratio-cuped'),
    experiment('seen'),
    experiment('sequential-reach', { sequential: true }),
  ];
  shop.metrics = METRICS;
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = [ADMIN];
  return file;
}

function close(actual: number | null | undefined, expected: number, what: string, tolerance = 1e-9): void {
  assert.ok(typeof actual === 'number' && Math.abs(actual - expected) <= tolerance, `${what}: ${String(actual)} ≠ ${expected}`);
}

/** Mean and unit variance of plain numbers, by hand: Bernoulli m(1 − m) or the sample variance (n − 1). */
function stats(values: number[], binomial = false): { n: number; mean: number; variance: number; sum: number } {
  const n = values.length;
  const sum = values.reduce((a, b) => a + b, 0);
  const mean = sum / n;
  const variance = binomial ? mean * (1 - mean) : values.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1);
  return { n, mean, variance, sum };
}

/** gbstats' relative effect and its delta-method variance, by hand. */
function relative(a: { n: number; mean: number; variance: number }, b: { n: number; mean: number; variance: number }) {
  return {
    uplift: (b.mean - a.mean) / Math.abs(a.mean),
    variance: b.variance / (b.n * a.mean ** 2) + (b.mean ** 2 * a.variance) / (a.n * a.mean ** 4),
  };
}

for (const driver of DRIVERS) {
  describe(`results analysis settings and metric kinds (${driver.name})`, () => {
    const clock = Date.parse('2026-11-01T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    async function expose(app: FastifyInstance, name: string, profileId: string): Promise<string> {
      const res = await app.inject({
        method: 'POST', url: `${SHOP}/optimization/choose-api`, headers: BROWSER,
        payload: { identification: { sourceId: 'web', profileId }, names: [name], sessionId: `s-${profileId}` },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { choices: { variation: string }[] }).choices[0]!.variation;
    }

    async function track(app: FastifyInstance, events: ServiceEvent[]): Promise<void> {
      if (events.length === 0) return;
      const res = await app.inject({ method: 'POST', url: `${SHOP}/sources/web/track`, headers: BROWSER, payload: { batch: events } });
      assert.equal(res.statusCode, 200, res.body);
    }

    function event(name: string, profileId: string, data: Record<string, unknown>): ServiceEvent {
      return makeEvent({ type: 'track', name, profileId, timestamp: new Date(clock + 1000).toISOString(), data });
    }

    function order(profileId: string, price: number): ServiceEvent {
      return makeEvent({
        type: 'product', name: 'Product ordered', profileId, timestamp: new Date(clock + 1000).toISOString(),
        data: { productId: 'p1', quantity: 1, price },
      });
    }

    async function results(app: FastifyInstance, name: string, query = ''): Promise<ResultsAnswer> {
      const res = await app.inject({ method: 'GET', url: `${SHOP}/experiences/${name}/results?apiKey=srv1.s3cret${query}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as ResultsAnswer;
    }

    function metric(answer: ResultsAnswer, name: string): MetricResult {
      const found = answer.metrics.find((m) => m.name === name);
      assert.ok(found, `metric ${name} missing`);
      return found;
    }

    /** Exposes `count` profiles to `name`; each one's orders (prices) by its index and variation. */
    async function seed(app: FastifyInstance, name: string, count: number, prices: (i: number, variation: string) => number[]) {
      const byVariation = new Map<string, number[][]>();
      const events: ServiceEvent[] = [];
      for (let i = 0; i < count; i++) {
        const profile = `${name}-${i}`;
        const variation = await expose(app, name, profile);
        const own = prices(i, variation);
        for (const price of own) events.push(order(profile, price));
        const list = byVariation.get(variation) ?? [];
        list.push(own);
        byVariation.set(variation, list);
      }
      await track(app, events);
      return byVariation;
    }

    it('answers the analysis it carries: fixed-horizon at alpha 0.05 without a correction by default', async () => {
      const answer = await results(h.app, 'plain');
      assert.deepEqual(answer.analysis, { alpha: 0.05, interval: 'fixed-horizon', correction: 'none' });
      for (const m of answer.metrics) assert.equal('pValueAdjusted' in m.variations[1]!, false, 'no adjusted p-value without a correction');
    });

    it('a sequential answer says how many times as wide its intervals are as fixed-horizon ones at its units', async () => {
      await seed(h.app, 'sequential-reach', 181, () => []);
      // By hand, α = 0.05 and the default tuning N = 5,000 (eq. 161, then eq. 9 over z(0.975)·σ/√n):
      //   −2 ln α = 5.991465; ρ² = (5.991465 + ln 6.991465) / 5000 = (5.991465 + 1.944690) / 5000 = 0.001587231
      //   n = 181: nρ² = 0.287289; sqrt(nρ² + 1) = 1.134588; ln(1.134588 / 0.05) = ln 22.691750 = 3.122001
      //   half-width · √n / σ = sqrt(2 · 1.287289 · 3.122001 / 0.287289) = sqrt(27.978240) = 5.289446
      //   ratio = 5.289446 / 1.959964 = 2.698747
      for (const query of ['', '&phase=all']) {
        const { analysis } = await results(h.app, 'sequential-reach', query);
        assert.deepEqual({ tuning: analysis.sequential?.tuning, units: analysis.sequential?.units }, { tuning: 5000, units: 181 }, query);
        close(analysis.sequential?.widthRatio, 2.698747, `width ratio${query}`, 1e-6);
      }
      const fixed = await results(h.app, 'plain');
      assert.equal('sequential' in fixed.analysis, false, 'fixed-horizon answers carry no width ratio');
    });

    it('sequential experiments carry confidence sequences at their alpha, with Holm-adjusted p-values across metrics', async () => {
      const app = h.app;
      const seeded = await seed(app, 'sequential', 80, (i, v) => (i % (v === 'bold' ? 2 : 3) === 0 ? [20 + (i % 7), 15] : []));
      const answer = await results(app, 'sequential', '&metrics=purchase,orders');
      const { sequential: reach, ...settings } = answer.analysis;
      assert.deepEqual(settings, { alpha: 0.1, interval: 'sequential', sequentialTuning: 200, correction: 'holm-bonferroni' });
      assert.deepEqual({ tuning: reach?.tuning, units: reach?.units }, { tuning: 200, units: 80 });
      const pValues: number[] = [];
      for (const [name, binomial] of [['purchase', true], ['orders', false]] as const) {
        const per = (v: string) => (seeded.get(v) ?? []).map((prices) => (binomial ? (prices.length > 0 ? 1 : 0) : prices.length));
        const a = stats(per('control'), binomial);
        const b = stats(per('bold'), binomial);
        const { uplift, variance } = relative(a, b);
        // Waudby-Smith et al.'s normal-mixture sequence as gbstats evaluates it, by hand.
        const n = a.n + b.n;
        const alpha = 0.1;
        const rho2 = (-2 * Math.log(alpha) + Math.log(-2 * Math.log(alpha) + 1)) / 200;
        const half = Math.sqrt(variance * n) * Math.sqrt((2 * (n * rho2 + 1) * Math.log(Math.sqrt(n * rho2 + 1) / alpha)) / (n * n * rho2));
        const p = Math.min(1, Math.sqrt(n * rho2 + 1) * Math.exp(-(rho2 * n * uplift ** 2) / variance / (2 * (n * rho2 + 1))));
        const got = metric(answer, name).variations[1]!;
        close(got.uplift, uplift, `${name} uplift`);
        close(got.ci?.[0], uplift - half, `${name} ci low`, 1e-9);
        close(got.ci?.[1], uplift + half, `${name} ci high`, 1e-9);
        close(got.pValue, p, `${name} pValue`, 1e-9);
        // The credible interval stays the Bayesian one: narrower than the sequence.
        assert.ok(got.credibleInterval![1] - got.credibleInterval![0] < got.ci![1] - got.ci![0]);
        pValues.push(p);
      }
      // Holm over the family of two: the smaller p doubled, the larger one at least that.
      const [low, high] = [...pValues].sort((x, y) => x - y) as [number, number];
      const adjusted = new Map([[low, Math.min(1, 2 * low)], [high, Math.max(Math.min(1, 2 * low), high)]]);
      for (const [i, name] of ['purchase', 'orders'].entries()) {
        const got = metric(answer, name).variations[1]!;
        close(got.pValueAdjusted, adjusted.get(pValues[i]!)!, `${name} adjusted`);
        assert.equal(got.significant, got.pValueAdjusted! < 0.1);
      }
    });

    it('Benjamini–Hochberg adjusts across metrics × challengers, and marks significance by the adjusted p-value', async () => {
      const app = h.app;
      await seed(app, 'fdr', 60, (i, v) => (v === 'bold' ? (i % 4 === 0 ? [] : [30, 30]) : i % 4 === 0 ? [10] : []));
      // A name given twice is answered once, and counted once in the family.
      const answer = await results(app, 'fdr', '&metrics=purchase,orders,revenue,orders');
      assert.deepEqual(answer.metrics.map((m) => m.name), ['purchase', 'orders', 'revenue']);
      const tested = answer.metrics.map((m) => m.variations[1]!);
      const p = tested.map((v) => v.pValue as number);
      const m = p.length;
      // By hand: rank k (1 = smallest) times m / k, then non-increasing from the largest down.
      const order = p.map((x, i) => ({ x, i })).sort((a, b) => b.x - a.x);
      const want = new Array<number>(m);
      let running = 1;
      order.forEach(({ x, i }, fromTop) => {
        running = Math.min(running, (x * m) / (m - fromTop));
        want[i] = running;
      });
      tested.forEach((v, i) => {
        close(v.pValueAdjusted, want[i]!, `adjusted ${i}`);
        assert.equal(v.significant, want[i]! < 0.05);
      });
      // The absolute comparisons are a family of their own, adjusted by the same rule.
      const absoluteP = tested.map((v) => v.absolute!.pValue as number);
      const absoluteOrder = absoluteP.map((x, i) => ({ x, i })).sort((a, b) => b.x - a.x);
      const absoluteWant = new Array<number>(m);
      running = 1;
      absoluteOrder.forEach(({ x, i }, fromTop) => {
        running = Math.min(running, (x * m) / (m - fromTop));
        absoluteWant[i] = running;
      });
      tested.forEach((v, i) => {
        close(v.absolute!.pValueAdjusted, absoluteWant[i]!, `absolute adjusted ${i}`);
        assert.equal(v.absolute!.significant, absoluteWant[i]! < 0.05);
      });
      assert.deepEqual(answer.analysis, { alpha: 0.05, interval: 'fixed-horizon', correction: 'benjamini-hochberg' });
    });

    it('inverse, ratio, capped and negative metrics: each by its own rule', async () => {
      const app = h.app;
      const refunds = new Map<string, number>();
      const margins = new Map<string, number>();
      const seeded = await seed(app, 'kinds', 90, (i, v) => {
        const count = (i * 7) % 5;
        return Array.from({ length: count }, (_, k) => (v === 'bold' ? 12 : 10) + ((i + k * 13) % 11) * (i % 9 === 0 ? 20 : 1));
      });
      const events: ServiceEvent[] = [];
      const variations = new Map<string, string>();
      // Refunds and margins per profile, by index: bold refunds less and its margins are less negative.
      for (let i = 0; i < 90; i++) {
        const profile = `kinds-${i}`;
        const variation = await expose(app, 'kinds', profile); // seen again: the same variation
        const refundCount = variation === 'bold' ? i % 2 : (i % 3 === 0 ? 2 : 1);
        for (let k = 0; k < refundCount; k++) events.push(event('Refund issued', profile, {}));
        refunds.set(profile, refundCount);
        const margin = (variation === 'bold' ? -5 : -10) + ((i % 5) - 2);
        events.push(event('Margin booked', profile, { amount: margin }));
        margins.set(profile, margin);
        variations.set(profile, variation);
      }
      await track(app, events);
      const answer = await results(app, 'kinds');
      const profilesOf = (v: string) => Array.from({ length: 90 }, (_, i) => `kinds-${i}`).filter((p) => variations.get(p) === v);

      // Inverse: the same comparison as the plain twin, with chance to win and risk pointing the other way.
      const inverse = metric(answer, 'refunds');
      const plain = metric(answer, 'refunds-plain');
      assert.equal(inverse.inverse, true);
      assert.equal(plain.inverse, false);
      const [vi, vp] = [inverse.variations[1]!, plain.variations[1]!];
      assert.equal(vi.uplift, vp.uplift);
      assert.deepEqual(vi.ci, vp.ci);
      close(vi.chanceToWin, 1 - vp.chanceToWin!, 'inverse chance to win', 1e-12);
      assert.ok(vi.uplift! < 0 && vi.chanceToWin! > 0.5, 'fewer refunds is a win');
      // Risk of an inverse metric: E[max(0, X)] = risk of the plain metric + uplift.
      close(vi.risk, vp.risk! + vp.uplift!, 'inverse risk', 1e-12);

      // Ratio: Σ revenue / Σ orders per variation, with the delta-method stddev and comparison, by hand.
      const ratio = metric(answer, 'order-value');
      assert.equal(ratio.type, 'ratio');
      assert.deepEqual([ratio.numerator, ratio.denominator], ['revenue', 'orders']);
      const ratioStats = (v: string) => {
        const units = seeded.get(v)!;
        const m = stats(units.map((prices) => prices.reduce((a, b) => a + b, 0)));
        const d = stats(units.map((prices) => prices.length));
        const mx = units.map((prices) => prices.reduce((a, b) => a + b, 0));
        const dx = units.map((prices) => prices.length);
        const cov = mx.reduce((s, x, i) => s + (x - m.mean) * (dx[i]! - d.mean), 0) / (units.length - 1);
        const r = m.sum / d.sum;
        const variance = m.variance / d.mean ** 2 + (d.variance * m.mean ** 2) / d.mean ** 4 - (2 * cov * m.mean) / d.mean ** 3;
        return { n: units.length, mean: r, variance, total: m.sum, denominator: d.sum };
      };
      for (const [i, v] of ['control', 'bold'].entries()) {
        const want = ratioStats(v);
        const got = ratio.variations[i]!;
        assert.equal(got.total, want.total);
        assert.equal(got.denominator, want.denominator);
        close(got.mean, want.mean, `${v} ratio`, 1e-12);
        close(got.stddev, Math.sqrt(want.variance), `${v} ratio stddev`, 1e-9);
      }
      const rel = relative(ratioStats('control'), ratioStats('bold'));
      close(ratio.variations[1]!.uplift, rel.uplift, 'ratio uplift', 1e-12);
      close(ratio.variations[1]!.absolute!.effect, ratioStats('bold').mean - ratioStats('control').mean, 'ratio absolute', 1e-12);

      // Capping: absolute at 50, and at the 90th percentile of all units' revenue (linear interpolation).
      const revenueOf = [...seeded.values()].flat().map((prices) => prices.reduce((a, b) => a + b, 0));
      const sorted = [...revenueOf].sort((a, b) => a - b);
      const hIndex = (sorted.length - 1) * 0.9;
      const p90 = sorted[Math.floor(hIndex)]! + (hIndex - Math.floor(hIndex)) * (sorted[Math.ceil(hIndex)]! - sorted[Math.floor(hIndex)]!);
      const capped = metric(answer, 'revenue-capped');
      const percentile = metric(answer, 'revenue-p90');
      assert.deepEqual(capped.cap, { type: 'absolute', value: 50, capValue: 50 });
      assert.equal(percentile.cap!.type, 'percentile');
      close(percentile.cap!.capValue, p90, '90th percentile', 1e-9);
      assert.ok(Math.max(...revenueOf) > 50, 'some unit is above the cap');
      for (const [i, v] of ['control', 'bold'].entries()) {
        const values = seeded.get(v)!.map((prices) => prices.reduce((a, b) => a + b, 0));
        close(capped.variations[i]!.mean, stats(values.map((x) => Math.min(x, 50))).mean, `${v} capped mean`, 1e-9);
        close(percentile.variations[i]!.mean, stats(values.map((x) => Math.min(x, p90))).mean, `${v} p90 mean`, 1e-9);
        close(capped.variations[i]!.stddev, Math.sqrt(stats(values.map((x) => Math.min(x, 50))).variance), `${v} capped stddev`, 1e-9);
      }
      assert.equal(metric(answer, 'revenue').cap, undefined);

      // A negative control mean keeps the sign: margins of −10 against −5 are an improvement.
      const margin = metric(answer, 'margin');
      const a = stats(profilesOf('control').map((p) => margins.get(p)!));
      const b = stats(profilesOf('bold').map((p) => margins.get(p)!));
      assert.ok(a.mean < 0 && b.mean > a.mean);
      close(margin.variations[1]!.uplift, (b.mean - a.mean) / Math.abs(a.mean), 'margin uplift');
      assert.ok(margin.variations[1]!.uplift! > 0 && margin.variations[1]!.chanceToWin! > 0.5, 'a less negative margin wins');
      close(margin.variations[1]!.absolute!.effect, b.mean - a.mean, 'margin absolute effect');
    });

    it('a CUPED ratio adjusts by the parts before exposure, keeps raw ratios, and leaves the parts asked alone unadjusted', async () => {
      const app = h.app;
      const events: ServiceEvent[] = [];
      const at = (t: number) => new Date(t).toISOString();
      const byVariation = new Map<string, { pre: number[]; post: number[] }[]>();
      for (let i = 0; i < 80; i++) {
        const profile = `ratio-cuped-${i}`;
        // Each person's habit: a typical order value that varies a lot between people and holds before and after.
        const habit = 10 + ((i * 37) % 90);
        const orders = 1 + (i % 3);
        const pre = Array.from({ length: orders }, (_, k) => habit + ((i + k) % 5) - 2);
        for (const price of pre) {
          events.push(makeEvent({ type: 'product', name: 'Product ordered', profileId: profile, timestamp: at(clock - 3 * 86_400_000), data: { productId: 'p1', quantity: 1, price } }));
        }
        const variation = await expose(app, 'ratio-cuped', profile);
        const post = Array.from({ length: orders }, (_, k) => habit + (variation === 'bold' ? 3 : 0) + ((i * 7 + k) % 5) - 2);
        for (const price of post) events.push(order(profile, price));
        const list = byVariation.get(variation) ?? [];
        list.push({ pre, post });
        byVariation.set(variation, list);
      }
      await track(app, events);
      const answer = await results(app, 'ratio-cuped', '&metrics=order-value,order-value-cuped,revenue,order-value-of-cuped-parts');
      // A ratio that does not ask for CUPED is not adjusted, even when both its parts are CUPED metrics.
      const ofParts = metric(answer, 'order-value-of-cuped-parts');
      assert.equal(ofParts.cupedApplied, false);
      assert.equal(ofParts.variations[1]!.uplift, metric(answer, 'order-value').variations[1]!.uplift);
      assert.equal(ofParts.variations[1]!.cuped, undefined);
      const plain = metric(answer, 'order-value');
      const adjusted = metric(answer, 'order-value-cuped');
      assert.equal(plain.cupedApplied, false);
      assert.equal(adjusted.cupedApplied, true);
      assert.equal(metric(answer, 'revenue').cupedApplied, false, 'the numerator asked for by itself has no CUPED');
      for (const [i, v] of ['control', 'bold'].entries()) {
        const units = byVariation.get(v)!;
        const revenue = units.reduce((s, u) => s + u.post.reduce((a, b) => a + b, 0), 0);
        const orders = units.reduce((s, u) => s + u.post.length, 0);
        close(adjusted.variations[i]!.mean, revenue / orders, `${v} raw ratio`, 1e-12);
        assert.equal(adjusted.variations[i]!.mean, plain.variations[i]!.mean);
      }
      const b = adjusted.variations[1]!;
      const width = (v: VariationStats) => v.ci![1] - v.ci![0];
      assert.ok(width(b) < width(plain.variations[1]!) / 2, `CUPED ${width(b)} against plain ${width(plain.variations[1]!)}`);
      assert.ok(b.cuped!.theta > 0.5, `theta ${b.cuped!.theta}`);
      close(b.uplift, (b.cuped!.mean - b.cuped!.controlMean) / adjusted.variations[0]!.mean!, 'uplift over the raw control ratio', 1e-9);
      assert.ok(Math.abs(b.cuped!.mean - b.cuped!.controlMean - 3) < 1.5, `adjusted lift ${b.cuped!.mean - b.cuped!.controlMean}`);
    });

    it('exposure when seen: a deferred Choose answer records no one; an Experiment Viewed report makes the unit, once, at the time shown', async () => {
      const app = h.app;
      const served = new Map<string, string>();
      for (let i = 0; i < 12; i++) {
        const profileId = `seen-${i}`;
        const res = await app.inject({
          method: 'POST', url: `${SHOP}/optimization/choose-api`, headers: BROWSER,
          payload: { identification: { sourceId: 'web', profileId }, names: ['seen'], sessionId: `s-${profileId}`, deferExposure: true },
        });
        assert.equal(res.statusCode, 200, res.body);
        served.set(profileId, (res.json() as { choices: { variation: string }[] }).choices[0]!.variation);
      }
      assert.equal((await results(app, 'seen')).units, 0, 'answered, not yet shown: nobody is exposed');
      // The first eight were shown their variation (the page reported it); the last four kept the fallback. (The app's
      // clock stands still and an event is never dated after its receipt: the times here are before it.)
      const shownAt = clock - 1000;
      const report = (profileId: string, variation: string, at = shownAt, device = 'mobile'): ServiceEvent => makeEvent({
        type: 'track', name: 'Experiment Viewed', profileId, timestamp: new Date(at).toISOString(),
        data: { experience: 'seen', variation, device },
      });
      const shown = [...served].slice(0, 8);
      await track(app, shown.map(([p, v]) => report(p, v)));
      // A reload shows it again: the same unit, from the first time it was shown.
      await track(app, shown.slice(0, 3).map(([p, v]) => report(p, v, shownAt + 500)));
      // Another experience's report counts nothing here.
      await track(app, [makeEvent({ type: 'track', name: 'Experiment Viewed', profileId: 'seen-11', timestamp: new Date(shownAt).toISOString(), data: { experience: 'plain', variation: 'bold' } })]);
      const answer = await results(app, 'seen', '&dimension=device');
      assert.equal(answer.units, 8);
      assert.deepEqual(answer.variations.map((v) => v.units), ['control', 'bold'].map((v) => shown.filter(([, x]) => x === v).length));
      assert.deepEqual(answer.dimensions!.map((d) => [d.value, d.units]), [['mobile', 8]], 'the device the report named');
      // Events count from the time shown: an order between the answer and the showing does not count.
      const [firstShown] = shown[0]!;
      await track(app, [makeEvent({ type: 'product', name: 'Product ordered', profileId: firstShown, timestamp: new Date(shownAt - 1000).toISOString(), data: { productId: 'p1', quantity: 1, price: 5 } })]);
      const purchase = metric(await results(app, 'seen', '&metrics=purchase'), 'purchase');
      assert.equal(purchase.variations.reduce((sum, v) => sum + v.total, 0), 0, 'ordered before it was shown');
      // A report naming the other variation leaves the person out, as two exposures do.
      const [p0, v0] = shown[1]!;
      await track(app, [report(p0, v0 === 'bold' ? 'control' : 'bold')]);
      const mixed = await results(app, 'seen');
      assert.equal(mixed.units, 7);
      assert.equal(mixed.multipleExposures, 1);
    });

    it('refuses a deferExposure that is not a boolean, and records an exposure for an answer that does not defer', async () => {
      const bad = await h.app.inject({
        method: 'POST', url: `${SHOP}/optimization/choose-api`, headers: BROWSER,
        payload: { identification: { sourceId: 'web', profileId: 'defer-bad' }, names: ['plain'], deferExposure: 'yes' },
      });
      assert.equal(bad.statusCode, 400);
      assert.match((bad.json() as { error: { message: string } }).error.message, /deferExposure/);
      const before = (await results(h.app, 'plain')).units;
      await expose(h.app, 'plain', 'defer-not-asked');
      assert.equal((await results(h.app, 'plain')).units, before + 1);
    });

    it('a variation ramped down to weight 0 keeps its units out of the SRM check', async () => {
      const app = h.app;
      for (let i = 0; i < 60; i++) await expose(app, 'ramped', `ramped-${i}`);
      const before = await results(app, 'ramped');
      assert.ok(before.variations[2]!.units > 0, 'the third variation had units');
      const current = await app.inject({ method: 'GET', url: `${SHOP}/experiences/ramped?apiKey=${ADMIN}` });
      const body = current.json() as ExperienceConfig & { version: number };
      const put = await app.inject({
        method: 'PUT', url: `${SHOP}/experiences/ramped?apiKey=${ADMIN}`,
        payload: { ...body, variations: body.variations!.map((v, i) => ({ ...v, weight: [50, 50, 0][i] })) },
      });
      assert.equal(put.statusCode, 200, put.body);
      const after = await results(app, 'ramped');
      assert.deepEqual(after.variations.map((v) => v.units), before.variations.map((v) => v.units), 'nobody moved');
      const [control, bold] = after.variations as [VariationUnits, VariationUnits];
      // Chi-square of the two live variations against 50/50, by hand (1 degree of freedom: p = erfc(sqrt(χ²/2))).
      const expected = (control.units + bold.units) / 2;
      const chi2 = ((control.units - expected) ** 2 + (bold.units - expected) ** 2) / expected;
      assert.equal(after.srm.mismatch, false);
      close(after.srm.pValue, erfc(Math.sqrt(chi2 / 2)), 'SRM p-value', 1e-6);
    });

    describe('config rules (through the management API: 400 invalid_config, nothing stored)', () => {
      const bad: { name: string; path: string; body: Record<string, unknown>; field: RegExp }[] = [
        { name: 'alpha of 0.5', path: 'experiences/bad-alpha', body: { ...experiment('bad-alpha'), alpha: 0.5 }, field: /experience\.alpha/ },
        { name: 'a correction GrowthBook does not have', path: 'experiences/bad-correction', body: { ...experiment('bad-correction'), correction: 'bonferroni' }, field: /experience\.correction/ },
        { name: 'a tuning parameter below 1', path: 'experiences/bad-tuning', body: { ...experiment('bad-tuning'), sequential: true, sequentialTuning: 0 }, field: /experience\.sequentialTuning/ },
        { name: 'analysis settings on a personalization', path: 'experiences/bad-kind', body: { name: 'bad-kind', body: {}, sequential: true }, field: /experience\.sequential/ },
        { name: 'a cap on a binomial metric', path: 'metrics/bad-cap', body: { name: 'bad-cap', event: 'x', type: 'binomial', cap: { type: 'absolute', value: 1 } }, field: /metric\.cap/ },
        { name: 'a percentile above 1', path: 'metrics/bad-p', body: { name: 'bad-p', event: 'x', type: 'sum', value: 'v', cap: { type: 'percentile', value: 99 } }, field: /metric\.cap\.value/ },
        { name: 'a ratio with an event', path: 'metrics/bad-ratio', body: { name: 'bad-ratio', type: 'ratio', numerator: 'revenue', denominator: 'orders', event: 'x' }, field: /metric\.event/ },
        { name: 'a ratio of an unknown metric', path: 'metrics/bad-part', body: { name: 'bad-part', type: 'ratio', numerator: 'revenue', denominator: 'visits' }, field: /denominator.*visits/ },
        { name: 'a ratio of a ratio', path: 'metrics/bad-nest', body: { name: 'bad-nest', type: 'ratio', numerator: 'order-value', denominator: 'orders' }, field: /numerator.*ratio/ },
        { name: 'inverse that is not a boolean', path: 'metrics/bad-inverse', body: { name: 'bad-inverse', event: 'x', type: 'count', inverse: 'yes' }, field: /metric\.inverse/ },
      ];
      for (const { name, path, body, field } of bad) {
        it(`refuses ${name}`, async () => {
          const res = await h.app.inject({ method: 'PUT', url: `${SHOP}/${path}?apiKey=${ADMIN}`, payload: body });
          assert.equal(res.statusCode, 400, res.body);
          const error = (res.json() as { error: { code: string; message: string } }).error;
          assert.equal(error.code, 'invalid_config');
          assert.match(error.message, field);
          const read = await h.app.inject({ method: 'GET', url: `${SHOP}/${path}?apiKey=${ADMIN}` });
          assert.equal(read.statusCode, 404, 'nothing was stored');
        });
      }

      it('accepts the settings on an experiment and a ratio of two metrics, and answers them back', async () => {
        const put = await h.app.inject({
          method: 'PUT', url: `${SHOP}/experiences/good-settings?apiKey=${ADMIN}`,
          payload: { ...experiment('good-settings'), alpha: 0.01, sequential: true, sequentialTuning: 10000, correction: 'benjamini-hochberg' },
        });
        assert.equal(put.statusCode, 201, put.body);
        const answer = await results(h.app, 'good-settings');
        assert.deepEqual(answer.analysis, {
          alpha: 0.01, interval: 'sequential', sequentialTuning: 10000, correction: 'benjamini-hochberg',
          sequential: { tuning: 10000, units: 0, widthRatio: null },
        });
        const ratio = await h.app.inject({
          method: 'PUT', url: `${SHOP}/metrics/revenue-per-purchase?apiKey=${ADMIN}`,
          payload: { name: 'revenue-per-purchase', type: 'ratio', numerator: 'revenue', denominator: 'purchase', inverse: false },
        });
        assert.equal(ratio.statusCode, 201, ratio.body);
      });

      it('will not delete a metric a ratio divides (409 item_in_use), and keeps it', async () => {
        const del = await h.app.inject({ method: 'DELETE', url: `${SHOP}/metrics/orders?apiKey=${ADMIN}` });
        assert.equal(del.statusCode, 409, del.body);
        assert.equal((del.json() as { error: { code: string } }).error.code, 'item_in_use');
        assert.match((del.json() as { error: { message: string } }).error.message, /order-value/);
        const read = await h.app.inject({ method: 'GET', url: `${SHOP}/metrics/orders?apiKey=${ADMIN}` });
        assert.equal(read.statusCode, 200);
      });
    });
  });
}

/** The complementary error function (Numerical Recipes' erfcc, relative error < 1.2e-7). */
function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r = t * Math.exp(-z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806
    + t * (0.27886807 + t * (-1.13520398 + t * (1.48851737 + t * (-0.82215223 + t * 0.17087277)))))))));
  return x >= 0 ? r : 2 - r;
}
