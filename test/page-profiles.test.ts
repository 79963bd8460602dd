import { expect } from '@open-wc/testing';
import type { ServiceJs } from '../src/index.js';
import { pageChunks } from './helpers/page-chunks.js';
import { loader, snippet } from './helpers/readme-snippet.js';

// The page profiles of the README's "Builds" table, each a CMS page with the README's snippet loading dist/service.js
// (npm test builds it first), our real service behind /v1: what the page fetches of the SDK is exactly its profile's
// files (their sizes are the bundle-budget test's), and each element it has works. The sizes' budgets are checked in
// test/build/bundle-budget.test.ts from the same manifest.
type Frame = Window & typeof globalThis & { svc?: ServiceJs | unknown[]; problems: string[]; events: string[]; shifts: number[]; below?: number };

const manifest = (await (await fetch('/dist/chunks/manifest.json')).json()) as Record<string, string[]>;
const keys = { organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: `${location.origin}/v1` };
// An experience of its own in the service's fixture: the results tests count the exposures of theirs.
const HERO = `<svc-experience name="profiles-hero"><h1 id="fallback">Welcome</h1>
  <template variation="control"><h1 id="control">Welcome</h1></template><template variation="bold"><h1 id="bold">Big sale</h1></template></svc-experience>`;
const TEXT = '<p>Our roasts are small-batch and shipped within a day.</p>';
const frames: HTMLIFrameElement[] = [];

/** The SDK files a profile fetches: service.js, then each chunk's files (shared ones once; elements at the first look as a combo). */
function profile(...chunks: string[]): string[] {
  const files = new Set(pageChunks(chunks).flatMap((chunk) => {
    expect(manifest[chunk], `the build's manifest has the chunk ${chunk}`).to.be.an('array');
    return manifest[chunk]!.map((file) => `/dist/chunks/${file}.js`);
  }));
  return ['/dist/service.js', ...files].sort();
}

/**
 * A page of `body` with the README's snippet in its head, after a script that collects the names of the events the SDK
 * sends (`events`), what the page logs as an error or warning and every uncaught error or rejection (`problems`), and
 * the score of each layout shift of the page (`shifts`).
 */
async function visit(body: string, config: Record<string, string>, src = '/dist/service.js'): Promise<Frame> {
  const { stub, loaderFn } = await snippet();
  const watch = `window.problems=[];window.events=[];addEventListener('svc:event',(e)=>events.push(e.detail.name));
window.shifts=[];new PerformanceObserver((l)=>shifts.push(...l.getEntries().map((e)=>e.value))).observe({type:'layout-shift',buffered:true});
for(const k of ['error','warn'])console[k]=(...a)=>problems.push(a.join(' '));
addEventListener('error',(e)=>problems.push(String(e.message)));addEventListener('unhandledrejection',(e)=>problems.push(String(e.reason)));`;
  const frame = document.createElement('iframe');
  frame.style.width = '800px';
  frame.style.height = '1200px';
  frame.srcdoc = `<!doctype html><html lang="en"><head><script>${watch}</script><script>${stub}</script>
<script>${loader(loaderFn, src, { ...keys, ...config })}</script></head><body>${body}</body></html>`;
  frames.push(frame);
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await loaded;
  const win = frame.contentWindow as Frame;
  await new Promise<void>((resolve) => (Array.isArray(win.svc) || !win.svc ? win.addEventListener('svc:ready', () => resolve(), { once: true }) : resolve()));
  return win;
}

/** Resolves once `check()` holds (checked on every frame). */
async function until(win: Frame, check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => win.requestAnimationFrame(resolve));
}

