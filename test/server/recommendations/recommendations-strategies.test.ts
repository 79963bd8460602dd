// Feed strategies on generated event histories with known answers, fed through the real track endpoint, on
// SQLite and PostgreSQL; the two drivers must answer the same lists.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceEvent } from '../../../wire/event.js';
import { buildApp } from '../../../server/app.js';
import { DRIVERS, postgresDatabase } from '../helpers/storage-drivers.js';
import { feedIds, productEvent, putCatalog, recommendationsConfig, track } from '../helpers/recommendation-fixtures.js';
import { useApp } from '../helpers/use-test-app.js';

const DAY = 24 * 3600 * 1000;
const FEED = { popular: 1, viewedTogether: 2, boughtTogether: 3, recentlyViewed: 4, personalized: 5 } as const;

function catalog(prefix: string, n: number, unavailable: string[] = []): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `${prefix}${i}`;
    return { id, title: `Product ${id}`, price: i + 1, available: !unavailable.includes(id) };
  });
}

function orders(prefix: string, count: number, products: string[]): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  for (let i = 0; i < count; i++) {
    const orderId = `${prefix}-order-${i}`;
    for (const p of products) events.push(productEvent('Product ordered', p, { orderId, profileId: `${prefix}-buyer-${i}`, sessionId: `${prefix}-s-${i}` }));
  }
  return events;
}

function sessions(prefix: string, count: number, products: string[], at?: number): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  for (let i = 0; i < count; i++) {
    for (const p of products) {
      events.push(productEvent('Product viewed', p, { sessionId: `${prefix}-view-${i}`, profileId: `${prefix}-viewer-${i}`, ...(at !== undefined ? { at } : {}) }));
    }
  }
  return events;
}

/** Answers per driver for the cross-driver comparison at the end. */
const answers = new Map<string, Record<string, string[]>>();

