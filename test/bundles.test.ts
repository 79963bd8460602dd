import { expect } from '@open-wc/testing';

declare global {
  interface Window {
    svc?: import('../src/index.js').ServiceJs;
  }
}

function loadScript(src: string, data: Record<string, string>): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = src;
    for (const [k, v] of Object.entries(data)) script.dataset[k] = v;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(script);
  });
}

// These load the production builds (npm test builds them first), as a CMS page would.
describe('dist/service.js on a CMS page', () => {
  after(() => {
    window.svc?.destroy();
    delete window.svc;
    localStorage.clear();
  });

  it('creates window.svc from its own script tag and defines the global ServiceJs', async () => {
    await loadScript('/dist/service.js', {
      organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: 'https://svc.test/v1',
    });
    expect(window.ServiceJs).to.be.a('function');
    expect(window.svc).to.be.instanceOf(window.ServiceJs);
    expect(window.svc!.isUserOptIn()).to.equal(true);
    const seen: string[] = [];
    const listener = (e: WindowEventMap['svc:event']): void => void seen.push(e.detail.name);
    window.addEventListener('svc:event', listener);
    window.svc!.track({ eventTitle: 'From the bundle', data: { a: 1 } });
    window.removeEventListener('svc:event', listener);
    expect(seen).to.deep.equal(['From the bundle']);
  });

  it('defines <svc-recommendations> once the page has one (its code is a chunk fetched then)', async () => {
    expect(customElements.get('svc-recommendations'), 'before the page has one').to.equal(undefined);
    const element = document.body.appendChild(document.createElement('svc-recommendations'));
    try {
      await customElements.whenDefined('svc-recommendations');
      expect(element.shadowRoot, 'upgraded').to.not.equal(null);
    } finally {
      element.remove();
    }
  });

  it('a second copy on the page keeps the first window.svc', async () => {
    const first = window.svc;
    await loadScript('/dist/service.js', { organization: 'acme', project: 'other', sourceId: 'web', writeKey: 'web1.p4ss' });
    expect(window.svc).to.equal(first);
  });

  it('the production build keeps the spec messages', async () => {
    expect(() => new window.ServiceJs({} as never)).to.throw('ServiceJs initialization failed: All config fields must be provided.');
  });
});
