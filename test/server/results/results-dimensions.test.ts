// Results broken down by what each unit's first exposure told of the visitor, on SQLite and PostgreSQL: the browser
// of the request, the page's utm_source and utm_medium, new or returning (from the SDK's time-ordered profile ids), and
// a profile attribute. Exposures come both from Choose answers and from `Experiment Viewed` events.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { visitorOf } from '../../../server/results/unit-dimensions.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import { makeEvent, v7 } from '../helpers/events.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const BASE = '/v1/acme/projects/shop';
const BROWSER = { authorization: basic('web1.p4ss') };
const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const FIREFOX = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const SAFARI = 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1';


function config(): ServiceConfigFile {
  const file = testConfig();
  const shop = file.organizations.acme!.projects.shop!;
  shop.metrics = [{ name: 'purchase', event: 'Product ordered', type: 'binomial' }];
  shop.experiences = [
    ...(shop.experiences ?? []),
    { name: 'split', variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] },
  ];
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  return file;
}

describe('the visitor dimension', () => {
  it('is new within the first 30 minutes of a version 7 profile id, returning later, unknown for other ids', () => {
    const minted = Date.parse('2026-11-01T00:00:00.000Z');
    assert.equal(visitorOf(v7(minted, 1), minted + 29 * 60_000), 'new');
    assert.equal(visitorOf(v7(minted, 1), minted + 31 * 60_000), 'returning');
    assert.equal(visitorOf('my-own-customer-42', minted), 'unknown');
    assert.equal(visitorOf('3f2a7c1e-1b2c-4d5e-8f90-123456789abc', minted), 'unknown');
  });
});

for (const driver of DRIVERS) {
  describe(`results by segment (${driver.name})`, () => {
    let clock = Date.parse('2026-11-10T12:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));

    async function choose(app: FastifyInstance, profileId: string, userAgent: string, url?: string): Promise<void> {
      const res = await app.inject({
        method: 'POST', url: `${BASE}/optimization/choose-api`, headers: { ...BROWSER, 'user-agent': userAgent },
        payload: { identification: { sourceId: 'web', profileId }, names: ['split'], ...(url ? { url } : {}) },
      });
      assert.equal(res.statusCode, 200, res.body);
    }

    async function track(app: FastifyInstance, userAgent: string, events: ReturnType<typeof makeEvent>[]): Promise<void> {
      const res = await app.inject({ method: 'POST', url: `${BASE}/sources/web/track`, headers: { ...BROWSER, 'user-agent': userAgent }, payload: { batch: events } });
      assert.equal(res.statusCode, 200, res.body);
    }

    async function breakdown(app: FastifyInstance, dimension: string): Promise<Record<string, number>> {
      const res = await app.inject({ method: 'GET', url: `${BASE}/experiences/split/results?apiKey=srv1.s3cret&dimension=${encodeURIComponent(dimension)}` });
      assert.equal(res.statusCode, 200, res.body);
      const answer = res.json() as ResultsAnswer;
      assert.ok(answer.dimensions!.every((d) => d.name === dimension));
      assert.equal(answer.dimensions!.reduce((sum, d) => sum + d.units, 0), answer.units);
      return Object.fromEntries(answer.dimensions!.map((d) => [d.value, d.units]));
    }

    it('breaks units down by browser, utm_source, utm_medium, new or returning and a profile attribute', async () => {
      const app = h.app;
      const now = clock;
      // Choose answers: 3 Chrome visitors from a newsletter (new), 2 Firefox visitors without a campaign (returning).
      for (let i = 0; i < 3; i++) await choose(app, v7(now - 60_000, i), CHROME, 'https://shop.example/?utm_source=news&utm_medium=email#top');
      for (let i = 3; i < 5; i++) await choose(app, v7(now - 5 * 86_400_000, i), FIREFOX, 'https://shop.example/sale');
      // One exposure reported when shown, from Safari, with its page's campaign in the event.
      const shown = v7(now - 1000, 9);
      await track(app, SAFARI, [makeEvent({
        type: 'track', name: 'Experiment Viewed', profileId: shown, timestamp: new Date(now).toISOString(),
        data: { experience: 'split', variation: 'bold', device: 'mobile', utm_source: 'ads', utm_medium: 'cpc' },
      })]);
      // A server-side caller's own id, no user agent, no page.
      const res = await app.inject({
        method: 'POST', url: `${BASE}/optimization/choose-api?apiKey=srv1.s3cret`, headers: { 'user-agent': '' },
        payload: { identification: { sourceId: 'web', profileId: 'customer-42' }, names: ['split'] },
      });
      assert.equal(res.statusCode, 200, res.body);
      // Plans, as identify sets them.
      await track(app, CHROME, [0, 3].map((i) => makeEvent({
        type: 'identify', name: 'Identify', profileId: v7(i === 0 ? now - 60_000 : now - 5 * 86_400_000, i),
        userId: `u${i}`, timestamp: new Date(now).toISOString(), userAttributes: { plan: i === 0 ? 'pro' : 'free' },
      })));

      assert.deepEqual(await breakdown(app, 'browser'), { Chrome: 3, Firefox: 2, Safari: 1, unknown: 1 });
      assert.deepEqual(await breakdown(app, 'utm_source'), { news: 3, ads: 1, unknown: 3 });
      assert.deepEqual(await breakdown(app, 'utm_medium'), { email: 3, cpc: 1, unknown: 3 });
      assert.deepEqual(await breakdown(app, 'visitor'), { new: 4, returning: 2, unknown: 1 });
      assert.deepEqual(await breakdown(app, 'attribute:plan'), { pro: 1, free: 1, unknown: 5 });
      assert.deepEqual(await breakdown(app, 'device'), { mobile: 1, unknown: 6 });
      for (const bad of ['os', 'attribute:', 'attribute']) {
        const refused = await app.inject({ method: 'GET', url: `${BASE}/experiences/split/results?apiKey=srv1.s3cret&dimension=${bad}` });
        assert.equal(refused.statusCode, 400, bad);
        assert.equal(refused.json().error.code, 'invalid_request');
      }
    });
  });
}
