// One page, no duplicates, end to end: <svc-recommendations> widgets and the SDK in Chromium against our real service,
// once on SQLite (`/v1`) and once on PostgreSQL (`/pg/v1`), both started by test/helpers/service-under-test.mjs. The
// fixture's shop has six available products besides the page's own (p1); each test makes two feeds of its own, both
// `popular` (the same list, were nothing deduped), through the management API.
import { expect, fixture, html } from '@open-wc/testing';
import sinon from 'sinon';
import { recommendations, type SvcRecommendations } from '../plugins/recommendations/index.js';
import { cleanup, makeSvc } from './helpers/svc.js';
import { settled } from './helpers/settled.js';

const ADMIN = { Authorization: 'Bearer admtest.s3cret' };
const SERVICES = [
  { database: 'SQLite', api: `${location.origin}/v1` },
  { database: 'PostgreSQL', api: `${location.origin}/pg/v1` },
];

const ids = (el: SvcRecommendations): string[] => el.products.map((p) => p.id);
const bodyOf = (call: sinon.SinonSpyCall): Record<string, unknown> => JSON.parse(String((call.args[1] as RequestInit).body)) as Record<string, unknown>;

for (const { database, api } of SERVICES) {
  const shop = `${api}/acme/projects/shop`;

  describe(`one page, no duplicates (${database})`, function () {
    // The first request for PostgreSQL starts its service (a new database, its migrations).
    this.timeout(60_000);
    let feeds: number[] = [];

    /** A popular feed of this test's own: a random id nobody else uses. */
    async function newFeed(settings: Record<string, unknown> = {}): Promise<number> {
      const id = 1000 + Math.floor(Math.random() * 1_000_000_000);
      const response = await fetch(`${shop}/feeds/${id}`, {
        method: 'PUT', headers: { ...ADMIN, 'Content-Type': 'application/json' }, body: JSON.stringify({ strategy: 'popular', ...settings }),
      });
      expect(response.status, await response.clone().text()).to.equal(201);
      feeds.push(id);
      return id;
    }

    afterEach(async () => {
      await cleanup();
      for (const id of feeds) await fetch(`${shop}/feeds/${id}`, { method: 'DELETE', headers: ADMIN });
      feeds = [];
    });

    it('a product page with two widgets never shows one product twice, and asks for both in one request', async () => {
      const [a, b] = [await newFeed(), await newFeed({ dedupe: true })];
      const fetchSpy = sinon.spy(window, 'fetch');
      makeSvc({ api, writeKey: 'web1.p4ss' }).use(recommendations());
      const page = await fixture<HTMLElement>(html`<div>
        <svc-recommendations feed=${a} limit="3" product-id="p1"></svc-recommendations>
        <svc-recommendations feed=${b} limit="3" product-id="p1"></svc-recommendations>
      </div>`);
      const [first, second] = [...page.querySelectorAll('svc-recommendations')];
      await Promise.all([settled(first!), settled(second!)]);
      expect([first!.status, second!.status]).to.deep.equal(['ready', 'ready']);
      const shown = [...ids(first!), ...ids(second!)];
      expect(shown).to.have.length(6);
      expect(new Set(shown).size, shown.join()).to.equal(6);
      expect(shown).not.to.include('p1');
      expect(shown).not.to.include('p4'); // sold out
      const feedCalls = fetchSpy.getCalls().filter((c) => String(c.args[0]).includes('/feeds/'));
      expect(feedCalls.map((c) => String(c.args[0]))).to.deep.equal([`${shop}/feeds/data`]);
      expect(bodyOf(feedCalls[0]!).requests).to.deep.equal([
        { feed: a, limit: 3, fields: ['title', 'price', 'currency', 'image', 'url'], productId: 'p1' },
        { feed: b, limit: 3, fields: ['title', 'price', 'currency', 'image', 'url'], productId: 'p1' },
      ]);
    });

    it('a widget added later says what the page shows, and still repeats nothing', async () => {
      const [a, b] = [await newFeed(), await newFeed()];
      const fetchSpy = sinon.spy(window, 'fetch');
      makeSvc({ api, writeKey: 'web1.p4ss' }).use(recommendations());
      const first = await fixture<SvcRecommendations>(html`<svc-recommendations feed=${a} limit="4" product-id="p1"></svc-recommendations>`);
      await settled(first);
      expect(ids(first)).to.have.length(4);
      const later = document.createElement('svc-recommendations');
      Object.assign(later, { feed: b, limit: 4, productId: 'p1' });
      first.after(later);
      await settled(later);
      const call = fetchSpy.getCalls().filter((c) => String(c.args[0]).includes(`/feeds/${b}/data`))[0]!;
      expect(bodyOf(call).excludeProducts).to.have.members(ids(first));
      // Six products besides p1: two are left for the later widget.
      expect(ids(later)).to.have.length(2);
      expect(ids(later).filter((id) => ids(first).includes(id))).to.deep.equal([]);
      later.remove();
    });

    it('a widget of an unknown feed settles in error, and the other widget of its batch still shows its products', async () => {
      const a = await newFeed();
      makeSvc({ api, writeKey: 'web1.p4ss' }).use(recommendations());
      const page = await fixture<HTMLElement>(html`<div>
        <svc-recommendations feed="999999999999" limit="3"></svc-recommendations>
        <svc-recommendations feed=${a} limit="3"></svc-recommendations>
        <svc-recommendations feed="not a number" limit="3"></svc-recommendations>
      </div>`);
      const widgets = [...page.querySelectorAll('svc-recommendations')];
      await Promise.all(widgets.map((el) => settled(el)));
      expect(widgets.map((el) => el.status)).to.deep.equal(['error', 'ready', 'error']);
      expect(ids(widgets[1]!)).to.have.length(3);
    });

    it('a feed that keeps duplicates (dedupe: false) may show what another widget shows', async () => {
      const [a, b] = [await newFeed(), await newFeed({ dedupe: false })];
      makeSvc({ api, writeKey: 'web1.p4ss' }).use(recommendations());
      const page = await fixture<HTMLElement>(html`<div>
        <svc-recommendations feed=${a} limit="3" product-id="p1"></svc-recommendations>
        <svc-recommendations feed=${b} limit="3" product-id="p1"></svc-recommendations>
      </div>`);
      const [first, second] = [...page.querySelectorAll('svc-recommendations')];
      await Promise.all([settled(first!), settled(second!)]);
      // The deduping feed leaves out what the other shows; that one shows the most popular, as it would alone.
      expect(ids(first!).filter((id) => ids(second!).includes(id))).to.deep.equal([]);
      const alone = await (await fetch(`${shop}/feeds/${b}/data`, {
        method: 'POST', headers: { Authorization: `Basic ${btoa('web1:p4ss')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ profileId: 'someone', sourceId: 'web', limit: 3, fields: [], productId: 'p1' }),
      })).json() as { products: { id: string }[] };
      expect(ids(second!)).to.deep.equal(alone.products.map((p) => p.id));
    });
  });
}
