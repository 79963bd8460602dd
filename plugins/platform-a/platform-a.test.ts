import { expect, fixture, html, oneEvent, waitUntil } from '@open-wc/testing';
import sinon from 'sinon';
import type { ServiceEvent } from '../../src/index.js';
import {
  leaveStorefront, lineItem, orderStatusPage, PRODUCT_ID, productForm, productPage, storefront, VARIANTS,
} from '../../test/fixtures/shopify-storefront.js';
import { captureEvents, cleanup, makeSvc } from '../../test/helpers/svc.js';
import { platformB } from '../platform-b/index.js';
import { platformA } from './index.js';

const products = (events: ServiceEvent[]): ServiceEvent[] => events.filter((e) => e.type === 'product');
const P = String(PRODUCT_ID);
const V0 = String(VARIANTS[0]);
const V1 = String(VARIANTS[1]);

/** The network edge: the Cart API answers `cartAnswer` (or `cartStatus`), the service accepts everything. */
function stubNetwork(cartAnswer: unknown = lineItem(VARIANTS[1]!), cartStatus = 200): sinon.SinonStub {
  return sinon.stub(window, 'fetch').callsFake(async (input) => {
    const cart = String(input instanceof Request ? input.url : input).includes('/cart/add');
    return new Response(JSON.stringify(cart ? cartAnswer : { accepted: 1, duplicates: 0 }), {
      status: cart ? cartStatus : 200, headers: { 'Content-Type': 'application/json' },
    });
  });
}

