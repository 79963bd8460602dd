// A feed's merchandising rules on a product page, end to end (docs/merchandising-rules.md): <svc-recommendations> and
// the SDK in Chromium against our real service, once on SQLite (`/v1`) and once on PostgreSQL (`/pg/v1`), both started
// by test/helpers/service-under-test.mjs. Each test uploads products of its own (ids no other test uses) with
// `PUT …/catalog`, other shoppers' orders that make them bought together with the page's product, and a feed of its
// own through the management API; it waits for the models to count the orders by asking the feed preview, never by
// sleeping. When it is done its feeds are deleted and its products made unavailable (the catalog has no delete), so the
// other tests of the run see the fixture's shop as it was. One page, no duplicates: test/recommendation-dedupe.test.ts.
import { expect, fixture, html } from '@open-wc/testing';
import type { FeedPreviewAnswer } from '../wire/feed-preview.js';
import type { ServiceJs } from '../src/index.js';
import { recommendations, type SvcRecommendations } from '../plugins/recommendations/index.js';
import { cleanup, makeSvc } from './helpers/svc.js';
import { settled } from './helpers/settled.js';

const ADMIN = { Authorization: 'Bearer admtest.s3cret' };
const API_KEY = 'srv1.s3cret';
const WRITE_KEY = 'web1.p4ss';
const BASIC = { Authorization: `Basic ${btoa('web1:p4ss')}` };
const SERVICES = [
  { database: 'SQLite', api: `${location.origin}/v1` },
  { database: 'PostgreSQL', api: `${location.origin}/pg/v1` },
];

interface Product {
  id: string;
  title: string;
  price: number;
  currency: string;
  category: string;
  available: boolean;
}

const ids = (el: SvcRecommendations): string[] => el.products.map((p) => p.id);
const listed = (answer: readonly { id: string }[]): string[] => answer.map((p) => p.id);

/** Fetches the widget's feed again, as a new request of the same page would, and waits for its render. */
async function reload(el: SvcRecommendations): Promise<void> {
  await el.refresh();
  await settled(el);
}

