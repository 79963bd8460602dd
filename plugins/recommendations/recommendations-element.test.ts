// <svc-recommendations> against our running service: web-test-runner starts dist/server.mjs with
// test/fixtures/recommendations.config.json and proxies /v1 to it (test/helpers/service-under-test.mjs).
// Project `shop`: p1–p3 available, p4 not, x1–x4 carry XSS attempts; project `closed`: nothing available.
import { expect, fixture, html } from '@open-wc/testing';
import sinon from 'sinon';
import type { ServiceEvent } from '../../src/index.js';
import { captureEvents, cleanup, makeSvc } from '../../test/helpers/svc.js';
import { recommendations, type SvcRecommendations } from './index.js';
import { settled } from '../../test/helpers/settled.js';

const api = `${location.origin}/v1`;
const KEYS: Record<string, string> = { shop: 'web1.p4ss', closed: 'web2.p4ss' };

function install(project = 'shop'): () => void {
  return makeSvc({ api, project, writeKey: KEYS[project] }).use(recommendations());
}

/** IntersectionObserver reports after a rendering update: a few frames let pending reports arrive. */
function frames(n = 3): Promise<void> {
  return new Promise((resolve) => {
    const step = (left: number): void => void (left === 0 ? resolve() : requestAnimationFrame(() => step(left - 1)));
    step(n);
  });
}

/** Fetches and renders again, then lets the observers report. */
async function rerendered(el: SvcRecommendations): Promise<void> {
  await el.refresh();
  await settled(el);
  await frames();
}

function nextEvent(match: (e: ServiceEvent) => boolean): Promise<ServiceEvent> {
  return new Promise((resolve) => {
    const listener = (e: WindowEventMap['svc:event']): void => {
      if (!match(e.detail)) return;
      window.removeEventListener('svc:event', listener);
      resolve(e.detail);
    };
    window.addEventListener('svc:event', listener);
  });
}

const cards = (el: SvcRecommendations) => [...el.shadowRoot!.querySelectorAll('li')];
const titles = (el: SvcRecommendations) => cards(el).map((li) => li.querySelector('[part="title"]')!.textContent);
const impressions = (events: ServiceEvent[]) => events.filter((e) => e.name === 'Product impression');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
/** An event's data without its recommendationId (a new UUID per answer, checked on its own). */
const card = (e: ServiceEvent | undefined) => {
  const { recommendationId, ...rest } = (e?.data ?? {}) as Record<string, unknown>;
  expect(recommendationId).to.match(UUID);
  return rest;
};
const feedCalls = (spy: sinon.SinonSpy) => spy.getCalls().filter((c) => String(c.args[0]).includes('/feeds/'));

