// What a feed earns, end to end: <svc-recommendations> and the SDK in Chromium against our real service, once on SQLite
// (`/v1`) and once on PostgreSQL (`/pg/v1`), both started by test/helpers/service-under-test.mjs. A visitor's cards,
// click, cart, sign-in and order go through the SDK's outbox as on a shop; the feed report
// (`GET …/feeds/{id}/report`) is then asked until it has received them, and must credit exactly what the attribution
// rule says (docs/recommendations-report.md). Each test makes a feed of its own through the management API (the
// fixture's catalog, strategy popular), so no other test's cards or clicks are in its report.
import { expect, fixture, html } from '@open-wc/testing';
import sinon from 'sinon';
import type { FeedReportAnswer, ReportRow } from '../wire/feed-report.js';
import type { ServiceJs } from '../src/index.js';
import { recommendations, type SvcRecommendations } from '../plugins/recommendations/index.js';
import { captureEvents, cleanup, makeSvc } from './helpers/svc.js';
import { settled } from './helpers/settled.js';

const HOUR = 3_600_000;
const ADMIN = { Authorization: 'Bearer admtest.s3cret' };
const WRITE_KEY = 'web1.p4ss';
const SERVICES = [
  { database: 'SQLite', api: `${location.origin}/v1` },
  { database: 'PostgreSQL', api: `${location.origin}/pg/v1` },
];

/** A card's product as the feed answers it with the element's default fields. */
interface Product {
  id: string;
  price: number;
  currency: string;
}

/** Order or cart line of a product at the price the card showed. */
const line = (p: Product, quantity = 1) => ({ productId: p.id, quantity, price: p.price, currency: p.currency });

/** Clicks the link of card `n` (1-based) as a visitor does, staying on the test page. */
function clickCard(el: SvcRecommendations, n: number): void {
  const stay = (e: Event): void => e.preventDefault();
  window.addEventListener('click', stay, true);
  el.shadowRoot!.querySelectorAll('li')[n - 1]!.querySelector('a')!.click();
  window.removeEventListener('click', stay, true);
}

const byPosition = (answer: FeedReportAnswer): Record<number, ReportRow> =>
  Object.fromEntries((answer.rows ?? []).map((r) => [r.position, r]));