for (const driver of DRIVERS) {
  describe(`recommendation strategies (${driver.name})`, () => {
    const h = useApp(driver, { config: recommendationsConfig() });
    const recorded: Record<string, string[]> = {};
    answers.set(driver.name, recorded);

    it('bought-together: A with B in 50 orders and with C in 2 → B first, then C', async () => {
      await putCatalog(h.app, catalog('bt', 6));
      await track(h.app, [...orders('bt-ab', 50, ['bt0', 'bt1']), ...orders('bt-ac', 2, ['bt0', 'bt2'])]);
      const ids = await feedIds(h.app, FEED.boughtTogether, { productId: 'bt0', limit: 2 });
      assert.deepEqual(ids, ['bt1', 'bt2']);
      recorded.boughtTogether = await feedIds(h.app, FEED.boughtTogether, { productId: 'bt0', limit: 10 });
    });

    it('bought-together counts an order once however often its batch is resent (idempotent model updates)', async () => {
      await putCatalog(h.app, catalog('idem', 4));
      const ab = orders('idem-ab', 2, ['idem0', 'idem1']);
      await track(h.app, [...ab, ...orders('idem-ac', 3, ['idem0', 'idem2'])]);
      await track(h.app, ab);
      await track(h.app, ab);
      assert.deepEqual(await feedIds(h.app, FEED.boughtTogether, { productId: 'idem0', limit: 2 }), ['idem2', 'idem1']);
    });

    it('viewed-together: A with D in 30 sessions and with E in 3 → D first; orders do not count as views', async () => {
      await putCatalog(h.app, catalog('vt', 6));
      await track(h.app, [
        ...sessions('vt-ad', 30, ['vt0', 'vt3']), ...sessions('vt-ae', 3, ['vt0', 'vt4']), ...orders('vt-af', 40, ['vt0', 'vt5']),
      ]);
      const ids = await feedIds(h.app, FEED.viewedTogether, { productId: 'vt0', limit: 2 });
      assert.deepEqual(ids, ['vt3', 'vt4']);
      recorded.viewedTogether = await feedIds(h.app, FEED.viewedTogether, { productId: 'vt0', limit: 10 });
    });

    it('viewed-together: pairs seen twice or more by count, then pairs seen once by product id', async () => {
      // Pairs seen once live only in the primary key, repeats in the partial rank index: one list all the same.
      await putCatalog(h.app, catalog('mo', 6));
      await track(h.app, [
        ...sessions('mo-03', 3, ['mo0', 'mo3']), ...sessions('mo-01', 2, ['mo0', 'mo1']),
        ...sessions('mo-04', 1, ['mo0', 'mo4']), ...sessions('mo-02', 1, ['mo0', 'mo2']),
      ]);
      assert.deepEqual(await feedIds(h.app, FEED.viewedTogether, { productId: 'mo0', limit: 4 }), ['mo3', 'mo1', 'mo2', 'mo4']);
      assert.deepEqual(await feedIds(h.app, FEED.viewedTogether, { productId: 'mo0', limit: 3 }), ['mo3', 'mo1', 'mo2']);
    });

    it('viewed-together and personalized count a session once however often its batch is resent', async () => {
      await putCatalog(h.app, catalog('rs', 4));
      const once = sessions('rs-01', 1, ['rs0', 'rs1']);
      await track(h.app, [...once, ...sessions('rs-02', 2, ['rs0', 'rs2'])]);
      // Resent alone and inside a batch with new events: only the new events count.
      await track(h.app, once);
      await track(h.app, [...once, ...sessions('rs-03', 1, ['rs0', 'rs3'])]);
      assert.deepEqual(await feedIds(h.app, FEED.viewedTogether, { productId: 'rs0', limit: 3 }), ['rs2', 'rs1', 'rs3']);
      await track(h.app, [productEvent('Product viewed', 'rs0', { profileId: 'rs-me', sessionId: 'rs-me-s' })]);
      assert.deepEqual(await feedIds(h.app, FEED.personalized, { profileId: 'rs-me', limit: 3 }), ['rs2', 'rs1', 'rs3']);
    });

    it('recently-viewed: this profile\'s views, newest first, a re-view moves a product to the front', async () => {
      await putCatalog(h.app, catalog('rv', 5));
      const t = Date.now() - DAY;
      await track(h.app, [
        productEvent('Product viewed', 'rv1', { profileId: 'rv-p', at: t }),
        productEvent('Product viewed', 'rv2', { profileId: 'rv-p', at: t + 1000 }),
        productEvent('Product viewed', 'rv3', { profileId: 'rv-p', at: t + 2000 }),
        productEvent('Product viewed', 'rv4', { profileId: 'someone-else', at: t + 3000 }),
      ]);
      await track(h.app, [productEvent('Product viewed', 'rv1', { profileId: 'rv-p', at: t + 4000 })]);
      assert.deepEqual(await feedIds(h.app, FEED.recentlyViewed, { profileId: 'rv-p', limit: 3 }), ['rv1', 'rv3', 'rv2']);
      // The product on screen is never part of the answer.
      assert.deepEqual(await feedIds(h.app, FEED.recentlyViewed, { profileId: 'rv-p', limit: 2, productId: 'rv3' }), ['rv1', 'rv2']);
      recorded.recentlyViewed = await feedIds(h.app, FEED.recentlyViewed, { profileId: 'rv-p', limit: 10 });
    });

    it('personalized: neighbours of the profile\'s history, strongest first, not what it already viewed', async () => {
      await putCatalog(h.app, catalog('ps', 6));
      // Others: ps0 goes with ps1 (20 sessions) and ps2 (5); ps3 goes with ps4 (10).
      await track(h.app, [...sessions('ps-01', 20, ['ps0', 'ps1']), ...sessions('ps-02', 5, ['ps0', 'ps2']), ...sessions('ps-34', 10, ['ps3', 'ps4'])]);
      await track(h.app, [productEvent('Product viewed', 'ps0', { profileId: 'ps-me', sessionId: 'ps-me-s' })]);
      const ids = await feedIds(h.app, FEED.personalized, { profileId: 'ps-me', limit: 2 });
      assert.deepEqual(ids, ['ps1', 'ps2']);
      recorded.personalized = await feedIds(h.app, FEED.personalized, { profileId: 'ps-me', limit: 10 });
    });

    it('personalized: not a product the profile viewed before its latest ten views either', async () => {
      await putCatalog(h.app, catalog('po', 13));
      // Others: po12 goes with po11 (5 sessions) and with po1 (3).
      await track(h.app, [...sessions('po-a', 5, ['po12', 'po11']), ...sessions('po-b', 3, ['po12', 'po1'])]);
      const t = Date.now() - DAY;
      // The profile viewed po11 first, then ten others (po1 … po10), po12 last: po11 is out of its latest ten.
      const views = ['po11', ...Array.from({ length: 10 }, (_, i) => `po${i + 1}`), 'po12'];
      await track(h.app, views.map((p, i) => productEvent('Product viewed', p, { profileId: 'po-me', sessionId: 'po-me-s', at: t + i * 1000 })));
      const ids = await feedIds(h.app, FEED.personalized, { profileId: 'po-me', limit: 3 });
      assert.ok(!ids.includes('po11'), `po11 was viewed by this profile: ${ids.join()}`);
    });

    it('popular: an old burst loses to recent steady views (time decay)', async () => {
      await putCatalog(h.app, catalog('pop', 2));
      const now = Date.now();
      const burst = Array.from({ length: 40 }, (_, i) => productEvent('Product viewed', 'pop0', { sessionId: `pop-old-${i}`, at: now - 60 * DAY }));
      const steady = Array.from({ length: 6 }, (_, i) => productEvent('Product viewed', 'pop1', { sessionId: `pop-new-${i}`, at: now - i * DAY }));
      await track(h.app, [...burst, ...steady]);
      const ids = await feedIds(h.app, FEED.popular, { limit: 100 });
      assert.ok(ids.indexOf('pop1') >= 0 && ids.indexOf('pop1') < ids.indexOf('pop0'), `pop1 before pop0 in ${ids.join(',')}`);
      recorded.popular = ids;
    });

    it('popular: orders weigh more than views', async () => {
      await putCatalog(h.app, catalog('w', 2));
      const at = Date.now() - DAY;
      await track(h.app, [
        ...Array.from({ length: 4 }, (_, i) => productEvent('Product viewed', 'w0', { sessionId: `w-v-${i}`, at })),
        productEvent('Product ordered', 'w1', { orderId: 'w-order', at }),
      ]);
      const ids = await feedIds(h.app, FEED.popular, { limit: 100 });
      assert.ok(ids.indexOf('w1') < ids.indexOf('w0'), `w1 before w0 in ${ids.join(',')}`);
    });

    it('falls back to popular to fill limit: no current product, no duplicates, never an unavailable product', async () => {
      await putCatalog(h.app, catalog('fb', 8, ['fb7']));
      // fb7 is the most popular and bought with fb0, but unavailable.
      await track(h.app, [...orders('fb-07', 30, ['fb0', 'fb7']), ...orders('fb-01', 1, ['fb0', 'fb1'])]);
      for (const strategy of Object.values(FEED)) {
        const ids = await feedIds(h.app, strategy, { productId: 'fb0', profileId: 'fb-nobody', limit: 12 });
        assert.equal(ids.length, 12, `feed ${strategy} fills the limit`);
        assert.equal(new Set(ids).size, ids.length, `feed ${strategy} has no duplicates`);
        assert.ok(!ids.includes('fb0'), `feed ${strategy} never answers the current product`);
        assert.ok(!ids.includes('fb7'), `feed ${strategy} never answers an unavailable product`);
        assert.ok(!ids.includes('cfg-2'), `feed ${strategy} never answers an unavailable configured product`);
      }
      assert.equal((await feedIds(h.app, FEED.boughtTogether, { productId: 'fb0', limit: 3 }))[0], 'fb1');
    });

    it('a product made unavailable through the catalog API disappears from every feed at once', async () => {
      await putCatalog(h.app, catalog('un', 3));
      await track(h.app, orders('un-01', 5, ['un0', 'un1']));
      assert.equal((await feedIds(h.app, FEED.boughtTogether, { productId: 'un0', limit: 1 }))[0], 'un1');
      await putCatalog(h.app, [{ id: 'un1', title: 'Gone', available: false }]);
      const ids = await feedIds(h.app, FEED.boughtTogether, { productId: 'un0', limit: 50 });
      assert.ok(!ids.includes('un1'));
    });
  });
}

