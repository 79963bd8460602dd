// The feed report's arithmetic, without a database: which click a cart or order is credited to, and the Wilson
// interval of the click-through rate against published numbers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { attribute, feedReport, type CardEvent, type Conversion } from '../../../server/recommendations/feed-attribution.js';
import { wilsonInterval } from '../../../server/recommendations/wilson-interval.js';

const HOUR = 3_600_000;
const day = (feedId: number) => (feedId === 2 ? 48 : 24) * HOUR;
const click = (at: number, over: Partial<CardEvent> = {}): CardEvent => ({ person: 'P', at, productId: 'x', feedId: 1, strategy: 'popular', position: 1, ...over });
const order = (at: number, over: Partial<Conversion> = {}): Conversion => ({ kind: 'order', person: 'P', at, productId: 'x', quantity: 1, ...over });

describe('wilsonInterval', () => {
  // Newcombe, "Two-sided confidence intervals for the single proportion" (Statistics in Medicine 1998), Table I, method 3.
  const PUBLISHED: [number, number, number, number][] = [[81, 263, 0.2553, 0.3662], [15, 148, 0.0624, 0.1605], [0, 20, 0, 0.1611], [1, 29, 0.0061, 0.1718]];
  for (const [x, n, lo, hi] of PUBLISHED) {
    it(`${x} of ${n} → [${lo}, ${hi}]`, () => {
      const [l, h] = wilsonInterval(x, n)!;
      assert.ok(Math.abs(l - lo) < 5e-5 && Math.abs(h - hi) < 5e-5, `${l} ${h}`);
    });
  }
  it('is null without a trial', () => assert.equal(wilsonInterval(0, 0), null));
});

describe('attribute: the last click on the product by the person, within its feed\'s window', () => {
  const CASES: { name: string; clicks: CardEvent[]; conversion: Conversion; credited: number | null }[] = [
    { name: 'a click 23 h before', clicks: [click(0)], conversion: order(23 * HOUR), credited: 0 },
    { name: 'a click exactly 24 h before', clicks: [click(0)], conversion: order(24 * HOUR), credited: 0 },
    { name: 'a click 24 h and 1 ms before', clicks: [click(0)], conversion: order(24 * HOUR + 1), credited: null },
    { name: 'a click after the order', clicks: [click(10)], conversion: order(5), credited: null },
    { name: 'two clicks: the last wins', clicks: [click(0, { position: 1 }), click(HOUR, { position: 3 })], conversion: order(2 * HOUR), credited: 1 },
    { name: 'another person\'s click', clicks: [click(0, { person: 'Q' })], conversion: order(HOUR), credited: null },
    { name: 'a click on another product', clicks: [click(0, { productId: 'y' })], conversion: order(HOUR), credited: null },
    { name: 'a feed with a 48 h window, 30 h before', clicks: [click(0, { feedId: 2 })], conversion: order(30 * HOUR), credited: 0 },
    {
      name: 'the last click is past its window, an earlier one of a longer window is not',
      clicks: [click(0, { feedId: 2 }), click(HOUR, { feedId: 1 })], conversion: order(30 * HOUR), credited: 0,
    },
  ];
  for (const c of CASES) {
    it(c.name, () => {
      const [credited] = attribute(c.clicks, [c.conversion], day);
      assert.equal(credited, c.credited === null ? undefined : c.clicks[c.credited]);
    });
  }
});

describe('feedReport', () => {
  it('credits revenue to the clicked feed only, prices from the event, then the catalog, and says which', () => {
    const report = feedReport({
      feedId: 1, from: 0, to: 100 * HOUR, by: 'position',
      impressions: [click(0, { position: 1 }), click(0, { position: 2, productId: 'y' })],
      clicks: [click(HOUR, { position: 1 }), click(HOUR, { position: 2, productId: 'y' }), click(HOUR, { feedId: 2, productId: 'z' })],
      conversions: [
        order(2 * HOUR, { quantity: 2, price: 5, currency: 'USD' }),
        order(2 * HOUR, { productId: 'y' }),
        order(2 * HOUR, { productId: 'z', price: 100, currency: 'USD' }),
        { ...order(2 * HOUR), kind: 'cart' },
      ],
      windowMs: day,
      catalogPrice: (id) => (id === 'y' ? { price: 7, currency: 'EUR' } : undefined),
    });
    assert.deepEqual(report.totals.revenue, { EUR: 7, USD: 10 });
    assert.deepEqual(report.totals.revenueSources, { event: 1, catalog: 1, unpriced: 0 });
    assert.equal(report.totals.orders, 2);
    assert.equal(report.totals.carts, 1);
    assert.equal(report.totals.clicks, 2);
    assert.equal(report.totals.ctr, 1);
    assert.deepEqual(report.rows!.map((r) => [r.position, r.orders]), [[1, 1], [2, 1]]);
  });
});
