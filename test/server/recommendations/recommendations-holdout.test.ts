// The recommendations holdout (a project's `recommendations.holdout`), on SQLite and PostgreSQL: the service's own
// experiment `recommendations-holdout`, every feed answering a person in it no products (the feed endpoint and
// feed-backed Choose answers), one exposure per person the first time a feed is asked, results with revenue per visitor,
// orders and order value, phases when the share changes, and bad settings refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../../server/config/config-error.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { validateConfig } from '../../../server/config/validate-config.js';
import { op } from '../../../server/storage/sql-program.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { API_KEY, WRITE_AUTH, recommendationsConfig, track } from '../helpers/recommendation-fixtures.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

const HOLDOUT = 'recommendations-holdout';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };

function config(holdout: number | undefined = 30): ServiceConfigFile {
  const file = recommendationsConfig();
  const acme = file.organizations.acme!;
  acme.adminKeys = ['adm1.s3cret'];
  const shop = acme.projects.shop!;
  if (holdout !== undefined) shop.recommendations = { holdout };
  shop.limits = { writeKeyPerSecond: 1_000_000 };
  return file;
}

interface FeedAnswer {
  products: { id: string }[];
  holdout?: boolean;
}

for (const driver of DRIVERS) {
  describe(`recommendations holdout (${driver.name})`, () => {
    const h = useApp(driver, () => ({ config: config() }));

    const feed = async (profileId: string, id = 1, sessionId?: string): Promise<FeedAnswer> => {
      const res = await h.app.inject({
        method: 'POST', url: `/v1/acme/projects/shop/feeds/${id}/data`, headers: WRITE_AUTH,
        payload: { profileId, sourceId: 'web', limit: 4, fields: ['title'], ...(sessionId ? { sessionId } : {}) },
      });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as FeedAnswer;
    };
    const choose = async (profileId: string, names: string[]) => {
      const res = await h.app.inject({
        method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api', headers: WRITE_AUTH,
        // Deferred: the test looks at the assignment without recording an exposure of its own.
        payload: { identification: { sourceId: 'web', profileId }, names, sessionId: `s-${profileId}`, deferExposure: true },
      });
      assert.equal(res.statusCode, 200, res.body);
      return (res.json() as { choices: { name: string; variation?: string; body: Record<string, unknown> }[] }).choices;
    };
    /** The holdout's exposures stored for a profile. */
    const exposuresOf = async (profileId: string): Promise<number> => {
      const rows = await h.storage.run(function* () {
        return (yield op('SELECT choices FROM exposures WHERE project = ? AND profile_id = ?', 'acme/shop', profileId)).rows;
      });
      return rows.filter((r) => String(r.choices).includes(HOLDOUT)).length;
    };
    const results = async () => {
      const res = await h.app.inject({ method: 'GET', url: `/v1/acme/projects/shop/experiences/${HOLDOUT}/results?apiKey=${API_KEY}` });
      assert.equal(res.statusCode, 200, res.body);
      return res.json() as {
        units: number; phase: number; phases: { phase: number; weights: Record<string, number>; reason: string; endedAt?: string }[];
        metrics: { name: string; role?: string; variations: { name: string; units: number; total: number; denominator?: number }[] }[];
      };
    };

    it('is an experiment of the project, listed with its share as weights and its revenue metrics as goals', async () => {
      const res = await h.app.inject({ method: 'GET', url: `/v1/acme/projects/shop/experiences/${HOLDOUT}`, headers: ADMIN });
      assert.equal(res.statusCode, 200, res.body);
      const experiment = res.json() as { variations: { name: string; weight: number }[]; goals: string[]; status: string };
      assert.deepEqual(experiment.variations.map((v) => [v.name, v.weight]), [['holdout', 30], ['shown', 70]]);
      assert.deepEqual(experiment.goals, ['recommendations-revenue', 'recommendations-orders', 'recommendations-order-value']);
      assert.equal(experiment.status, 'running');
    });

    it('answers a person in the holdout no products from every feed, for good, and exposes each person once', async () => {
      const people = Array.from({ length: 40 }, (_, i) => `hold-${driver.name}-${i}`);
      let held = 0;
      for (const profileId of people) {
        const first = await feed(profileId);
        const [assigned] = await choose(profileId, [HOLDOUT]);
        const inHoldout = assigned?.variation === 'holdout';
        if (inHoldout) {
          held++;
          assert.deepEqual(first, { products: [], holdout: true });
        } else {
          assert.ok(first.products.length > 0, profileId);
          assert.equal(first.holdout, undefined);
        }
        // Sticky: the other feeds and a second ask answer the same way; the session's exposure is recorded once.
        for (const id of [1, 4, 5]) assert.equal((await feed(profileId, id)).holdout === true, inHoldout, `${profileId} feed ${id}`);
        assert.equal(await exposuresOf(profileId), 1, profileId);
      }
      // 30 % of 40 people: some are held out and most are not (the chance of none either way is below 1e-6).
      assert.ok(held > 0 && held < people.length, `held out ${held} of ${people.length}`);
      // A caller that names the session (a server rendering the page) gets one exposure per session.
      const [someone] = people;
      await feed(someone!, 1, 'session-a');
      await feed(someone!, 2, 'session-a');
      await feed(someone!, 1, 'session-b');
      assert.equal(await exposuresOf(someone!), 3);
    });

    it('answers a feed-backed Choose experience no products for a person in the holdout', async () => {
      let seen = { holdout: 0, shown: 0 };
      for (let i = 0; i < 30; i++) {
        const profileId = `choose-${driver.name}-${i}`;
        const choices = await choose(profileId, ['recs', HOLDOUT]);
        const recs = choices.find((c) => c.name === 'recs')!;
        const variation = choices.find((c) => c.name === HOLDOUT)!.variation as 'holdout' | 'shown';
        seen = { ...seen, [variation]: seen[variation] + 1 };
        if (variation === 'holdout') assert.deepEqual(recs.body, { products: [], holdout: true });
        else assert.ok((recs.body.products as unknown[]).length > 0);
      }
      assert.ok(seen.holdout > 0 && seen.shown > 0, JSON.stringify(seen));
    });

    it('results count revenue (price × quantity), distinct orders and order value per variation', async () => {
      const buyers = Array.from({ length: 12 }, (_, i) => `buyer-${driver.name}-${i}`);
      const expected: Record<string, { revenue: number; orders: number }> = { holdout: { revenue: 0, orders: 0 }, shown: { revenue: 0, orders: 0 } };
      const events: ServiceEvent[] = [];
      for (const [i, profileId] of buyers.entries()) {
        const { holdout } = await feed(profileId);
        const arm = holdout ? 'holdout' : 'shown';
        const line = (productId: string, price: number, quantity: number, orderId: string) => makeEvent({
          type: 'product', name: 'Product ordered', profileId, sessionId: `s-${profileId}`,
          timestamp: new Date(Date.now() + 60_000).toISOString(), data: { productId, price, quantity, orderId },
        });
        // One order of two lines, and for every third buyer a second order.
        events.push(line('cfg-1', 12.5, 2, `o-${profileId}-1`), line('x-2', 3, 1, `o-${profileId}-1`));
        expected[arm]!.revenue += 28;
        expected[arm]!.orders += 1;
        if (i % 3 === 0) {
          events.push(line('x-3', 10, 1, `o-${profileId}-2`));
          expected[arm]!.revenue += 10;
          expected[arm]!.orders += 1;
        }
      }
      await track(h.app, events);
      const answer = await results();
      const byName = Object.fromEntries(answer.metrics.map((m) => [m.name, m]));
      for (const name of ['recommendations-revenue', 'recommendations-orders', 'recommendations-order-value']) {
        assert.equal(byName[name]?.role, 'goal', name);
      }
      for (const arm of ['holdout', 'shown'] as const) {
        const revenue = byName['recommendations-revenue']!.variations.find((v) => v.name === arm)!;
        const orders = byName['recommendations-orders']!.variations.find((v) => v.name === arm)!;
        const value = byName['recommendations-order-value']!.variations.find((v) => v.name === arm)!;
        // Other tests' people are units too (0 revenue): the buyers' sums are the totals.
        assert.equal(revenue.total, expected[arm]!.revenue, arm);
        assert.equal(orders.total, expected[arm]!.orders, arm);
        assert.equal(value.total, expected[arm]!.revenue, arm);
        assert.equal(value.denominator, expected[arm]!.orders, arm);
      }
    });

    it('a new share starts a new phase; 0 ends it and every feed answers products without exposing anyone', async () => {
      await feed(`phase-${driver.name}-a`);
      assert.deepEqual((await results()).phases.map((p) => p.weights), [{ holdout: 30, shown: 70 }]);
      h.app.svc.managed.replaceFile(config(10));
      try {
        await feed(`phase-${driver.name}-b`);
        const phases = (await results()).phases;
        assert.deepEqual(phases.map((p) => [p.weights, p.reason]), [
          [{ holdout: 30, shown: 70 }, 'started'], [{ holdout: 10, shown: 90 }, 'weights 30/70 → 10/90'],
        ]);
        assert.ok(phases[0]!.endedAt !== undefined && phases[1]!.endedAt === undefined);

        h.app.svc.managed.replaceFile(config(0));
        for (let i = 0; i < 15; i++) {
          const profileId = `phase-${driver.name}-off-${i}`;
          const answer = await feed(profileId);
          assert.ok(answer.products.length > 0 && answer.holdout === undefined, profileId);
          assert.equal(await exposuresOf(profileId), 0, profileId);
        }
        const stopped = (await results()).phases;
        assert.equal(stopped.length, 2);
        assert.ok(stopped[1]!.endedAt !== undefined, 'a share of 0 ends the phase');
      } finally {
        h.app.svc.managed.replaceFile(config());
        await feed(`phase-${driver.name}-restart`); // the share back: a third phase, `restarted`
      }
      assert.deepEqual((await results()).phases.map((p) => p.reason).at(-1), 'restarted');
    });

    it('refuses a write to the holdout\'s own experiment through the management API, changing nothing', async () => {
      const res = await h.app.inject({
        method: 'PUT', url: `/v1/acme/projects/shop/experiences/${HOLDOUT}`, headers: ADMIN,
        payload: { name: HOLDOUT, variations: [{ name: 'holdout', weight: 50, body: {} }, { name: 'shown', weight: 50, body: {} }] },
      });
      assert.equal(res.statusCode, 400, res.body);
      assert.equal((res.json() as { error: { code: string } }).error.code, 'invalid_config');
      const after = await h.app.inject({ method: 'GET', url: `/v1/acme/projects/shop/experiences/${HOLDOUT}`, headers: ADMIN });
      assert.deepEqual((after.json() as { variations: { weight: number }[] }).variations.map((v) => v.weight), [30, 70]);
    });
  });
}

