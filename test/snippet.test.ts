import { expect } from '@open-wc/testing';
import type { ServiceEvent, ServiceJs } from '../src/index.js';
import { loader, snippet } from './helpers/readme-snippet.js';

// The README's snippet, as a CMS page has it: one inline script, the stub (calls made on `window.svc` before
// dist/service.js arrives are queued and replayed in order once it has) and the loader (it reserves the
// recommendations' box, then adds the SDK's async script tag once the page has painted).
type Stubbed = ServiceJs & unknown[];

/** Runs code as an inline script, at once. */
function inline(code: string): void {
  const script = document.createElement('script');
  script.textContent = code;
  document.head.appendChild(script).remove();
}

function addScript(src: string, data: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.async = true;
    script.src = src;
    for (const [k, v] of Object.entries(data)) script.dataset[k] = v;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(script);
  });
}

const TAG = { organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: 'https://svc.test/v1', autoTrack: 'false' };

describe('the async snippet', () => {
  const seen: ServiceEvent[] = [];
  const onEvent = (e: WindowEventMap['svc:event']): void => void seen.push(e.detail);

  before(() => window.addEventListener('svc:event', onEvent));
  after(() => {
    window.removeEventListener('svc:event', onEvent);
    window.svc?.destroy();
    delete window.svc;
    localStorage.clear();
  });

  it('queues calls before the SDK loads and replays them in order; ready(fn) runs once; stubbed calls settle', async () => {
    const { stub: stubLine, loaderFn } = await snippet();
    inline(stubLine);
    const stub = window.svc as Stubbed;
    expect(Array.isArray(stub), 'the stub is a queue').to.equal(true);

    const readyCalls: unknown[] = [];
    stub.track({ eventTitle: 'First', data: { n: 1 } });
    const readyAnswer = stub.ready((svc) => readyCalls.push(svc));
    stub.identify({ userId: 'u-1' });
    const refused = stub.track({ eventTitle: 'Bad' } as never) as unknown as Promise<void>;
    const chosen = stub.choose({ names: ['hero-banner'] });
    stub.track({ eventTitle: 'Second', data: { n: 2 } });
    expect(seen, 'nothing is tracked before the file loads').to.deep.equal([]);
    expect(readyCalls).to.deep.equal([]);

    // The loader adds the SDK's tag once this page has painted something (the text makes sure it does); its
    // instance says so with svc:ready.
    document.body.append(Object.assign(document.createElement('p'), { textContent: 'A CMS page' }));
    const ready = new Promise((resolve) => window.addEventListener('svc:ready', resolve, { once: true }));
    inline(loader(loaderFn, '/dist/service.js', TAG));
    await ready;

    const added = [...document.querySelectorAll<HTMLScriptElement>('script[src$="/dist/service.js"]')];
    expect(added, 'one script tag added').to.have.length(1);
    expect(added[0]!.async).to.equal(true);
    expect({ ...added[0]!.dataset }, 'the keys as its data-* attributes').to.deep.equal(TAG);
    const svc = window.svc!;
    expect(svc).to.be.instanceOf(window.ServiceJs);
    expect(seen.map((e) => [e.type, e.name])).to.deep.equal([['track', 'First'], ['identify', 'Identify'], ['track', 'Second']]);
    expect(seen[1]!.userId).to.equal('u-1');
    expect(readyCalls).to.deep.equal([svc]);
    expect(await readyAnswer).to.equal(svc);
    // A queued call that breaks the rules rejects its own promise with the SDK's message, and nothing else.
    let message = '';
    await refused.catch((error: Error) => (message = error.message));
    expect(message).to.equal(`Track parameters are invalid: 'data' is required.`);
    // The service at svc.test is unreachable: choose answers [] (it never rejects), through the stub too.
    expect(await chosen).to.deep.equal([]);
  });

  it('ready(fn) after the load runs fn at once with the instance, once', async () => {
    const calls: unknown[] = [];
    const answer = window.svc!.ready((svc) => calls.push(svc));
    expect(calls).to.deep.equal([window.svc]);
    expect(await answer).to.equal(window.svc);
    await Promise.resolve();
    expect(calls).to.have.length(1);
  });

  it('a second snippet after the load leaves the instance alone', async () => {
    const svc = window.svc;
    const { stub, loaderFn } = await snippet();
    inline(stub);
    expect(window.svc).to.equal(svc);
    expect(Array.isArray(window.svc)).to.equal(false);

    // Its loader adds the SDK a second time: that copy warns and keeps the first instance.
    const warnings: unknown[][] = [];
    const original = console.warn;
    console.warn = (...args: unknown[]) => void warnings.push(args);
    try {
      const second = new Promise<Event>((resolve) => {
        new MutationObserver((_, observer) => {
          const tag = document.querySelectorAll('script[src$="/dist/service.js"]')[1];
          if (!tag) return;
          observer.disconnect();
          tag.addEventListener('load', resolve);
        }).observe(document.head, { childList: true });
      });
      inline(loader(loaderFn, '/dist/service.js', TAG));
      await second;
    } finally {
      console.warn = original;
    }
    expect(window.svc).to.equal(svc);
    expect(String(warnings[0]?.[0])).to.contain('on this page twice');
  });
});

