import { expect } from '@open-wc/testing';
import type { ServiceEvent } from '../src/index.js';
import { leaveStorefront, PRODUCT_ID, productPage, productViewed } from './fixtures/shopify-storefront.js';

// dist/service.js without data-* attributes, as a page that creates its instance itself (spec: a script at
// the end of the body running `new ServiceJs(config)`).
describe('dist/service.js with a hand-made instance', () => {
  let svc: InstanceType<Window['ServiceJs']> | undefined;
  before(async () => {
    await new Promise<void>((resolve, reject) => {
      const script = document.createElement('script');
      script.src = '/dist/service.js';
      script.onload = () => resolve();
      script.onerror = () => reject(new Error('could not load /dist/service.js'));
      document.head.append(script);
    });
  });
  after(() => {
    svc?.destroy();
    leaveStorefront();
    localStorage.clear();
  });

  it('defines every custom element the page has, without any instance', async () => {
    const tags = ['svc-experience', 'svc-recommendations', 'svc-consent', 'svc-consent-button'];
    const elements = tags.map((tag) => document.body.appendChild(document.createElement(tag)));
    try {
      await Promise.all(tags.map((tag) => customElements.whenDefined(tag)));
      for (const element of elements) expect(element.matches(':defined'), element.localName).to.equal(true);
      expect(window.svc).to.equal(undefined);
    } finally {
      for (const element of elements) element.remove();
    }
  });

  it('new ServiceJs({platformA: true}) gets auto-tracking and the Shopify integration', async () => {
    productPage();
    const events: ServiceEvent[] = [];
    const listener = (e: WindowEventMap['svc:event']): void => void events.push(e.detail);
    window.addEventListener('svc:event', listener);
    try {
      svc = new window.ServiceJs({
        organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: 'https://svc.test/v1',
        platformA: true, platformB: false,
      });
      // Both integrations are chunks: their events come once those have arrived.
      await productViewed();
    } finally {
      window.removeEventListener('svc:event', listener);
    }
    expect(events.map((e) => e.name)).to.deep.equal(['Session start', 'View Page', 'Product viewed']);
    expect(events[2]!.data).to.deep.equal({ productId: String(PRODUCT_ID) });
  });
});