describe('platformA (Shopify)', () => {
  let capture: ReturnType<typeof captureEvents>;
  let fetchStub: sinon.SinonStub;

  beforeEach(() => {
    fetchStub = stubNetwork();
    capture = captureEvents();
  });
  afterEach(async () => {
    capture.stop();
    await cleanup();
    leaveStorefront();
  });

  const install = (flags = { platformA: true }): ReturnType<typeof makeSvc> => {
    const svc = makeSvc(flags);
    svc.use(platformA());
    return svc;
  };

  it('a product page emits Product viewed and makes the product the recommendation context', async () => {
    productPage();
    const svc = install();
    expect(products(capture.events).map((e) => [e.name, e.data])).to.deep.equal([['Product viewed', { productId: P }]]);
    expect(capture.events[0]).to.include({ type: 'product' });
    await svc.recommendation({ id: 1, quantity: 4, fields: ['title'] });
    const feedCall = fetchStub.getCalls().find((c) => String(c.args[0]).includes('/feeds/1/data'))!;
    expect(JSON.parse(String((feedCall.args[1] as RequestInit).body))).to.include({ productId: P });
  });

  it('Product viewed also dispatches svc:product', async () => {
    productPage();
    const dispatched = oneEvent(window, 'svc:product');
    install();
    expect((await dispatched).detail.eventName).to.equal('Product viewed');
  });

  it('page objects that appear only at DOMContentLoaded are still read (nothing lost on first load)', () => {
    Object.defineProperty(document, 'readyState', { configurable: true, get: () => 'loading' });
    try {
      install();
      expect(products(capture.events)).to.deep.equal([]);
      productPage();
      document.dispatchEvent(new Event('DOMContentLoaded'));
    } finally {
      delete (document as { readyState?: unknown }).readyState;
    }
    expect(products(capture.events).map((e) => e.name)).to.deep.equal(['Product viewed']);
  });

  it('a form post to /cart/add emits Added to cart with product, variant, the quantity chosen and the variant\'s price', async () => {
    productPage();
    install();
    const root = await fixture(html`<div>${productForm(2, 'shopify-sink')}<iframe name="shopify-sink" title="sink" hidden></iframe></div>`);
    root.querySelector('form')!.requestSubmit();
    expect(products(capture.events).slice(1).map((e) => [e.name, e.data])).to.deep.equal([
      ['Added to cart', { productId: P, quantity: 2, variantId: V1, price: 12.5, currency: 'USD' }],
    ]);
  });

  it('a theme that turns the form into an AJAX add (Dawn) is counted once, with the quantity added, not the line total', async () => {
    productPage();
    install();
    const form = await fixture<HTMLFormElement>(productForm(2));
    let request: Promise<Response> | undefined;
    form.addEventListener('submit', (e) => {
      e.preventDefault(); // what Dawn's <product-form> does before posting with fetch
      request = fetch('/cart/add', { method: 'POST', headers: { Accept: 'application/javascript' }, body: new FormData(form) });
    });
    const added = oneEvent(window, 'svc:product');
    form.requestSubmit();
    await request;
    await added;
    // The store's answer knows the line's discounted unit price, which the page's list price does not.
    expect(products(capture.events).slice(1).map((e) => [e.name, e.data])).to.deep.equal([
      ['Added to cart', { productId: P, quantity: 2, variantId: V1, price: 10, currency: 'USD' }],
    ]);
  });

  const ajaxCases: { name: string; body: () => BodyInit; answer: unknown; expected: Record<string, unknown>[] }[] = [
    {
      name: 'JSON {id, quantity}',
      body: () => JSON.stringify({ id: VARIANTS[0], quantity: 3 }),
      answer: lineItem(VARIANTS[0]!),
      expected: [{ productId: P, quantity: 3, variantId: V0, price: 10, currency: 'USD' }],
    },
    {
      name: 'JSON {items: [...]} of two products',
      body: () => JSON.stringify({ items: [{ id: VARIANTS[0], quantity: 1 }, { id: 40000000000001, quantity: 4 }] }),
      answer: { items: [lineItem(VARIANTS[0]!), lineItem(40000000000001, 7000000000001)] },
      expected: [
        { productId: P, quantity: 1, variantId: V0, price: 10, currency: 'USD' },
        { productId: '7000000000001', quantity: 4, variantId: '40000000000001', price: 10, currency: 'USD' },
      ],
    },
    {
      name: 'form-encoded text without quantity (one)',
      body: () => `id=${VARIANTS[1]}`,
      answer: lineItem(VARIANTS[1]!),
      expected: [{ productId: P, quantity: 1, variantId: V1, price: 10, currency: 'USD' }],
    },
    {
      name: 'URLSearchParams with items[0][id]',
      body: () => new URLSearchParams({ 'items[0][id]': '40000000000002', 'items[0][quantity]': '6' }),
      answer: { items: [lineItem(40000000000002, 7000000000002)] },
      expected: [{ productId: '7000000000002', quantity: 6, variantId: '40000000000002', price: 10, currency: 'USD' }],
    },
  ];
  for (const { name, body, answer, expected } of ajaxCases) {
    it(`fetch to /cart/add.js with ${name} emits Added to cart per line`, async () => {
      fetchStub.restore();
      fetchStub = stubNetwork(answer);
      storefront();
      install();
      const added = oneEvent(window, 'svc:product');
      await fetch('/cart/add.js', { method: 'POST', body: body() });
      await added;
      expect(products(capture.events).map((e) => e.data)).to.deep.equal(expected);
    });
  }

  it('an add on a storefront that names no currency carries no price (a price without its currency credits nothing)', async () => {
    storefront();
    delete (window as { Shopify?: { currency?: unknown } }).Shopify!.currency;
    delete (window as { ShopifyAnalytics?: { meta?: { currency?: unknown } } }).ShopifyAnalytics!.meta!.currency;
    install();
    const added = oneEvent(window, 'svc:product');
    await fetch('/cart/add.js', { method: 'POST', body: JSON.stringify({ id: VARIANTS[1], quantity: 1 }) });
    await added;
    expect(products(capture.events).map((e) => e.data)).to.deep.equal([{ productId: P, quantity: 1, variantId: V1 }]);
  });

  it('an add answered in another currency (Shopify Markets) carries the currency the visitor shops in', async () => {
    storefront();
    (window as { Shopify?: { currency?: unknown } }).Shopify!.currency = { active: 'CAD', rate: '1.36' };
    install();
    const added = oneEvent(window, 'svc:product');
    await fetch('/cart/add.js', { method: 'POST', body: JSON.stringify({ id: VARIANTS[1], quantity: 1 }) });
    await added;
    expect(products(capture.events).map((e) => e.data)).to.deep.equal([
      { productId: P, quantity: 1, variantId: V1, price: 10, currency: 'CAD' },
    ]);
  });

  it('the caller of fetch still reads the answer the store sent', async () => {
    storefront();
    install();
    const response = await fetch('/cart/add.js', { method: 'POST', body: JSON.stringify({ id: VARIANTS[1], quantity: 1 }) });
    expect(await response.json()).to.deep.equal(lineItem(VARIANTS[1]!));
  });

  it('a refused add (422, sold out) emits nothing', async () => {
    fetchStub.restore();
    fetchStub = stubNetwork({ status: 422, description: 'sold out' }, 422);
    productPage();
    install();
    await (await fetch('/cart/add.js', { method: 'POST', body: JSON.stringify({ id: VARIANTS[0], quantity: 1 }) })).text();
    await new Promise((resolve) => setTimeout(resolve, 0)); // let a (wrong) report run if there were one
    expect(products(capture.events).map((e) => e.name)).to.deep.equal(['Product viewed']);
  });

  describe('XMLHttpRequest', () => {
    let sent: { xhr: XMLHttpRequest; body: unknown }[];
    /** The network edge for XHR: `send` is stubbed (before the plugin wraps it) and answers on `respond`. */
    beforeEach(() => {
      sent = [];
      sinon.stub(XMLHttpRequest.prototype, 'send').callsFake(function (this: XMLHttpRequest, body) {
        sent.push({ xhr: this, body });
      });
    });
    /** What a browser does when an answer arrives: `load`, then `loadend`. */
    const respond = (xhr: XMLHttpRequest, status: number, answer: unknown): void => {
      Object.defineProperty(xhr, 'status', { value: status, configurable: true });
      Object.defineProperty(xhr, 'responseText', { value: JSON.stringify(answer), configurable: true });
      xhr.dispatchEvent(new ProgressEvent('load'));
      xhr.dispatchEvent(new ProgressEvent('loadend'));
    };

    it('a form-encoded XHR to /cart/add.js emits Added to cart with the quantity sent', () => {
      storefront();
      install();
      const request = new XMLHttpRequest();
      request.open('POST', '/cart/add.js');
      request.setRequestHeader('Content-Type', 'application/x-www-form-urlencoded');
      request.send(`id=${VARIANTS[0]}&quantity=4`);
      expect(sent.map((s) => s.body), 'the request still goes out').to.deep.equal([`id=${VARIANTS[0]}&quantity=4`]);
      respond(request, 200, lineItem(VARIANTS[0]!));
      expect(products(capture.events).map((e) => e.data)).to.deep.equal([{ productId: P, quantity: 4, variantId: V0, price: 10, currency: 'USD' }]);
    });

    it('an XHR elsewhere, or a refused add, emits nothing', () => {
      storefront();
      install();
      const other = new XMLHttpRequest();
      other.open('POST', '/cart/change.js');
      other.send(JSON.stringify({ id: VARIANTS[0], quantity: 4 }));
      respond(other, 200, lineItem(VARIANTS[0]!));
      const refused = new XMLHttpRequest();
      refused.open('POST', '/cart/add.js');
      refused.send(JSON.stringify({ id: VARIANTS[0], quantity: 4 }));
      respond(refused, 422, { status: 422 });
      expect(products(capture.events)).to.deep.equal([]);
    });

    it('an XHR object used again counts each add once, and a later request on it nothing', () => {
      storefront();
      install();
      const request = new XMLHttpRequest();
      for (let i = 0; i < 2; i++) {
        request.open('POST', '/cart/add.js');
        request.send(`id=${VARIANTS[0]}&quantity=1`);
        respond(request, 200, lineItem(VARIANTS[0]!));
      }
      request.open('GET', '/cart.js');
      request.send();
      respond(request, 200, { items: [] });
      expect(products(capture.events).map((e) => e.data)).to.deep.equal([
        { productId: P, quantity: 1, variantId: V0, price: 10, currency: 'USD' },
        { productId: P, quantity: 1, variantId: V0, price: 10, currency: 'USD' },
      ]);
    });
  });

  it('an add sent as a Request that carries its own body is counted', async () => {
    fetchStub.restore();
    stubNetwork(lineItem(VARIANTS[0]!));
    storefront();
    install();
    await fetch(new Request('/cart/add.js', {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ id: VARIANTS[0], quantity: 2 }),
    }));
    await waitUntil(() => products(capture.events).length > 0, 'the add to be reported');
    expect(products(capture.events).map((e) => e.data)).to.deep.equal([{ productId: P, quantity: 2, variantId: V0, price: 10, currency: 'USD' }]);
  });

  it('the order status page emits Product ordered per line item with the order id, its unit price and currency, once per order', () => {
    orderStatusPage(5123456789);
    install();
    install(); // the page revisited later
    expect(products(capture.events).map((e) => [e.name, e.data])).to.deep.equal([
      ['Product ordered', { productId: P, quantity: 2, variantId: V0, price: 12.5, currency: 'USD', orderId: '5123456789' }],
      ['Product ordered', { productId: '7012345678999', quantity: 1, variantId: '40123456789999', price: 12.5, currency: 'USD', orderId: '5123456789' }],
    ]);
  });

  it('with platformB installed too, a Shopify page gets only Shopify events', async () => {
    productPage();
    const svc = makeSvc({ platformA: true, platformB: true });
    svc.use(platformA());
    svc.use(platformB());
    const root = await fixture(html`<div>${productForm(2, 'shopify-sink-2')}<iframe name="shopify-sink-2" title="sink" hidden></iframe></div>`);
    root.querySelector('form')!.requestSubmit();
    expect(products(capture.events).map((e) => [e.name, e.data])).to.deep.equal([
      ['Product viewed', { productId: P }],
      ['Added to cart', { productId: P, quantity: 2, variantId: V1, price: 12.5, currency: 'USD' }],
    ]);
  });

  it('with platformA false it does nothing at all: no events, fetch and XHR untouched', () => {
    productPage();
    const { fetch: before } = window;
    const { send } = XMLHttpRequest.prototype;
    install({ platformA: false });
    expect(capture.events).to.deep.equal([]);
    expect(window.fetch).to.equal(before);
    expect(XMLHttpRequest.prototype.send).to.equal(send);
  });

  it('teardown restores fetch, open and send', () => {
    storefront();
    const { fetch: before } = window;
    const { open, send } = XMLHttpRequest.prototype;
    const remove = makeSvc({ platformA: true }).use(platformA());
    expect(window.fetch).not.to.equal(before);
    remove();
    expect([window.fetch, XMLHttpRequest.prototype.open, XMLHttpRequest.prototype.send]).to.deep.equal([before, open, send]);
  });
});