describe('recommendation strategies: SQLite and PostgreSQL agree', () => {
  it('answers the same lists on both drivers for the same histories', () => {
    const sqlite = answers.get('sqlite');
    const postgres = answers.get('postgres');
    assert.ok(sqlite && postgres);
    for (const key of ['boughtTogether', 'viewedTogether', 'recentlyViewed', 'personalized', 'popular']) {
      assert.ok(sqlite[key] && sqlite[key].length > 0, `${key} was recorded`);
      assert.deepEqual(postgres[key], sqlite[key], key);
    }
  });
});

describe('ties break by product id byte-wise on any database collation', () => {
  it('a PostgreSQL database with ICU en-US collation answers the list SQLite answers', async () => {
    const lists: string[][] = [];
    for (const make of [() => DRIVERS[0]!.create(), () => postgresDatabase({ icuLocale: 'en-US' })]) {
      const db = await make();
      const storage = await db.open();
      const app = await buildApp({ config: recommendationsConfig(), storage });
      try {
        // No events: the popular fill orders every available product by id alone.
        await putCatalog(app, ['B', 'a', 'a-2', 'a1', 'Z'].map((id) => ({ id, title: id })));
        lists.push(await feedIds(app, FEED.popular, { limit: 5 }));
      } finally {
        await app.close();
        await storage.close();
        await db.destroy();
      }
    }
    assert.deepEqual(lists, [['B', 'Z', 'a', 'a-2', 'a1'], ['B', 'Z', 'a', 'a-2', 'a1']]);
  });
});