for (const { database, api } of SERVICES) {
  const shop = `${api}/acme/projects/shop`;

  describe(`recommendation attribution in the browser (${database})`, function () {
    // The first request for PostgreSQL starts its service (a new database, its migrations).
    this.timeout(60_000);
    let feed = 0;

    /** A feed of this test's own: a random id nobody else uses. */
    async function newFeed(settings: { attributionHours?: number } = {}): Promise<number> {
      feed = 1000 + Math.floor(Math.random() * 1_000_000_000);
      const response = await fetch(`${shop}/feeds/${feed}`, {
        method: 'PUT', headers: { ...ADMIN, 'Content-Type': 'application/json' }, body: JSON.stringify({ strategy: 'popular', ...settings }),
      });
      expect(response.status, await response.clone().text()).to.equal(201);
      return feed;
    }

    afterEach(async () => {
      await cleanup();
      sessionStorage.clear();
      if (feed) await fetch(`${shop}/feeds/${feed}`, { method: 'DELETE', headers: ADMIN });
      feed = 0;
    });

    /** A visitor on the shop: the SDK with <svc-recommendations> showing three cards of the feed, each seen. */
    async function visit(): Promise<{ svc: ServiceJs; el: SvcRecommendations; products: Product[] }> {
      const svc = makeSvc({ api, writeKey: WRITE_KEY });
      svc.use(recommendations());
      const seen = captureEvents();
      const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed=${feed} limit="3"></svc-recommendations>`);
      await settled(el);
      expect(el.status).to.equal('ready');
      const products = el.products as unknown as Product[];
      expect(products).to.have.length(3);
      for (const p of products) expect(p.price, `price of ${p.id}`).to.be.a('number');
      // The element reports an impression when a card is on screen (IntersectionObserver, after a rendering update).
      const impressions = (): number => seen.events.filter((e) => e.name === 'Product impression').length;
      for (let frame = 0; frame < 120 && impressions() < 3; frame++) await new Promise(requestAnimationFrame);
      seen.stop();
      expect(impressions(), 'an impression per card').to.equal(3);
      return { svc, el, products };
    }

    /**
     * Another device: a browser holding none of the first one's storage. The first device's SDK is gone with its page
     * (its events delivered first), and its localStorage ids, sessionStorage and IndexedDB outbox are wiped, so the
     * SDK starts a new anonymous profile, as on a first visit from a new device.
     */
    async function anotherDevice(first: { svc: ServiceJs; el: SvcRecommendations }): Promise<ServiceJs> {
      await first.svc.flush();
      first.el.remove();
      await cleanup();
      sessionStorage.clear();
      return makeSvc({ api, writeKey: WRITE_KEY });
    }

    /** The feed's report from a day ago to now, `query` added. */
    async function report(query = ''): Promise<FeedReportAnswer> {
      const range = `from=${new Date(Date.now() - 24 * HOUR).toISOString()}&to=${new Date(Date.now() + 60_000).toISOString()}`;
      const response = await fetch(`${shop}/feeds/${feed}/report?${range}${query}`, { headers: ADMIN });
      expect(response.status, await response.clone().text()).to.equal(200);
      return response.json() as Promise<FeedReportAnswer>;
    }

    /** Asks for the report until `received` holds: the outbox delivers on its own schedule. */
    async function reportOnce(received: (answer: FeedReportAnswer) => boolean, what: string, query = ''): Promise<FeedReportAnswer> {
      let answer = await report(query);
      for (let i = 0; i < 200 && !received(answer); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        answer = await report(query);
      }
      if (!received(answer)) throw new Error(`gave up waiting for ${what}: ${JSON.stringify(answer.totals)}`);
      return answer;
    }

    it('credits an order placed on another device after sign-in to the feed and to card 2, the card clicked, with its cart', async () => {
      await newFeed();
      const userId = `buyer-${crypto.randomUUID()}`;
      // Device A: the visitor sees three cards, clicks the second, adds it to the cart, signs in.
      const phone = await visit();
      const [, second, third] = phone.products as [Product, Product, Product];
      clickCard(phone.el, 2);
      phone.svc.productAdd(line(second));
      phone.svc.identify({ userId });
      const phoneProfile = localStorage.getItem('svc.profileId');
      // Device B: a new anonymous profile; the visitor signs in with the same user id and orders two of the product,
      // and one of card 3's, which nobody clicked, in the same order.
      const laptop = await anotherDevice(phone);
      laptop.identify({ userId });
      laptop.productOrdered([line(second, 2), line(third)]);
      await laptop.flush();
      expect(localStorage.getItem('svc.profileId'), 'the second device is another profile').to.be.a('string').and.not.equal(phoneProfile);

      const answer = await reportOnce((a) => a.totals.orders > 0 && a.totals.impressions === 3, 'the order', '&by=position');
      expect(answer.feed).to.equal(feed);
      expect(answer.attributionHours).to.equal(24);
      const t = answer.totals;
      expect(t.impressions).to.equal(3);
      expect(t.clicks).to.equal(1);
      expect(t.carts).to.equal(1);
      expect(t.orders, 'the line of card 3 (never clicked) is not credited').to.equal(1);
      expect(t.revenue).to.deep.equal({ [second.currency]: second.price * 2 });
      expect(t.revenueSources).to.deep.equal({ event: 1, catalog: 0, unpriced: 0 });
      const rows = byPosition(answer);
      expect(Object.keys(rows)).to.deep.equal(['1', '2', '3']);
      expect(rows[2]).to.include({ impressions: 1, clicks: 1, carts: 1, orders: 1 });
      expect(rows[2]!.revenue).to.deep.equal({ [second.currency]: second.price * 2 });
      for (const n of [1, 3]) {
        expect(rows[n], `position ${n}`).to.include({ impressions: 1, clicks: 0, carts: 0, orders: 0 });
        expect(rows[n]!.revenue).to.deep.equal({});
      }
    });

    it('credits nothing for an order of a product the person never clicked', async () => {
      await newFeed();
      const visitor = await visit();
      const [first, , third] = visitor.products as [Product, Product, Product];
      clickCard(visitor.el, 1);
      visitor.svc.productOrdered([line(third, 3)]);
      // Queued after the order: once the report credits this cart, the order before it has been received too (the
      // outbox sends oldest first, a batch is stored in one transaction).
      visitor.svc.productAdd(line(first));
      await visitor.svc.flush();

      const t = (await reportOnce((a) => a.totals.carts === 1 && a.totals.impressions === 3, 'the cart after the order')).totals;
      expect(t.clicks).to.equal(1);
      expect(t.orders).to.equal(0);
      expect(t.revenue).to.deep.equal({});
      expect(t.revenueSources).to.deep.equal({ event: 0, catalog: 0, unpriced: 0 });
    });

    it('does not credit an order to a click older than the feed\'s attribution window, and does under a longer one', async () => {
      await newFeed({ attributionHours: 1 });
      const visitor = await visit();
      const second = visitor.products[1]!;
      // A click two hours old, made honestly: the SDK stamps the click on a clock two hours back and keeps it in its
      // outbox (no send can start while the click handler runs); the batch that delivers it carries `sentAt` on the
      // real clock, so the service places the click at receivedAt − (sentAt − timestamp), two hours before it received
      // it — what it does for any click delivered late (a page closed offline and reopened). The service's own clock
      // and database are untouched.
      const clock = sinon.useFakeTimers({ now: Date.now() - 2 * HOUR, toFake: ['Date'] });
      try {
        clickCard(visitor.el, 2);
      } finally {
        clock.restore();
      }
      visitor.svc.productOrdered([line(second)]);
      await visitor.svc.flush();

      // Under a 3-hour window (the report's `attributionHours=`) the order is the click's: it was received.
      const longer = await reportOnce((a) => a.totals.orders === 1, 'the order under a 3-hour window', '&by=position&attributionHours=3');
      expect(longer.attributionHours).to.equal(3);
      expect(byPosition(longer)[2]).to.include({ clicks: 1, orders: 1 });
      expect(longer.totals.revenue).to.deep.equal({ [second.currency]: second.price });
      // Under the feed's own hour the click still counts as a click, and credits nothing.
      const own = await report('&by=position');
      expect(own.attributionHours).to.equal(1);
      expect(own.totals.clicks).to.equal(1);
      expect(own.totals.orders).to.equal(0);
      expect(own.totals.revenue).to.deep.equal({});
      expect(byPosition(own)[2]).to.include({ clicks: 1, orders: 0 });
    });
  });
}
