// A feed's `exclude` reads the person, not the device: the cart, orders and views of every profile linked to the
// request's by identify and alias events (as results and the feed report find people), through the real track, feed
// and preview endpoints, on SQLite and PostgreSQL. Each test has a project of its own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FeedConfig, ServiceConfigFile } from '../../../server/config/config-types.js';
import type { ServiceEvent } from '../../../wire/event.js';
import type { FeedPreviewAnswer } from '../../../wire/feed-preview.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { makeEvent } from '../helpers/events.js';
import { productEvent } from '../helpers/recommendation-fixtures.js';
import { basic } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const PROJECTS = 6;
const FEEDS: FeedConfig[] = [
  { id: 1, strategy: 'popular', exclude: ['in-cart', 'purchased'], purchasedDays: 30 },
  { id: 2, strategy: 'popular', exclude: ['viewed'] },
];
const CATALOG = ['a', 'b', 'c', 'd'].map((id) => ({ id }));

function config(): ServiceConfigFile {
  const projects: ServiceConfigFile['organizations'][string]['projects'] = {};
  for (let i = 0; i < PROJECTS; i++) projects[`r${i}`] = { apiKeys: [`srvr${i}.k`], writeKeys: [`webr${i}.k`], sources: ['web'], feeds: FEEDS };
  return { organizations: { acme: { adminKeys: [ADMIN], projects } } };
}

const identify = (profileId: string, userId: string): ServiceEvent => makeEvent({ type: 'identify', name: 'Identify', profileId, userId });
const alias = (profileId: string, userId: string, anotherUserId: string): ServiceEvent => makeEvent({ type: 'alias', name: 'Alias', profileId, userId, anotherUserId });

for (const driver of DRIVERS) {
  describe(`feed exclusions per person (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    let used = 0;
    /** A project of the test's own, its catalog uploaded: track, ask a feed, preview a feed. */
    async function shop() {
      const i = used++;
      assert.ok(i < PROJECTS, 'add projects to config()');
      const base = `/v1/acme/projects/r${i}`;
      const put = await h.app.inject({ method: 'PUT', url: `${base}/catalog?apiKey=srvr${i}.k`, payload: CATALOG });
      assert.equal(put.statusCode, 200, put.body);
      return {
        async track(events: ServiceEvent[]): Promise<void> {
          const res = await h.app.inject({ method: 'POST', url: `${base}/sources/web/track`, headers: { authorization: basic(`webr${i}.k`) }, payload: { batch: events } });
          assert.equal(res.statusCode, 200, res.body);
          await h.app.svc.models.settle();
        },
        async feed(id: number, profileId: string): Promise<string[]> {
          const res = await h.app.inject({
            method: 'POST', url: `${base}/feeds/${id}/data`, headers: { authorization: basic(`webr${i}.k`) },
            payload: { profileId, sourceId: 'web', limit: 10, fields: [] },
          });
          assert.equal(res.statusCode, 200, res.body);
          return (res.json() as { products: { id: string }[] }).products.map((p) => p.id).sort();
        },
        async preview(profileId: string): Promise<FeedPreviewAnswer> {
          const res = await h.app.inject({
            method: 'POST', url: `${base}/feeds/preview`, headers: { authorization: `Bearer ${ADMIN}` }, payload: { feed: FEEDS[0], profileId },
          });
          assert.equal(res.statusCode, 200, res.body);
          return res.json() as FeedPreviewAnswer;
        },
      };
    }

    it('a cart on device A, then the same user identified on device B: B\'s feed leaves the product out', async () => {
      const s = await shop();
      await s.track([identify('dev-a', 'u1'), productEvent('Added to cart', 'a', { profileId: 'dev-a', at: Date.now() - 5000 })]);
      assert.deepEqual(await s.feed(1, 'dev-b'), ['a', 'b', 'c', 'd'], 'anonymous, B is nobody yet');
      await s.track([identify('dev-b', 'u1')]);
      assert.deepEqual(await s.feed(1, 'dev-b'), ['b', 'c', 'd']);
      assert.deepEqual(await s.feed(1, 'dev-a'), ['b', 'c', 'd']);
    });

    it('an unrelated person\'s cart is not left out, nor another user\'s of a shared product', async () => {
      const s = await shop();
      await s.track([
        identify('dev-a', 'u1'), productEvent('Added to cart', 'a', { profileId: 'dev-a', at: Date.now() - 5000 }),
        identify('stranger', 'u2'), productEvent('Added to cart', 'b', { profileId: 'stranger', at: Date.now() - 5000 }),
        productEvent('Added to cart', 'c', { profileId: 'anonymous', at: Date.now() - 5000 }),
        identify('dev-b', 'u1'),
      ]);
      assert.deepEqual(await s.feed(1, 'dev-b'), ['b', 'c', 'd']);
      assert.deepEqual(await s.feed(1, 'stranger'), ['a', 'c', 'd']);
    });

    it('an order on one device checks out the cart of another, and stays out as purchased; an alias joins people too', async () => {
      const s = await shop();
      const now = Date.now();
      await s.track([
        identify('laptop', 'email-u'), productEvent('Added to cart', 'a', { profileId: 'laptop', at: now - 9000 }),
        identify('phone', 'crm-u'), alias('phone', 'crm-u', 'email-u'),
        productEvent('Product ordered', 'b', { profileId: 'phone', orderId: 'o1', at: now - 8000 }),
      ]);
      assert.deepEqual(await s.feed(1, 'laptop'), ['c', 'd'], 'a in the cart (laptop), b purchased (phone)');
      await s.track([productEvent('Product ordered', 'a', { profileId: 'phone', orderId: 'o2', at: now - 4000 })]);
      assert.deepEqual(await s.feed(1, 'laptop'), ['c', 'd'], 'a ordered on the phone: purchased now, no longer in the cart');
    });

    it('viewed: what any profile of the person viewed', async () => {
      const s = await shop();
      await s.track([identify('dev-a', 'u1'), identify('dev-b', 'u1'), productEvent('Product viewed', 'd', { profileId: 'dev-a' })]);
      assert.deepEqual(await s.feed(2, 'dev-b'), ['a', 'b', 'c']);
      assert.deepEqual(await s.feed(2, 'someone'), ['a', 'b', 'c', 'd']);
    });

    it('the preview names the reason for a product in the cart of another device of the person', async () => {
      const s = await shop();
      const now = Date.now();
      await s.track([
        identify('dev-a', 'u1'), productEvent('Added to cart', 'a', { profileId: 'dev-a', at: now - 5000 }),
        productEvent('Product ordered', 'b', { profileId: 'dev-a', orderId: 'o1', at: now - 4000 }), identify('dev-b', 'u1'),
      ]);
      const answer = await s.preview('dev-b');
      assert.deepEqual(answer.feed.products.map((p) => p.id).sort(), ['c', 'd']);
      assert.deepEqual(answer.feed.removed.filter((r) => r.reason === 'in-cart' || r.reason === 'purchased').map((r) => [r.id, r.reason]).sort(),
        [['a', 'in-cart'], ['b', 'purchased']]);
    });
  });
}
