import { expect } from '@open-wc/testing';
import type { ServiceEvent } from '../src/index.js';
import { leaveStorefront, PRODUCT_ID, productPage, productViewed } from './fixtures/shopify-storefront.js';

// Loads the production build (npm test builds it first) as a Shopify theme would, with data-platform-a.
describe('dist/service.js with data-platform-a', () => {
  after(() => {
    window.svc?.destroy();
    delete window.svc;
    leaveStorefront();
    localStorage.clear();
  });

  it('installs auto-tracking and the Shopify plugin, not the Magento one', async () => {
    productPage();
    document.body.classList.add('catalog-product-view'); // a Magento marker must not wake platform-b
    const events: ServiceEvent[] = [];
    const listener = (e: WindowEventMap['svc:event']): void => void events.push(e.detail);
    window.addEventListener('svc:event', listener);
    try {
      const viewed = productViewed();
      await new Promise<void>((resolve, reject) => {
        const script = document.createElement('script');
        script.src = '/dist/service.js';
        Object.assign(script.dataset, {
          organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: 'https://svc.test/v1', platformA: 'true',
        });
        script.onload = () => resolve();
        script.onerror = () => reject(new Error('could not load /dist/service.js'));
        document.head.append(script);
      });
      await viewed;
    } finally {
      window.removeEventListener('svc:event', listener);
      document.body.classList.remove('catalog-product-view');
    }
    expect(events.map((e) => e.name)).to.deep.equal(['Session start', 'View Page', 'Product viewed']);
    expect(events[2]!.data).to.deep.equal({ productId: String(PRODUCT_ID) });
  });
});
