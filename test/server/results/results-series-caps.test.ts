// The daily series (`series=day`) caps each day's point with a percentile cap computed from the units known by the end
// of that day, never from units first exposed later (no look-ahead), on SQLite and PostgreSQL. Units come from Choose
// answers and values from tracked events; the expected caps are computed here by hand from what was sent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ServiceEvent } from '../../../wire/event.js';
import type { MetricResult, ResultsAnswer } from '../../../wire/results-answer.js';
import { makeEvent } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const BROWSER = { authorization: basic('web1.p4ss') };
const DAY = 86_400_000;

function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [
    { name: 'revenue-median', event: 'Product ordered', type: 'sum', value: 'price', cap: { type: 'percentile', value: 0.5 } },
    { name: 'revenue-50', event: 'Product ordered', type: 'sum', value: 'price', cap: { type: 'absolute', value: 50 } },
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  file.organizations.acme!.adminKeys = ['adm1.s3cret'];
  return file;
}

const totalOf = (m: MetricResult): number => m.variations.reduce((sum, v) => sum + v.total, 0);

for (const driver of DRIVERS) {
  describe(`the daily series' caps (${driver.name})`, () => {
    let clock = Date.parse('2026-11-20T10:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    async function buyers(app: FastifyInstance, name: string, from: number, prices: number[]): Promise<void> {
      const batch: ServiceEvent[] = [];
      for (const [i, price] of prices.entries()) {
        const profileId = `${name}-${from + i}`;
        const res = await app.inject({
          method: 'POST', url: `${BASE}/optimization/choose-api`, headers: BROWSER,
          payload: { identification: { sourceId: 'web', profileId }, names: [name], device: 'desktop' },
        });
        assert.equal(res.statusCode, 200, res.body);
        batch.push(makeEvent({ type: 'track', name: 'Product ordered', profileId, timestamp: new Date(clock + 60_000).toISOString(), data: { price } }));
      }
      clock += 60_000;
      const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: BROWSER, payload: { batch } });
      assert.equal(res.statusCode, 200, res.body);
    }

    it('caps each day\'s point at the percentile of the units first exposed by that day\'s end', async () => {
      const app = h.app;
      const name = `capped-daily-${driver.name}`;
      const put = await app.inject({
        method: 'PUT', url: `${BASE}/experiences/${name}`, headers: ADMIN,
        payload: { name, variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] },
      });
      assert.equal(put.statusCode, 201, put.body);
      // Day 1: ten people buy for 10 and ten for 20. Day 2: twenty more buy for 100 each.
      await buyers(app, name, 0, [...Array(10).fill(10), ...Array(10).fill(20)]);
      clock += DAY;
      await buyers(app, name, 20, Array(20).fill(100));

      const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/${name}/results?apiKey=srv1.s3cret&series=day&metrics=revenue-median,revenue-50` });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json() as ResultsAnswer;
      assert.deepEqual(answer.series?.map((p) => [p.date, p.units]), [['2026-11-20', 20], ['2026-11-21', 40]]);
      const [day1, day2] = answer.series!.map((p) => p.metrics[0]!) as [MetricResult, MetricResult];
      // By hand, PERCENTILE_CONT(0.5): day 1 over [10 ×10, 20 ×10]: position 9.5 → 10 + 0.5 × (20 − 10) = 15, so the
      // twenty values sum to 10 × 10 + 10 × 15 = 250. All units: [10 ×10, 20 ×10, 100 ×20]: position 19.5 → 20 + 0.5 ×
      // (100 − 20) = 60, which day 1 must not see.
      assert.equal(day1.cap?.capValue, 15);
      assert.equal(totalOf(day1), 250);
      assert.equal(day2.cap?.capValue, 60);
      assert.equal(totalOf(day2), 300 + 20 * 60);
      assert.equal(answer.metrics[0]!.cap?.capValue, 60, 'the whole answer caps over all its units');
      // An absolute cap is the same every day.
      const absolute = answer.series!.map((p) => [p.metrics[1]!.cap?.capValue, totalOf(p.metrics[1]!)]);
      assert.deepEqual(absolute, [[50, 300], [50, 300 + 20 * 50]]);
    });
  });
}
