import { expect, fixture, html } from '@open-wc/testing';
import type sinon from 'sinon';
import type { ServiceEvent } from '../../src/index.js';
import {
  cachedCart, installJQuery, leaveMagento, PRODUCT_ID, pageType, productInfo, successPage,
} from '../../test/fixtures/magento-storefront.js';
import { leaveStorefront, productPage } from '../../test/fixtures/shopify-storefront.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from '../../test/helpers/svc.js';
import { platformA } from '../platform-a/index.js';
import { platformB } from './index.js';

const products = (events: ServiceEvent[]): [string, unknown][] =>
  events.filter((e) => e.type === 'product').map((e) => [e.name, e.data]);

/** Magento's AJAX cart announcing an add the way a fixture can: a DOM CustomEvent on document. */
const ajaxAddToCart = (detail: unknown): boolean => document.dispatchEvent(new CustomEvent('ajax:addToCart', { detail }));

describe('platformB (Magento 2)', () => {
  let capture: ReturnType<typeof captureEvents>;
  let fetchStub: sinon.SinonStub;

  beforeEach(() => {
    fetchStub = stubFetch();
    capture = captureEvents();
  });
  afterEach(async () => {
    capture.stop();
    await cleanup();
    leaveMagento();
    leaveStorefront();
  });

  const install = (flags = { platformB: true }): ReturnType<typeof makeSvc> => {
    const svc = makeSvc(flags);
    svc.use(platformB());
    return svc;
  };

  it('a product page emits Product viewed from the form\'s product field and sets the recommendation context', async () => {
    pageType('catalog-product-view');
    await fixture(productInfo());
    const svc = install();
    expect(products(capture.events)).to.deep.equal([['Product viewed', { productId: PRODUCT_ID }]]);
    await svc.recommendation({ id: 1, quantity: 4, fields: ['title'] });
    const feedCall = fetchStub.getCalls().find((c) => String(c.args[0]).includes('/feeds/1/data'))!;
    expect(JSON.parse(String((feedCall.args[1] as RequestInit).body))).to.include({ productId: PRODUCT_ID });
  });

  it('a product page without the form uses data-product-id', async () => {
    pageType('catalog-product-view');
    await fixture(html`<div class="price-box" data-role="priceBox" data-product-id="77"></div>`);
    install();
    expect(products(capture.events)).to.deep.equal([['Product viewed', { productId: '77' }]]);
  });

  it('posting the add-to-cart form emits Added to cart with its qty and configurable child', async () => {
    pageType('catalog-product-view');
    const root = await fixture(productInfo(3, '4201'));
    install();
    root.querySelector('form')!.requestSubmit();
    expect(products(capture.events).slice(1)).to.deep.equal([['Added to cart', { productId: PRODUCT_ID, quantity: 3, variantId: '4201' }]]);
  });

  it('the AJAX cart (post prevented, then ajax:addToCart as a DOM event) counts the add once', async () => {
    pageType('catalog-product-view');
    const root = await fixture(productInfo(2));
    install();
    const form = root.querySelector('form')!;
    form.addEventListener('submit', (e) => {
      e.preventDefault(); // catalogAddToCart's ajaxSubmit
      ajaxAddToCart({ productIds: [PRODUCT_ID], form });
    });
    form.requestSubmit();
    expect(products(capture.events).slice(1)).to.deep.equal([['Added to cart', { productId: PRODUCT_ID, quantity: 2 }]]);
  });

  it('ajax:addToCart from a listing, without a form, adds one of each product', () => {
    install();
    ajaxAddToCart({ productIds: ['42', '43'] });
    expect(products(capture.events)).to.deep.equal([
      ['Added to cart', { productId: '42', quantity: 1 }],
      ['Added to cart', { productId: '43', quantity: 1 }],
    ]);
  });

  it('ajax:addToCart triggered through jQuery (with a jQuery-wrapped form) is counted once', async () => {
    const $ = installJQuery();
    const root = await fixture(productInfo(5));
    install();
    $.trigger('ajax:addToCart', { sku: 'MUG-1', productIds: [PRODUCT_ID], form: [root.querySelector('form')!] });
    expect(products(capture.events)).to.deep.equal([['Added to cart', { productId: PRODUCT_ID, quantity: 5 }]]);
  });

  it('the checkout success page emits Product ordered for the cart that was ordered, once per order number', async () => {
    pageType('checkout-onepage-success');
    cachedCart();
    await fixture(successPage('000000123'));
    install();
    install(); // revisited
    expect(products(capture.events)).to.deep.equal([
      ['Product ordered', { productId: PRODUCT_ID, quantity: 2, orderId: '000000123' }],
      ['Product ordered', { productId: '43', quantity: 1, orderId: '000000123' }],
    ]);
  });

  it('the success page sends each line\'s unit price from the customer-data cart, where it is a number', async () => {
    pageType('checkout-onepage-success');
    localStorage.setItem('mage-cache-storage', JSON.stringify({ cart: { items: [
      { product_id: PRODUCT_ID, qty: 2, product_price_value: 12.5 },
      { product_id: '43', qty: 1, product_price_value: { incl_tax: 12, excl_tax: 10 } },
    ] } }));
    await fixture(successPage('000000777'));
    install();
    expect(products(capture.events)).to.deep.equal([
      ['Product ordered', { productId: PRODUCT_ID, quantity: 2, price: 12.5, orderId: '000000777' }],
      ['Product ordered', { productId: '43', quantity: 1, orderId: '000000777' }],
    ]);
  });

  it('an add-to-cart post sends the price and currency of the product\'s price box', async () => {
    pageType('catalog-product-view');
    install();
    const root = await fixture(html`<div>${productInfo(1)}</div>`);
    root.querySelector('.price-box')!.insertAdjacentHTML('beforeend',
      '<span data-price-amount="12.5" data-price-type="finalPrice" class="price-wrapper"></span><meta itemprop="priceCurrency" content="USD">');
    root.querySelector<HTMLFormElement>('#product_addtocart_form')!.requestSubmit();
    expect(products(capture.events).filter(([name]) => name === 'Added to cart')).to.deep.equal([
      ['Added to cart', { productId: PRODUCT_ID, quantity: 1, price: 12.5, currency: 'USD' }],
    ]);
  });

  /** Runs `body` as if the SDK's script ran while the page was still being parsed (an async or early script). */
  async function whileLoading(body: () => Promise<void>): Promise<void> {
    Object.defineProperty(document, 'readyState', { configurable: true, get: () => 'loading' });
    try {
      await body();
    } finally {
      delete (document as { readyState?: unknown }).readyState;
    }
    document.dispatchEvent(new Event('DOMContentLoaded'));
  }

  it('read while the page is still loading, the product and the order are read again once it is parsed', async () => {
    await whileLoading(async () => {
      pageType('catalog-product-view');
      install();
      await fixture(productInfo());
    });
    expect(products(capture.events)).to.deep.equal([['Product viewed', { productId: PRODUCT_ID }]]);
    leaveMagento();
    await whileLoading(async () => {
      pageType('checkout-onepage-success');
      cachedCart();
      install();
      await fixture(successPage('000000555'));
    });
    expect(products(capture.events).map(([name]) => name)).to.deep.equal(['Product viewed', 'Product ordered', 'Product ordered']);
  });

  it('a product found while loading is not read again at DOMContentLoaded (viewed once)', async () => {
    await fixture(productInfo());
    await whileLoading(async () => {
      pageType('catalog-product-view');
      install();
    });
    expect(products(capture.events)).to.deep.equal([['Product viewed', { productId: PRODUCT_ID }]]);
  });

  it('teardown removes its listeners even when the page\'s jQuery has no .off', () => {
    (window as { jQuery?: unknown }).jQuery = () => ({ on: () => undefined });
    try {
      const svc = install();
      svc.destroy();
      ajaxAddToCart({ productIds: ['1'] });
      expect(products(capture.events)).to.deep.equal([]);
    } finally {
      delete (window as { jQuery?: unknown }).jQuery;
    }
  });

  it('a logged-in customer\'s success page (order number as a link) is read too', async () => {
    pageType('checkout-onepage-success');
    cachedCart();
    await fixture(html`<div class="checkout-success"><p>Your order number is: <a href="/sales/order/view/order_id/9/" class="order-number"><strong>000000124</strong></a>.</p></div>`);
    install();
    expect(products(capture.events).map(([, d]) => (d as { orderId: string }).orderId)).to.deep.equal(['000000124', '000000124']);
  });

  it('with platformA installed too, a Magento page gets only Magento events', async () => {
    pageType('catalog-product-view');
    const root = await fixture(productInfo(3));
    const svc = makeSvc({ platformA: true, platformB: true });
    svc.use(platformA());
    svc.use(platformB());
    root.querySelector('form')!.requestSubmit();
    expect(products(capture.events)).to.deep.equal([
      ['Product viewed', { productId: PRODUCT_ID }],
      ['Added to cart', { productId: PRODUCT_ID, quantity: 3 }],
    ]);
  });

  it('with platformB false it does nothing on a Magento page', async () => {
    pageType('catalog-product-view');
    const root = await fixture(productInfo(3));
    install({ platformB: false });
    root.querySelector('form')!.requestSubmit();
    ajaxAddToCart({ productIds: ['42'] });
    expect(capture.events).to.deep.equal([]);
  });

  it('on a Shopify product page it emits nothing', () => {
    productPage();
    install();
    expect(capture.events).to.deep.equal([]);
  });

  it('teardown stops listening, jQuery included', () => {
    const $ = installJQuery();
    const remove = makeSvc({ platformB: true }).use(platformB());
    remove();
    $.trigger('ajax:addToCart', { productIds: ['1'] });
    ajaxAddToCart({ productIds: ['1'] });
    expect(capture.events).to.deep.equal([]);
  });
});