describe('<svc-recommendations> against the service', () => {
  let remove: (() => void) | undefined;
  let capture: ReturnType<typeof captureEvents> | undefined;
  afterEach(async () => {
    capture?.stop();
    capture = undefined;
    remove?.();
    remove = undefined;
    window.scrollTo(0, 0);
    await cleanup();
  });

  it('shows the loading slot, then built-in cards (link, title, price) with status ready', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`
      <svc-recommendations feed="1" limit="3"><p slot="loading">Loading suggestions…</p></svc-recommendations>`);
    expect(el.getAttribute('status')).to.equal('loading');
    expect(el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="loading"]')!.assignedElements()).to.have.length(1);
    await settled(el);
    expect(el.getAttribute('status')).to.equal('ready');
    const list = el.shadowRoot!.querySelector('ul')!;
    expect(list.getAttribute('role')).to.equal('list');
    expect(list.getAttribute('part')).to.equal('list');
    expect(cards(el)).to.have.length(3);
    const mug = cards(el).find((li) => li.textContent!.includes('Ceramic Mug'))!;
    // The catalog's relative addresses come back absolute, against where the service was reached (this page's origin).
    expect(mug.querySelector('a')!.getAttribute('href')).to.equal(new URL('/p/p1', location.origin).href);
    expect(mug.querySelector('a')!.getAttribute('part')).to.equal('link');
    // In the visitor's locale and the product's currency, never the feed's raw `12.5 EUR`.
    const price = mug.querySelector('[part="price"]')!.textContent;
    expect(price).to.equal(new Intl.NumberFormat(undefined, { style: 'currency', currency: 'EUR' }).format(12.5));
    expect(price).not.to.contain('12.5 EUR');
    expect(mug.querySelector('img')!.getAttribute('src')).to.equal(new URL('/img/p1.svg', location.origin).href);
  });

  it('never shows an unavailable product', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="20"></svc-recommendations>`);
    await settled(el);
    expect(titles(el)).to.include('Teapot');
    expect(titles(el)).not.to.include('Sold out kettle');
  });

  it('is empty (status and slot) when the feed has nothing to recommend', async () => {
    remove = install('closed');
    const el = await fixture<SvcRecommendations>(html`
      <svc-recommendations feed="1"><p slot="empty">Nothing to suggest yet.</p></svc-recommendations>`);
    await settled(el);
    expect(el.getAttribute('status')).to.equal('empty');
    expect(el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="empty"]')!.assignedElements()).to.have.length(1);
    // The cards' box stays (empty), so what follows does not move up.
    const list = el.shadowRoot!.querySelector('ul');
    expect(list !== null && getComputedStyle(list).visibility).to.equal('hidden');
    expect(el.getBoundingClientRect().height).to.be.greaterThan(100);
  });

  it('gives its box up when it settles empty with `collapse`', async () => {
    remove = install('closed');
    const el = await fixture<SvcRecommendations>(html`
      <svc-recommendations feed="1" collapse><p slot="empty" style="margin: 0; height: 20px">Nothing yet.</p></svc-recommendations>`);
    await settled(el);
    expect(el.getAttribute('status')).to.equal('empty');
    const list = el.shadowRoot!.querySelector('ul');
    expect(list !== null && getComputedStyle(list).display).to.equal('none');
    expect(el.getBoundingClientRect().height).to.be.lessThan(30);
  });

  it('reserves the final size while loading: its height loading equals its height with the cards (default layout)', async () => {
    // No SDK instance yet: the element stays loading, with `limit` empty cards.
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="3" style="width: 640px"></svc-recommendations>`);
    expect(el.status).to.equal('loading');
    const loading = el.getBoundingClientRect().height;
    expect(loading).to.be.greaterThan(100);
    expect(el.shadowRoot!.querySelector('ul')!.inert, 'the empty cards are not for screen readers or focus').to.equal(true);
    remove = install();
    await settled(el);
    expect(el.status).to.equal('ready');
    expect(cards(el)).to.have.length(3);
    expect(el.getBoundingClientRect().height).to.equal(loading);
    expect(el.shadowRoot!.querySelector('ul')!.inert).to.equal(false);
  });

  it('keeps the box of `limit` cards when the feed has fewer products (the missing cards stay, unseen), and gives the rest up with `collapse`', async () => {
    // Project shop has 7 available products. At 640 px the cards are three a row: limit 12 holds four rows while
    // loading, and the 7 products fill three of them.
    remove = install();
    const kept = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="12" style="width: 640px"></svc-recommendations>`);
    const loading = kept.getBoundingClientRect().height;
    await settled(kept);
    expect(kept.status).to.equal('ready');
    const shown = cards(kept).filter((li) => getComputedStyle(li).visibility !== 'hidden');
    expect(kept.products.length).to.be.within(7, 9);
    expect(shown, 'a card seen for each product, no more').to.have.length(kept.products.length);
    expect(kept.getBoundingClientRect().height, 'nothing below moves when the products arrive').to.equal(loading);
    // Alone on the page again: beside `kept` it would show none of the products `kept` shows (one page, no duplicates).
    kept.remove();
    const collapsed = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="12" collapse style="width: 640px"></svc-recommendations>`);
    await settled(collapsed);
    expect(collapsed.status).to.equal('ready');
    expect(collapsed.getBoundingClientRect().height).to.be.lessThan(loading);
  });

  it('moved in the page while no SDK instance exists, it still fetches once one registers', async () => {
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="2"></svc-recommendations>`);
    expect(el.status).to.equal('loading');
    const elsewhere = document.createElement('div');
    document.body.append(elsewhere);
    elsewhere.append(el);
    remove = install();
    await settled(el);
    expect(el.status).to.equal('ready');
    expect(cards(el)).to.have.length(2);
    elsewhere.remove();
  });

  it('shows the error slot for an unknown feed (the service answers 404)', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`
      <svc-recommendations feed="99"><p slot="error">Suggestions are unavailable.</p></svc-recommendations>`);
    await settled(el);
    expect(el.getAttribute('status')).to.equal('error');
    expect(el.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="error"]')!.assignedElements()).to.have.length(1);
  });

  it('an invalid feed attribute is the error state, not an exception on the page', async () => {
    remove = install();
    const onError = sinon.spy();
    window.addEventListener('unhandledrejection', onError);
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="abc"></svc-recommendations>`);
    await settled(el);
    await frames(1);
    window.removeEventListener('unhandledrejection', onError);
    expect(el.status).to.equal('error');
    expect(onError.called).to.equal(false);
  });

  it('fills the page template: data-field as text, data-field-<attr> as attributes', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`
      <svc-recommendations feed="1" limit="20" fields="title,url,image">
        <template><a class="card" data-field-href="url" data-field-title="title"><img data-field-src="image" data-field-alt="title"><b data-field="title"></b></a></template>
      </svc-recommendations>`);
    await settled(el);
    const items = [...el.querySelectorAll(':scope > ul > li')];
    expect(items.length).to.be.greaterThan(3);
    const mug = items.find((li) => li.querySelector('b')!.textContent === 'Ceramic Mug')!;
    // The catalog's relative addresses come back absolute, against where the service was reached (this page's origin).
    expect(mug.querySelector('a')!.getAttribute('href')).to.equal(new URL('/p/p1', location.origin).href);
    expect(mug.querySelector('a')!.getAttribute('title')).to.equal('Ceramic Mug');
    expect(mug.querySelector('img')!.getAttribute('src')).to.equal(new URL('/img/p1.svg', location.origin).href);
    expect(mug.querySelector('img')!.getAttribute('alt')).to.equal('Ceramic Mug');
    const teapot = items.find((li) => li.querySelector('b')!.textContent === 'Teapot')!;
    expect(teapot.querySelector('a')!.getAttribute('href')).to.equal('https://shop.example/p/p2');
    expect(el.shadowRoot!.querySelector<HTMLSlotElement>('slot:not([name])')!.assignedElements()).to.include(el.querySelector(':scope > ul'));
  });

  for (const layout of ['built-in cards', 'a page template'] as const) {
    it(`renders XSS attempts in titles and URLs inert (${layout})`, async () => {
      remove = install();
      const el = await fixture<SvcRecommendations>(layout === 'built-in cards'
        ? html`<svc-recommendations feed="1" limit="20"></svc-recommendations>`
        : html`<svc-recommendations feed="1" limit="20">
            <template><a data-field-href="url"><img data-field-src="image" data-field-alt="title"><span data-field="title"></span></a></template>
          </svc-recommendations>`);
      await settled(el);
      await frames();
      const root: ParentNode = layout === 'built-in cards' ? el.shadowRoot! : el;
      const texts = [...root.querySelectorAll('li')].map((li) => li.textContent);
      expect(texts.some((t) => t!.includes('<img src=x onerror="window.pwned=1">'))).to.equal(true);
      expect(texts.some((t) => t!.includes('<script>window.pwned=4</script>'))).to.equal(true);
      expect(root.querySelectorAll('script, [onerror], [onload]')).to.have.length(0);
      for (const a of root.querySelectorAll('a')) {
        const href = a.getAttribute('href');
        if (href !== null) expect(new URL(href, location.href).protocol, href).to.match(/^https?:$/);
      }
      for (const img of root.querySelectorAll('img')) {
        const src = img.getAttribute('src');
        if (src !== null) expect(new URL(src, location.href).protocol, src).to.match(/^https?:$/);
      }
      // Each of x1–x4 is shown, without a link target
      for (const title of ['<img src=x onerror="window.pwned=1">', '<script>window.pwned=4</script>', 'Data link', 'Smuggled scheme']) {
        const item = [...root.querySelectorAll('li')].find((li) => li.textContent!.includes(title));
        expect(item, title).not.to.equal(undefined);
        expect(item!.querySelector('a')!.hasAttribute('href'), title).to.equal(false);
      }
      expect((window as { pwned?: number }).pwned).to.equal(undefined);
    });
  }

  it('a lazy element far below the fold fetches only when scrolled near', async () => {
    remove = install();
    const fetchSpy = sinon.spy(window, 'fetch');
    const wrapper = await fixture<HTMLDivElement>(html`
      <div><div style="height: 4000px"></div><svc-recommendations lazy feed="1" limit="2"></svc-recommendations></div>`);
    const el = wrapper.querySelector('svc-recommendations')!;
    await frames();
    expect(feedCalls(fetchSpy)).to.have.length(0);
    expect(el.status).to.equal('loading');
    el.scrollIntoView();
    await settled(el);
    expect(el.status).to.equal('ready');
    expect(feedCalls(fetchSpy)).to.have.length(1);
  });

  it('tracks an impression once an item is at least half visible, once per item per render', async () => {
    remove = install();
    capture = captureEvents();
    const wrapper = await fixture<HTMLDivElement>(html`
      <div>
        <style>#recs { --svc-recommendations-min-width: 100%; --svc-recommendations-gap: 0; } #recs::part(item) { height: 200px; overflow: hidden; }</style>
        <div id="above"></div>
        <svc-recommendations id="recs" feed="1" limit="2"></svc-recommendations>
        <div style="height: 3000px"></div>
      </div>`);
    const el = wrapper.querySelector<SvcRecommendations>('#recs')!;
    // Only the first 60px of the second card (30%) in the viewport once the cards are there.
    const above = wrapper.querySelector<HTMLElement>('#above')!;
    above.style.height = `${window.innerHeight - 200 - 60 - el.getBoundingClientRect().top}px`;
    const first = nextEvent((e) => e.name === 'Product impression');
    await settled(el);
    const [one, two] = el.products;
    const firstSeen = await first;
    expect(card(firstSeen)).to.deep.equal({ productId: one!.id, position: 1, feed: 1 });
    await frames();
    expect(impressions(capture.events).map((e) => e.data?.productId)).to.deep.equal([one!.id]);

    const second = nextEvent((e) => e.name === 'Product impression');
    window.scrollBy(0, 100); // now 160px of 200 (80%)
    const secondSeen = await second;
    expect(card(secondSeen)).to.deep.equal({ productId: two!.id, position: 2, feed: 1 });
    expect(secondSeen.data!.recommendationId, 'one answer, one id').to.equal(firstSeen.data!.recommendationId);
    expect(impressions(capture.events)[1]).to.include({ type: 'product' });

    window.scrollTo(0, 0);
    await frames();
    window.scrollBy(0, 100);
    await frames();
    expect(impressions(capture.events)).to.have.length(2);

    // A new render counts again.
    await rerendered(el);
    expect(impressions(capture.events)).to.have.length(4);
  });

  it('stops observing when taken out of the page, and watches again when put back', async () => {
    remove = install();
    capture = captureEvents();
    const wrapper = await fixture<HTMLDivElement>(html`<div><svc-recommendations feed="1" limit="2"></svc-recommendations></div>`);
    const el = wrapper.querySelector<SvcRecommendations>('svc-recommendations')!;
    await settled(el);
    await frames();
    expect(impressions(capture.events)).to.have.length(2);
    const disconnect = sinon.spy(IntersectionObserver.prototype, 'disconnect');
    el.remove();
    expect(disconnect.callCount).to.equal(1);
    disconnect.restore();
    // Back in the page: the render's items were counted already, and a move is not a new render.
    wrapper.append(el);
    await frames();
    expect(impressions(capture.events)).to.have.length(2);
    // A new render counts again: the element watches once more.
    await rerendered(el);
    expect(impressions(capture.events)).to.have.length(4);
  });

  it('a lazy element moved before it came near still fetches once near in its new place', async () => {
    remove = install();
    const wrapper = await fixture<HTMLDivElement>(html`
      <div><div id="top"></div><div style="height: 4000px"></div><svc-recommendations lazy feed="1" limit="2"></svc-recommendations></div>`);
    const el = wrapper.querySelector<SvcRecommendations>('svc-recommendations')!;
    await frames();
    expect(el.status).to.equal('loading');
    wrapper.querySelector('#top')!.append(el);
    await settled(el);
    expect(el.status).to.equal('ready');
  });

  it('tracks a click with the product and its position (built-in cards)', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="3"></svc-recommendations>`);
    await settled(el);
    capture = captureEvents();
    const stay = (e: Event): void => e.preventDefault(); // no navigation away from the test page
    window.addEventListener('click', stay, true);
    cards(el)[1]!.querySelector('a')!.click();
    window.removeEventListener('click', stay, true);
    const clicks = capture.events.filter((e) => e.name === 'Product clicked');
    expect(clicks).to.have.length(1);
    expect(clicks[0]).to.include({ type: 'product' });
    expect(card(clicks[0])).to.deep.equal({ productId: el.products[1]!.id, position: 2, feed: 1 });
    expect(clicks[0]!.eventId).to.be.a('string');
  });

  it('tracks a click inside a page template item with its position', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`
      <svc-recommendations feed="1" limit="3"><template><button type="button" data-field="title"></button></template></svc-recommendations>`);
    await settled(el);
    capture = captureEvents();
    el.querySelectorAll('button')[2]!.click();
    const clicks = capture.events.filter((e) => e.name === 'Product clicked');
    expect(clicks.map(card)).to.deep.equal([{ productId: el.products[2]!.id, position: 3, feed: 1 }]);
  });

  it('a click carries the recommendationId of the answer shown: a new answer, a new id', async () => {
    remove = install();
    const el = await fixture<SvcRecommendations>(html`
      <svc-recommendations feed="1" limit="2"><template><button type="button" data-field="title"></button></template></svc-recommendations>`);
    await settled(el);
    capture = captureEvents();
    el.querySelectorAll('button')[0]!.click();
    await el.refresh();
    await settled(el);
    el.querySelectorAll('button')[0]!.click();
    const ids = capture.events.filter((e) => e.name === 'Product clicked').map((e) => e.data?.recommendationId);
    expect(ids).to.have.length(2);
    expect(ids[0]).to.match(UUID);
    expect(ids[1]).to.match(UUID);
    expect(ids[0]).to.not.equal(ids[1]);
  });

  it('refresh() fetches again, and changing an attribute re-fetches', async () => {
    remove = install();
    const fetchSpy = sinon.spy(window, 'fetch');
    const el = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="2"></svc-recommendations>`);
    await settled(el);
    expect(feedCalls(fetchSpy)).to.have.length(1);
    const refreshed = el.refresh();
    expect(el.status).to.equal('loading');
    await refreshed;
    await settled(el);
    expect(feedCalls(fetchSpy)).to.have.length(2);
    el.setAttribute('limit', '3');
    await el.updateComplete;
    await settled(el);
    expect(feedCalls(fetchSpy)).to.have.length(3);
    expect(JSON.parse(String((feedCalls(fetchSpy)[2]!.args[1] as RequestInit).body))).to.include({ limit: 3 });
    expect(cards(el)).to.have.length(3);
    el.setAttribute('product-id', 'p1');
    await el.updateComplete;
    await settled(el);
    expect(JSON.parse(String((feedCalls(fetchSpy)[3]!.args[1] as RequestInit).body))).to.include({ productId: 'p1' });
    expect(el.products.map((p) => p.id)).not.to.include('p1');
  });

  it('is accessible while loading, ready, empty and in error', async () => {
    remove = install();
    const ready = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1" limit="20"><p slot="loading">Loading…</p></svc-recommendations>`);
    await expect(ready).to.be.accessible();
    await settled(ready);
    expect(ready.status).to.equal('ready');
    await expect(ready).to.be.accessible();
    const error = await fixture<SvcRecommendations>(html`<svc-recommendations feed="99"><p slot="error">Unavailable.</p></svc-recommendations>`);
    await settled(error);
    expect(error.status).to.equal('error');
    await expect(error).to.be.accessible();
    remove();
    remove = install('closed');
    const empty = await fixture<SvcRecommendations>(html`<svc-recommendations feed="1"><p slot="empty">Nothing yet.</p></svc-recommendations>`);
    await settled(empty);
    expect(empty.status).to.equal('empty');
    await expect(empty).to.be.accessible();
  });
});