describe('recommendations holdout settings', () => {
  // Spec as data: each bad setting and the path and problem the validator names.
  const BAD: { name: string; change: (shop: Record<string, unknown>) => void; message: RegExp }[] = [
    { name: 'a share above 50', change: (s) => { s.recommendations = { holdout: 51 }; }, message: /recommendations\.holdout: must be a share between 0 and 50/ },
    { name: 'a negative share', change: (s) => { s.recommendations = { holdout: -1 }; }, message: /recommendations\.holdout: must be a share between 0 and 50/ },
    { name: 'a share as text', change: (s) => { s.recommendations = { holdout: '5' }; }, message: /recommendations\.holdout: must be a number/ },
    { name: 'not an object', change: (s) => { s.recommendations = 5; }, message: /recommendations: must be an object/ },
    { name: 'a currency not a code', change: (s) => { s.recommendations = { holdout: 5, currency: 'euro' }; }, message: /recommendations\.currency: must be an ISO 4217 code/ },
    {
      name: 'an experience of the holdout\'s name',
      change: (s) => { (s.experiences as unknown[]).push({ name: HOLDOUT, body: {} }); s.recommendations = { holdout: 5 }; },
      message: /experiences\[2\]\.name: "recommendations-holdout" is the recommendations holdout's own/,
    },
    {
      name: 'a metric of a holdout metric\'s name',
      change: (s) => { s.metrics = [{ name: 'recommendations-revenue', event: 'Product ordered', type: 'count' }]; s.recommendations = { holdout: 5 }; },
      message: /metrics\[0\]\.name: "recommendations-revenue" is the recommendations holdout's own/,
    },
    {
      name: '`distinct` on a sum',
      change: (s) => { s.metrics = [{ name: 'r', event: 'Product ordered', type: 'sum', value: 'price', distinct: 'orderId' }]; },
      message: /metrics\[0\]\.distinct: is only allowed with type "count"/,
    },
  ];
  for (const { name, change, message } of BAD) {
    it(`refuses ${name}`, () => {
      const file = config(undefined);
      change(file.organizations.acme!.projects.shop as unknown as Record<string, unknown>);
      assert.throws(() => validateConfig(file), (error: unknown) => error instanceof ConfigError && message.test(error.message));
    });
  }

  it('lets an experiment be judged by the holdout\'s metrics (a bandit of feeds, say) when the project has a holdout, only then', () => {
    const judged = (file: ServiceConfigFile): ServiceConfigFile => {
      file.organizations.acme!.projects.shop!.experiences!.push({
        name: 'strategies', allocation: 'bandit', goals: ['recommendations-revenue', 'recommendations-orders'],
        variations: [{ name: 'popular', weight: 50, body: { feed: 1 } }, { name: 'recent', weight: 50, body: { feed: 4 } }],
      });
      return file;
    };
    assert.doesNotThrow(() => validateConfig(judged(config(5))));
    const without = config();
    delete without.organizations.acme!.projects.shop!.recommendations;
    assert.throws(() => validateConfig(judged(without)), /experiences\[2\]\.goals\[0\]: no metric named "recommendations-revenue"/);
  });

  it('takes a share from 0 to 50, fractions too, and a currency', () => {
    for (const holdout of [0, 2.5, 50]) {
      const file = config(holdout);
      file.organizations.acme!.projects.shop!.recommendations!.currency = 'EUR';
      assert.doesNotThrow(() => validateConfig(file));
    }
  });
});