/** Asks `read` again until `done` holds of its answer: the outbox and the models work on their own schedule. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  let value = await read();
  for (let i = 0; i < 400 && !done(value); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  if (!done(value)) throw new Error(`gave up waiting for ${what}: ${JSON.stringify(value)}`);
  return value;
}

for (const { database, api } of SERVICES) {
  const shop = `${api}/acme/projects/shop`;

  describe(`merchandising rules on a product page (${database})`, function () {
    // The first request for PostgreSQL starts its service (a new database, its migrations).
    this.timeout(60_000);
    let feeds: number[] = [];
    let uploaded: string[] = [];

    afterEach(async () => {
      await cleanup();
      sessionStorage.clear();
      for (const id of feeds) await fetch(`${shop}/feeds/${id}`, { method: 'DELETE', headers: ADMIN });
      if (uploaded.length > 0) await patchCatalog(uploaded.map((id) => ({ id, available: false })));
      feeds = [];
      uploaded = [];
    });

    /** Products of this test's own, `<random>-<name>`, in `category`, uploaded with the apiKey. */
    async function upload(names: readonly string[], category: (name: string) => string = () => 'rules'): Promise<Record<string, Product>> {
      const run = crypto.randomUUID().slice(0, 8);
      const products = names.map((name, i) => ({
        id: `r${run}-${name}`, title: `Rules item ${name}`, price: 10 + i, currency: 'EUR', category: `r${run}-${category(name)}`, available: true,
      }));
      const response = await fetch(`${shop}/catalog?apiKey=${API_KEY}`, {
        method: 'PUT', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(products),
      });
      expect(response.status, await response.clone().text()).to.equal(200);
      uploaded.push(...products.map((p) => p.id));
      return Object.fromEntries(names.map((name, i) => [name, products[i]!]));
    }

    async function patchCatalog(updates: Record<string, unknown>[]): Promise<unknown> {
      const response = await fetch(`${shop}/catalog?apiKey=${API_KEY}`, {
        method: 'PATCH', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(updates),
      });
      expect(response.status, await response.clone().text()).to.equal(200);
      return response.json();
    }

    /** Other shoppers' orders, one per basket, each by a profile of its own: what makes products bought together. */
    async function ordersOf(baskets: readonly Product[][]): Promise<void> {
      const batch = baskets.flatMap((basket) => {
        const [profileId, sessionId, pageId, orderId] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
        return basket.map((p) => ({
          eventId: crypto.randomUUID(), type: 'product', name: 'Product ordered', profileId, sessionId, pageId,
          timestamp: new Date().toISOString(), data: { productId: p.id, quantity: 1, price: p.price, currency: p.currency, orderId },
        }));
      });
      const response = await fetch(`${shop}/sources/web/track`, {
        method: 'POST', headers: { ...BASIC, 'Content-Type': 'application/json' }, body: JSON.stringify({ batch }),
      });
      expect(response.status, await response.clone().text()).to.equal(200);
    }

    /** A feed of this test's own (a random id nobody else uses), with `settings`. */
    async function newFeed(settings: Record<string, unknown>): Promise<number> {
      const id = 1000 + Math.floor(Math.random() * 1_000_000_000);
      const response = await fetch(`${shop}/feeds/${id}`, {
        method: 'PUT', headers: { ...ADMIN, 'Content-Type': 'application/json' }, body: JSON.stringify(settings),
      });
      expect(response.status, await response.clone().text()).to.equal(201);
      feeds.push(id);
      return id;
    }

    /** The console's preview of `feed` for the page's product (and a profile): it records nothing. */
    async function preview(feed: Record<string, unknown>, productId: string, profileId?: string): Promise<FeedPreviewAnswer> {
      const response = await fetch(`${shop}/feeds/preview`, {
        method: 'POST', headers: { ...ADMIN, 'Content-Type': 'application/json' },
        body: JSON.stringify({ feed: { id: 1, ...feed }, productId, ...(profileId !== undefined ? { profileId } : {}), limit: 20 }),
      });
      expect(response.status, await response.clone().text()).to.equal(200);
      return response.json() as Promise<FeedPreviewAnswer>;
    }

    /** Waits until the models list `expected`, in this order, as bought together with `page`. */
    async function boughtTogether(page: Product, expected: readonly Product[]): Promise<void> {
      const list = (answer: FeedPreviewAnswer): string[] =>
        listed(answer.strategies.find((s) => s.strategy === 'bought-together')!.products);
      await until(() => preview({ strategy: 'bought-together' }, page.id), (a) => list(a).join() === listed(expected).join(),
        `${listed(expected).join()} bought together with ${page.id}`);
    }

    /** The visitor: the SDK with <svc-recommendations>, and `el` (`markup`) on the page, settled. */
    async function visit(markup: ReturnType<typeof html>): Promise<{ svc: ServiceJs; el: SvcRecommendations }> {
      const svc = makeSvc({ api, writeKey: WRITE_KEY });
      svc.use(recommendations());
      return { svc, el: await fixture<SvcRecommendations>(markup) };
    }

    it('a product added to the cart leaves a bought-together feed at its next request, and stays out once ordered', async () => {
      const { page, a, b, c } = await upload(['page', 'a', 'b', 'c']);
      await ordersOf([[page!, a!, b!, c!], [page!, a!, b!], [page!, a!]]);
      await boughtTogether(page!, [a!, b!, c!]);
      const feed = await newFeed({ strategy: 'bought-together', exclude: ['in-cart', 'purchased'] });

      // A product page: the SDK's product context (productView), a widget without product-id. The popular fill after
      // the strategy's three: the whole shop, so a product left out is out of every source.
      const svc = makeSvc({ api, writeKey: WRITE_KEY });
      svc.use(recommendations());
      svc.productView(page!.id);
      const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed=${feed} limit="50"></svc-recommendations>`);
      await settled(el);
      expect(el.status).to.equal('ready');
      expect(ids(el).slice(0, 3)).to.deep.equal([a!.id, b!.id, c!.id]);
      expect(ids(el)).not.to.include(page!.id);

      // Into the cart through the outbox. The models count a visitor's cart in the pass that pairs it with the page's
      // product in their session (viewed together): once that pair is there, the cart is counted too.
      svc.productAdd({ productId: b!.id, quantity: 1, price: b!.price, currency: b!.currency });
      await svc.flush();
      const profileId = localStorage.getItem('svc.profileId')!;
      await until(() => preview({ strategy: 'viewed-together' }, page!.id),
        (answer) => listed(answer.strategies.find((s) => s.strategy === 'viewed-together')!.products).includes(b!.id), `${b!.id} counted`);
      await reload(el);
      expect(el.status).to.equal('ready');
      expect(ids(el).slice(0, 2), 'the cart\'s product gone, the others moved up').to.deep.equal([a!.id, c!.id]);
      expect(ids(el), 'not filled back in by the popular fallback either').not.to.include(b!.id);

      // Ordered: the order checks the cart out (a feed excluding only `in-cart` shows it again once the order is
      // counted), and `purchased` keeps it out of this one.
      svc.productOrdered([{ productId: b!.id, quantity: 1, price: b!.price, currency: b!.currency }]);
      await svc.flush();
      await until(() => preview({ strategy: 'bought-together', exclude: ['in-cart'] }, page!.id, profileId),
        (answer) => listed(answer.feed.products).includes(b!.id), `the order of ${b!.id} counted`);
      await reload(el);
      expect(el.status).to.equal('ready');
      expect(ids(el).slice(0, 2)).to.deep.equal([a!.id, c!.id]);
      expect(ids(el), 'ordered: out by purchased').not.to.include(b!.id);
    });

    it('a pinned product is at its position, the strategy\'s products around it', async () => {
      const { page, a, b, c, pinned } = await upload(['page', 'a', 'b', 'c', 'pinned']);
      await ordersOf([[page!, a!, b!, c!], [page!, a!, b!], [page!, a!]]);
      await boughtTogether(page!, [a!, b!, c!]);
      const feed = await newFeed({ strategy: 'bought-together', rules: [{ pin: pinned!.id, position: 2 }], fallback: [] });
      const { el } = await visit(html`<svc-recommendations feed=${feed} limit="4" product-id=${page!.id}></svc-recommendations>`);
      await settled(el);
      expect(el.status).to.equal('ready');
      expect(ids(el)).to.deep.equal([a!.id, pinned!.id, b!.id, c!.id]);
      // The card at position 2 shows it.
      expect(el.shadowRoot!.querySelectorAll('li')[1]!.textContent).to.include(pinned!.title);
    });

    it('a same-category filter holds on a product page: every card is of the page product\'s category', async () => {
      const category = (name: string): string => (name.startsWith('t') ? 'teapots' : 'mugs');
      const { page, m1, m2, m3, t1, t2 } = await upload(['page', 'm1', 'm2', 'm3', 't1', 't2'], category);
      // Bought together with the page's mug: a teapot most, then a mug, a mug and a teapot; m3 nobody ordered.
      await ordersOf([[page!, t1!, m1!], [page!, t1!, t2!, m2!]]);
      await boughtTogether(page!, [t1!, m1!, m2!, t2!]);
      const feed = await newFeed({
        strategy: 'bought-together', rules: [{ filter: { category: { same: true } } }], fallback: ['popular-in-category', 'popular'],
      });
      const svc = makeSvc({ api, writeKey: WRITE_KEY });
      svc.use(recommendations());
      svc.productView(page!.id);
      const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed=${feed} limit="10" fields="title,category"></svc-recommendations>`);
      await settled(el);
      expect(el.status).to.equal('ready');
      expect(el.products.map((p) => p.category), ids(el).join()).to.deep.equal([page!.category, page!.category, page!.category]);
      // The strategy's mugs in its order, then the category's other mug from the fallback; the teapots filtered out.
      expect(ids(el)).to.deep.equal([m1!.id, m2!.id, m3!.id]);
    });

    it('an unavailable product never appears: made unavailable with PATCH, it leaves the next answer, pinned or not', async () => {
      const { page, a, b, c, pinned } = await upload(['page', 'a', 'b', 'c', 'pinned']);
      await ordersOf([[page!, a!, b!, c!], [page!, a!, b!], [page!, a!]]);
      await boughtTogether(page!, [a!, b!, c!]);
      // The popular fill after the strategy: the whole shop, so an unavailable product is out of every source.
      const feed = await newFeed({ strategy: 'bought-together', rules: [{ pin: pinned!.id, position: 1 }] });
      const { el } = await visit(html`<svc-recommendations feed=${feed} limit="50" product-id=${page!.id}></svc-recommendations>`);
      await settled(el);
      expect(ids(el).slice(0, 4)).to.deep.equal([pinned!.id, a!.id, b!.id, c!.id]);

      expect(await patchCatalog([{ id: pinned!.id, available: false }, { id: b!.id, inventory: 0, available: false }]))
        .to.deep.equal({ updated: 2, notFound: [] });
      await reload(el);
      expect(el.status).to.equal('ready');
      expect(ids(el).slice(0, 2)).to.deep.equal([a!.id, c!.id]);
      expect(ids(el), 'the pin skipped').not.to.include(pinned!.id);
      expect(ids(el), 'out of the strategy and of the popular fill').not.to.include(b!.id);

      // Back in stock: back in the next answer, at the pin's position.
      await patchCatalog([{ id: pinned!.id, available: true }]);
      await reload(el);
      expect(ids(el).slice(0, 3)).to.deep.equal([pinned!.id, a!.id, c!.id]);
    });
  });
}