/** The SDK files the page fetched, once nothing new has been fetched for a moment (a chunk fetched late would show). */
async function fetched(win: Frame): Promise<string[]> {
  const sdk = (): string[] => win.performance.getEntriesByType('resource').map((e) => new URL(e.name).pathname)
    .filter((path) => path.startsWith('/dist/') || path.startsWith('/missing-chunks/')).sort();
  let before: string[] = [];
  while (sdk().length !== before.length || before.length === 0) {
    before = sdk();
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  return sdk();
}

const status = (win: Frame, tag: string): string | null | undefined => win.document.querySelector(tag)?.getAttribute('status');
const shown = (win: Frame, id: string): boolean => (win.document.getElementById(id)?.getClientRects().length ?? 0) > 0;
const cards = (win: Frame): number => win.document.querySelector('svc-recommendations')?.shadowRoot?.querySelectorAll('li a[href]').length ?? 0;

describe('the page profiles, through the README snippet and our real service', () => {
  afterEach(() => {
    for (const frame of frames.splice(0)) frame.remove();
    localStorage.clear();
  });

  it('a page using nothing but svc.track fetches service.js alone, and tracks before any chunk', async () => {
    const win = await visit(TEXT, { autoTrack: 'false' });
    const names: string[] = [];
    win.addEventListener('svc:event', (e) => names.push((e as CustomEvent<{ name: string }>).detail.name));
    (win.svc as ServiceJs).track({ eventTitle: 'Newsletter signup', data: { list: 'weekly' } });
    await (win.svc as ServiceJs).flush();
    expect(names).to.deep.equal(['Newsletter signup']);
    expect(await fetched(win)).to.deep.equal(profile());
    expect(win.problems).to.deep.equal([]);
  });

  it('svc.choose() and svc.recommendation() on a page without their elements fetch the requests chunk, and answer', async () => {
    const win = await visit(TEXT, { autoTrack: 'false' });
    const svc = win.svc as ServiceJs;
    const [choices, feed] = await Promise.all([
      svc.choose({ names: ['profiles-hero'] }), svc.recommendation({ id: 1, quantity: 2, fields: ['title'] }),
    ]);
    expect(choices.map((c) => c.name)).to.deep.equal(['profiles-hero']);
    expect((feed as { products?: unknown[] } | null)?.products).to.be.an('array');
    expect(await fetched(win)).to.deep.equal(profile('requests'));
    expect(win.problems).to.deep.equal([]);
  });

  it('svc.choose() and svc.recommendation() answer as a failed request does when the requests chunk answers 404', async () => {
    const win = await visit(TEXT, { autoTrack: 'false' }, '/missing-chunks/service.js');
    const svc = win.svc as ServiceJs;
    expect(await svc.choose({ names: ['profiles-hero'] })).to.deep.equal([]);
    expect(await svc.recommendation({ id: 1, quantity: 2, fields: ['title'] })).to.equal(null);
    expect(win.problems).to.deep.equal([]);
  });

  it('a page with <svc-experience> only fetches the experience chunk, and shows the chosen variation', async () => {
    const win = await visit(`${HERO}${TEXT}`, { autoTrack: 'false' });
    await until(win, () => status(win, 'svc-experience') === 'ready');
    expect(shown(win, 'control') || shown(win, 'bold'), 'a variation').to.equal(true);
    expect(shown(win, 'fallback'), 'the fallback').to.equal(false);
    expect(await fetched(win)).to.deep.equal(profile('experiences'));
    expect(win.problems).to.deep.equal([]);
  });

  it('experience and recommendations fetch their two chunks, and the feed\'s cards show', async () => {
    const win = await visit(`${HERO}${TEXT}<svc-recommendations feed="1" limit="4"></svc-recommendations>${TEXT}`, { autoTrack: 'false' });
    await until(win, () => status(win, 'svc-experience') === 'ready' && status(win, 'svc-recommendations') === 'ready');
    expect(cards(win)).to.be.greaterThan(0);
    expect(await fetched(win)).to.deep.equal(profile('experiences', 'recommendations'));
    expect(win.problems).to.deep.equal([]);
  });

  it('everything: every element, the banner in the page\'s one language, one platform and auto-tracking', async () => {
    const win = await visit(`${HERO}${TEXT}<svc-recommendations feed="1" limit="4"></svc-recommendations>${TEXT}<svc-consent></svc-consent>`, { platformA: 'true' });
    const banner = (): ShadowRoot | null | undefined => win.document.querySelector('svc-consent')?.shadowRoot;
    await until(win, () => status(win, 'svc-recommendations') === 'ready' && (banner()?.querySelectorAll('button').length ?? 0) > 0);
    expect(banner()!.textContent).to.contain('Accept all');
    // Auto-tracking is installed before the elements: the experience's exposure comes after its session's start.
    await until(win, () => win.events.includes('Experiment Viewed'));
    expect(win.events.indexOf('Session start'), win.events.join()).to.be.within(0, win.events.indexOf('Experiment Viewed'));
    expect(await fetched(win)).to.deep.equal(profile('experiences', 'recommendations', 'consent', 'texts-en', 'auto-track', 'platform-a'));
    expect(win.problems).to.deep.equal([]);
  });

  it('a banner in German fetches the German texts and no other language', async () => {
    const win = await visit(`${TEXT}<svc-consent lang="de"></svc-consent>`, { autoTrack: 'false' });
    const banner = (): ShadowRoot | null | undefined => win.document.querySelector('svc-consent')?.shadowRoot;
    await until(win, () => (banner()?.querySelectorAll('button').length ?? 0) > 0);
    expect(banner()!.textContent).to.contain('Alle akzeptieren');
    expect(await fetched(win)).to.deep.equal(profile('consent', 'texts-de'));
  });

  it('an element added after the page loaded gets its chunk and works', async () => {
    const win = await visit(TEXT, { autoTrack: 'false' });
    win.document.body.insertAdjacentHTML('beforeend', '<div><svc-recommendations feed="1" limit="2"></svc-recommendations></div>');
    await until(win, () => status(win, 'svc-recommendations') === 'ready');
    expect(cards(win)).to.be.greaterThan(0);
    expect(await fetched(win)).to.deep.equal(profile('recommendations'));
  });

  it('an element of a kind the first look\'s combo lacks gets its own chunk, and both kinds work', async () => {
    const win = await visit(`${HERO}${TEXT}<svc-recommendations feed="1" limit="2"></svc-recommendations>`, { autoTrack: 'false' });
    await until(win, () => status(win, 'svc-experience') === 'ready' && status(win, 'svc-recommendations') === 'ready');
    win.document.body.insertAdjacentHTML('beforeend', '<svc-consent></svc-consent>');
    const banner = (): ShadowRoot | null | undefined => win.document.querySelector('svc-consent')?.shadowRoot;
    await until(win, () => (banner()?.querySelectorAll('button').length ?? 0) > 0);
    expect(banner()!.textContent).to.contain('Accept all');
    // A kind the page already has comes from the file that brought it: nothing more is fetched.
    win.document.body.insertAdjacentHTML('beforeend', '<svc-consent-button></svc-consent-button><svc-recommendations feed="1" limit="2"></svc-recommendations>');
    expect(await fetched(win)).to.deep.equal([...new Set([...profile('experiences', 'recommendations'), ...profile('consent', 'texts-en')])].sort());
    expect(win.document.querySelectorAll('svc-recommendations')[1]!.shadowRoot, 'the second feed renders').to.not.equal(null);
    expect(win.problems).to.deep.equal([]);
  });

  it('chunks that answer 404 leave each element\'s fallback, and nothing in the console', async () => {
    const win = await visit(`${HERO}${TEXT}<svc-recommendations feed="1"><p slot="error" id="sorry">No picks today</p></svc-recommendations><svc-consent></svc-consent>`,
      { autoTrack: 'false' }, '/missing-chunks/service.js');
    await until(win, () => status(win, 'svc-experience') === 'error' && status(win, 'svc-recommendations') === 'error');
    expect(shown(win, 'fallback') || shown(win, 'control') || shown(win, 'bold'), 'the fallback, or the variation the snippet showed').to.equal(true);
    expect(shown(win, 'sorry'), 'the recommendations\' error slot').to.equal(true);
    expect(win.document.querySelector('svc-consent')!.getBoundingClientRect().height, 'no banner').to.equal(0);
    (win.svc as ServiceJs).track({ eventTitle: 'Still tracked', data: { chunks: 'missing' } });
    await (win.svc as ServiceJs).flush();
    expect(win.problems).to.deep.equal([]);
  });

  // The box the loader reserved for <svc-recommendations> before service.js (its `limit` cards' height) is the box the
  // stand-in keeps: the paragraph below is where it was before the SDK came (read by an inline script at the end of
  // the body, which lays the page out with the loader's style), and no layout shift was recorded.
  // A page's own <template> gets no box, from the loader or the stand-in (an error slot's text would then push).
  for (const [what, children] of [['no slot of its own', ''], ['an error slot', '<p slot="error" id="sorry">No picks today</p>'],
    ['a template of its own', '<template><b data-field="title"></b></template>']]) {
    it(`a recommendations chunk that answers 404 keeps the reserved box, with ${what}`, async () => {
      const win = await visit(`${HERO}${TEXT}<svc-recommendations feed="1" limit="4">${children}</svc-recommendations><p id="below">Below</p>
<script>window.below = document.getElementById('below').getBoundingClientRect().top</script>`, { autoTrack: 'false' }, '/missing-chunks/service.js');
      await until(win, () => status(win, 'svc-recommendations') === 'error');
      const element = win.document.querySelector('svc-recommendations')!;
      expect(win.customElements.get('svc-recommendations'), 'the stand-in').to.not.equal(undefined);
      if (!children.includes('<template>')) expect(element.getBoundingClientRect().height, 'a box is reserved').to.be.greaterThan(100);
      expect(win.document.getElementById('below')!.getBoundingClientRect().top, 'the paragraph below').to.be.closeTo(win.below!, 0.5);
      if (children.includes('sorry')) expect(shown(win, 'sorry'), 'the error slot').to.equal(true);
      await new Promise((resolve) => win.requestAnimationFrame(() => win.setTimeout(resolve)));
      expect(win.shifts, 'layout shifts').to.deep.equal([]);
      expect(win.problems).to.deep.equal([]);
    });
  }
});