describe('a queue in Segment’s shape', () => {
  after(() => {
    window.svc?.destroy();
    delete window.svc;
    localStorage.clear();
  });

  it('is replayed as well: [method, ...args] entries, in order, a failing entry reported and skipped', async () => {
    // The first describe's instance is gone: a fresh queue, written by hand as Segment's snippet writes its own.
    window.svc?.destroy();
    delete window.svc;
    const names: string[] = [];
    const onEvent = (e: WindowEventMap['svc:event']): void => void names.push(e.detail.name);
    window.addEventListener('svc:event', onEvent);
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      (window as unknown as { svc: unknown[] }).svc = [
        ['track', { eventTitle: 'One', data: { a: 1 } }],
        ['noSuchMethod', 1],
        ['productView', 'sku-1'],
      ];
      await addScript('/dist/service.js', TAG);
    } finally {
      console.error = original;
      window.removeEventListener('svc:event', onEvent);
    }
    expect(window.svc).to.be.instanceOf(window.ServiceJs);
    expect(names).to.deep.equal(['One', 'Product viewed']);
    expect(errors).to.have.length(1);
    expect(String(errors[0]![0])).to.equal('[svc]');
  });
});

// The loader's style gives each <svc-recommendations> the box of its `limit` built-in cards before the SDK defines
// the element: the columns that fit its width, square images, two lines of title and one of price. Measured in
// frames of several widths, before the SDK (an inline script at the end of the body forces layout) and after it has
// defined the element, still loading (no keys: no instance, so no products come).
describe('the box the loader reserves', () => {
  const frames: HTMLIFrameElement[] = [];
  afterEach(() => frames.splice(0).forEach((frame) => frame.remove()));

  async function measure(width: number, element: string, style = ''): Promise<{ before: number; after: number; status: string | null }> {
    const { loaderFn } = await snippet();
    const frame = document.createElement('iframe');
    frame.style.cssText = `width:${width}px;height:600px;border:0`;
    frame.srcdoc = `<!doctype html><html lang="en"><head><style>body{margin:0;padding:0 8px;font:16px/1.5 system-ui}${style}</style>
<script>${loader(loaderFn, '/dist/service.js', {})}</script></head><body>${element}<p id="after">after</p>
<script>window.before = document.getElementById('after').getBoundingClientRect().top</script></body></html>`;
    frames.push(frame);
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    document.body.append(frame);
    await loaded;
    const w = frame.contentWindow as Window & typeof globalThis & { before: number };
    await w.customElements.whenDefined('svc-recommendations');
    const el = w.document.querySelector('svc-recommendations') as HTMLElement & { updateComplete: Promise<unknown> };
    await el.updateComplete;
    return { before: w.before, after: w.document.getElementById('after')!.getBoundingClientRect().top, status: el.getAttribute('status') };
  }

  for (const width of [320, 412, 800, 1280]) {
    for (const limit of [undefined, 1, 3, 6]) {
      it(`at ${width}px with ${limit === undefined ? 'the default limit' : `limit="${limit}"`}: the box of the loading cards`, async () => {
        const { before, after, status } = await measure(width, `<svc-recommendations feed="1"${limit === undefined ? '' : ` limit="${limit}"`}></svc-recommendations>`);
        expect(status).to.equal('loading');
        expect(before, 'a box is reserved').to.be.greaterThan(100);
        expect(before).to.be.closeTo(after, 0.5);
      });
    }
  }

  it('follows the page\'s card width, gap, padding, border and font', async () => {
    const style = 'body{font:20px/1.2 Georgia,serif}svc-recommendations{--svc-recommendations-min-width:7rem;--svc-recommendations-gap:2rem;--svc-recommendations-padding:2px;--svc-recommendations-border:3px solid red}';
    const { before, after } = await measure(700, '<svc-recommendations feed="1" limit="5" collapse></svc-recommendations>', style);
    expect(before).to.be.greaterThan(100);
    expect(before).to.be.closeTo(after, 0.5);
  });

  it('reserves nothing for a page\'s own template, and keeps children out of the flow until their element is defined', async () => {
    const own = await measure(800, '<svc-recommendations feed="1"><template><b data-field="title"></b></template></svc-recommendations>');
    expect(own.before).to.equal(own.after);
    const slotted = await measure(800, '<svc-recommendations feed="1" limit="2"><p slot="empty">Nothing yet</p></svc-recommendations>');
    expect(slotted.before).to.be.closeTo(slotted.after, 0.5);
    // The consent banner's slotted link belongs in the banner (fixed to the viewport), not above the page.
    const consent = await measure(800, '<svc-consent><a slot="privacy" href="#privacy">Privacy policy</a></svc-consent><svc-recommendations feed="1"></svc-recommendations>');
    expect(consent.before).to.be.closeTo(consent.after, 0.5);
  });

  describe('a returning visitor: the known variation in the first paint', () => {
    /** A CMS page in a frame whose loader's SDK never arrives: what it shows is the loader's alone. */
    async function page(body: string): Promise<Document> {
      const { loaderFn } = await snippet();
      const frame = document.createElement('iframe');
      frame.srcdoc = `<!doctype html><html lang="en"><head><script>${loader(loaderFn, '/never-loads.js', {})}</script></head><body>${body}</body></html>`;
      frames.push(frame);
      const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
      document.body.append(frame);
      await loaded;
      return frame.contentDocument!;
    }
    const hero = (templates: string): string => `<svc-experience name="hero-banner"><h1 id="fallback">Welcome</h1>${templates}</svc-experience>`;
    const shown = (doc: Document, id: string): boolean => {
      const el = doc.getElementById(id);
      return el !== null && el.getClientRects().length > 0;
    };
    afterEach(() => localStorage.removeItem('svc.choices'));

    it('shows the variation this browser was last shown, from its own template, and hides the fallback', async () => {
      localStorage.setItem('svc.choices', JSON.stringify({ 'hero-banner': 'bold' }));
      const doc = await page(hero('<template variation="bold"><h1 id="bold">Big sale</h1></template><template variation="control"><h1 id="control">Welcome</h1></template>'));
      expect(doc.defaultView!.customElements.get('svc-experience'), 'the SDK never loaded').to.equal(undefined);
      expect(shown(doc, 'bold'), 'the known variation').to.equal(true);
      expect(shown(doc, 'fallback'), 'the fallback').to.equal(false);
      expect(doc.querySelector<HTMLElement>('[slot="content"]')!.dataset.svcVariation).to.equal('bold');
    });

    it('leaves the fallback for a new visitor, a variation without its own template, and one whose template binds fields', async () => {
      const cases: { known: Record<string, string> | null; templates: string }[] = [
        { known: null, templates: '<template variation="bold"><h1 id="bold">Big sale</h1></template>' },
        { known: { 'hero-banner': 'calm' }, templates: '<template variation="bold"><h1 id="bold">Big sale</h1></template>' },
        { known: { 'hero-banner': 'bold' }, templates: '<template variation="bold"><h1 id="bold" data-field="title"></h1></template>' },
        { known: { 'other': 'bold' }, templates: '<template variation="bold"><h1 id="bold">Big sale</h1></template>' },
      ];
      for (const { known, templates } of cases) {
        if (known) localStorage.setItem('svc.choices', JSON.stringify(known));
        else localStorage.removeItem('svc.choices');
        const doc = await page(hero(templates));
        expect(shown(doc, 'fallback'), JSON.stringify(known)).to.equal(true);
        expect(doc.querySelector('[slot="content"]'), JSON.stringify(known)).to.equal(null);
      }
    });

    it('never reads a stored name as markup', async () => {
      localStorage.setItem('svc.choices', JSON.stringify({ 'hero-banner': '"]<img src=x onerror=alert(1)>' }));
      const doc = await page(hero('<template variation="bold"><h1 id="bold">Big sale</h1></template>'));
      expect(shown(doc, 'fallback')).to.equal(true);
      expect(doc.querySelector('img')).to.equal(null);
    });
  });

  it('a page that never paints content still gets the SDK (after its load event)', async () => {
    const { loaderFn } = await snippet();
    const frame = document.createElement('iframe');
    frame.srcdoc = `<!doctype html><html lang="en"><head><script>${loader(loaderFn, '/dist/service.js', {})}</script></head><body></body></html>`;
    frames.push(frame);
    const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
    document.body.append(frame);
    await loaded;
    const win = frame.contentWindow as Window & typeof globalThis;
    while (!win.ServiceJs) await new Promise((resolve) => requestAnimationFrame(resolve));
    expect(frame.contentDocument!.querySelectorAll('script[src$="/dist/service.js"]')).to.have.length(1);
  });
});

// The loader mints the profile id of a visitor whose first page is the snippet's (the SDK keeps it): a version 7 UUID
// as the SDK's own, since results tell new visitors from returning ones by the time its first 48 bits carry.
describe('the profile id the loader mints', () => {
  afterEach(() => localStorage.removeItem('svc.profileId'));

  it('is a version 7 UUID of the moment the visitor first arrived, kept on the next page', async () => {
    localStorage.removeItem('svc.profileId');
    const { loaderFn } = await snippet();
    const visit = async (): Promise<void> => {
      const frame = document.createElement('iframe');
      frame.srcdoc = `<!doctype html><html lang="en"><head><script>${loader(loaderFn, '/never-loads.js', TAG)}</script></head><body></body></html>`;
      const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
      document.body.append(frame);
      await loaded;
      frame.remove();
    };
    const before = Date.now();
    await visit();
    const after = Date.now();
    const id = localStorage.getItem('svc.profileId') ?? '';
    const match = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.exec(id);
    expect(match, id).to.not.equal(null);
    const minted = Number.parseInt(`${match![1]}${match![2]}`, 16);
    expect(minted).to.be.within(before, after);
    await visit();
    expect(localStorage.getItem('svc.profileId')).to.equal(id);
  });
});
