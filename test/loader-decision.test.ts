import { expect, waitUntil } from '@open-wc/testing';

// A new visitor's decision, started by the README's snippet before the first paint: the loader asks the Choose API
// for each <svc-experience> as the page is parsed, holds the experience's box (not the page) until the answer, shows
// the variation from its template, and hands the answer to the element once the SDK defines it — one request, no
// fallback painted, the exposure reported when shown. Against our running service (web-test-runner proxies /v1 to
// it, and `/slow/<ms>/v1` to it that much later); the experiment `early-hero` (control/bold) is this file's alone.
// Each page is a frame (this origin's storage: the visitor is the test's), its paints seen through Element Timing.

const SERVICE = `${location.origin}/v1`;
const CHOOSE = `${SERVICE}/acme/projects/shop/optimization/choose-api`;
const RESULTS = `${SERVICE}/acme/projects/shop/experiences/early-hero/results`;
const KEYS = { organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', autoTrack: 'false' };

/** The loader line of the README's snippet, its config swapped for `config` (the dev server reformats .js files). */
async function loaderLine(src: string, config: Record<string, string>): Promise<string> {
  const readme = await (await fetch('/README.md')).text();
  const line = readme.split('\n').filter((l) => l.startsWith('!function'))[1] ?? '';
  return `${line.slice(0, line.indexOf('}(document,') + 1)}(document,${JSON.stringify(src)},${JSON.stringify(config)});`;
}

/** A profile id the service assigns to `variation` of early-hero (asked without recording an exposure). */
async function visitorIn(variation: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const profileId = crypto.randomUUID();
    const response = await fetch(CHOOSE, {
      method: 'POST',
      headers: { Authorization: 'Bearer srv1.s3cret', 'Content-Type': 'application/json' },
      body: JSON.stringify({ identification: { sourceId: 'web', profileId }, names: ['early-hero'], deferExposure: true }),
    });
    const { choices } = (await response.json()) as { choices: { variation?: string }[] };
    if (choices[0]?.variation === variation) return profileId;
  }
  throw new Error(`no profile in ${variation}`);
}

async function units(): Promise<{ units: number; variations: { name: string; units: number }[] }> {
  const response = await fetch(RESULTS, { headers: { Authorization: 'Bearer srv1.s3cret' } });
  expect(response.status, 'results').to.equal(200);
  return (await response.json()) as { units: number; variations: { name: string; units: number }[] };
}

interface Page {
  doc: Document;
  win: Window & typeof globalThis & {
    painted: Record<string, number>;
    events: { name: string; profileId: string; data?: Record<string, unknown> }[];
    svc?: { flush(): Promise<void> };
  };
  el: HTMLElement & { status?: string };
  /** Whether the element with this id takes space on screen and is visible. */
  shown(id: string): boolean;
  /** The Choose requests this page made. */
  chooseRequests(): number;
}

const frames: HTMLIFrameElement[] = [];

/** A CMS page in a frame: Element Timing observed from the start, the snippet's loader, then the experience. */
async function page(options: { src?: string; config?: Record<string, string>; timeout?: number; templates?: string } = {}): Promise<Page> {
  const config = options.config ?? { ...KEYS, api: SERVICE };
  const templates = options.templates ?? '<template variation="control"><h1 elementtiming="control" id="control">Welcome</h1></template><template variation="bold"><h1 elementtiming="bold" id="bold">Big sale</h1></template>';
  const frame = document.createElement('iframe');
  frame.style.cssText = 'width:600px;height:400px';
  frame.srcdoc = `<!doctype html><html lang="en"><head>
<script>window.events=[];addEventListener('svc:event',function(e){events.push(e.detail)});window.painted={};new PerformanceObserver(function(l){l.getEntries().forEach(function(e){painted[e.identifier]=e.renderTime||e.loadTime})}).observe({type:'element',buffered:true})</script>
<script>${await loaderLine(options.src ?? '/never-loads.js', config)}</script></head><body>
<p elementtiming="site">Acme Coffee</p>
<svc-experience name="early-hero"${options.timeout === undefined ? '' : ` timeout="${options.timeout}"`}><h1 elementtiming="fallback" id="fallback">Welcome</h1>${templates}</svc-experience>
</body></html>`;
  frames.push(frame);
  const loaded = new Promise((resolve) => frame.addEventListener('load', resolve, { once: true }));
  document.body.append(frame);
  await loaded;
  const doc = frame.contentDocument!;
  const win = frame.contentWindow as Page['win'];
  return {
    doc,
    win,
    el: doc.querySelector('svc-experience')!,
    shown(id) {
      const node = doc.getElementById(id);
      return node !== null && node.getClientRects().length > 0 && win.getComputedStyle(node).visibility === 'visible';
    },
    chooseRequests: () => win.performance.getEntriesByType('resource').filter((e) => e.name.includes('/optimization/choose-api')).length,
  };
}

/** Two frames later: whatever was going to be painted by now has been reported. */
async function painted(p: Page): Promise<void> {
  for (let i = 0; i < 2; i++) await new Promise((resolve) => p.win.requestAnimationFrame(() => setTimeout(resolve)));
}

describe('the loader decides before the first paint (a new visitor)', () => {
  afterEach(() => {
    frames.splice(0).forEach((frame) => frame.remove());
    for (const key of ['svc.profileId', 'svc.session', 'svc.choices', 'svc.optIn']) localStorage.removeItem(key);
  });

  it('asks for a visitor it has never seen, with a profile id it keeps for the SDK, and shows their variation', async () => {
    const p = await page();
    await waitUntil(() => p.el.dataset.svcWait === undefined, 'the answer', { timeout: 5000 });
    const profileId = localStorage.getItem('svc.profileId');
    expect(profileId, 'a profile id for the SDK').to.be.a('string');
    const response = await fetch(CHOOSE, {
      method: 'POST',
      headers: { Authorization: 'Bearer srv1.s3cret', 'Content-Type': 'application/json' },
      body: JSON.stringify({ identification: { sourceId: 'web', profileId }, names: ['early-hero'], deferExposure: true }),
    });
    const { choices } = (await response.json()) as { choices: { variation: string }[] };
    const variation = choices[0]!.variation;
    expect(p.el.querySelector<HTMLElement>('[slot="content"]')?.dataset.svcVariation, 'the service\'s variation').to.equal(variation);
    expect(p.shown(variation)).to.equal(true);
    expect(p.chooseRequests()).to.equal(1);
  });

  it('a visitor in a variation: the variation in the box, the fallback never painted, even with no SDK', async () => {
    localStorage.setItem('svc.profileId', await visitorIn('bold'));
    // The answer comes after the page's first paint (a service 400 ms away).
    const p = await page({ config: { ...KEYS, api: `${location.origin}/slow/400/v1` }, timeout: 10000 });
    await waitUntil(() => p.shown('bold'), 'bold shown', { timeout: 5000 });
    // Element Timing reports a paint a frame or more after it, later on a busy machine: wait for bold's report.
    await waitUntil(() => 'bold' in p.win.painted, 'bold painted', { timeout: 5000 });
    await painted(p);
    expect(p.win.painted, 'the fallback never painted').not.to.have.property('fallback');
    expect(p.win.painted, 'the rest of the page painted at once').to.have.property('site');
    expect(p.shown('fallback')).to.equal(false);
  });

  it('a visitor in control on a page without control\'s template: the fallback, once the answer says so', async () => {
    localStorage.setItem('svc.profileId', await visitorIn('control'));
    const p = await page({ timeout: 10000, templates: '<template variation="bold"><h1 id="bold">Big sale</h1></template>' });
    await waitUntil(() => p.shown('fallback'), 'the fallback shown', { timeout: 5000 });
    expect(p.el.dataset.svcWait, 'no longer held').to.equal(undefined);
    expect(p.shown('bold')).to.equal(false);
  });

  it('without an answer by `timeout` the fallback appears then, the SDK never loading (a style-only deadline)', async () => {
    // A service that refuses the connection: no answer at all.
    const p = await page({ config: { ...KEYS, api: 'http://127.0.0.1:9/v1' }, timeout: 3000 });
    const ended = new Promise((resolve) => p.el.addEventListener('animationend', resolve, { once: true }));
    expect(p.el.dataset.svcWait, 'held while the decision is awaited').not.to.equal(undefined);
    expect(p.win.getComputedStyle(p.el).visibility, 'held').to.equal('hidden');
    expect(p.shown('fallback'), 'held: not painted').to.equal(false);
    expect(p.doc.getElementById('fallback')!.getBoundingClientRect().height, 'the box keeps its size').to.be.greaterThan(0);
    await ended;
    expect(p.shown('fallback'), 'the fallback after the deadline').to.equal(true);
  });

  it('asks nothing and holds nothing for a visitor who opted out, or before a required consent', async () => {
    localStorage.setItem('svc.optIn', 'false');
    const out = await page({ timeout: 10000 });
    expect(out.shown('fallback'), 'opted out').to.equal(true);
    localStorage.removeItem('svc.optIn');
    const pending = await page({ config: { ...KEYS, api: SERVICE, consentRequired: 'true' }, timeout: 10000 });
    expect(pending.shown('fallback'), 'consent pending').to.equal(true);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(out.chooseRequests() + pending.chooseRequests(), 'no request').to.equal(0);
    expect(localStorage.getItem('svc.profileId'), 'no id written').to.equal(null);
  });
});

describe('the element takes the loader\'s answer (the SDK loaded)', () => {
  afterEach(() => {
    frames.splice(0).forEach((frame) => frame.remove());
    for (const key of ['svc.profileId', 'svc.session', 'svc.choices', 'svc.optIn']) localStorage.removeItem(key);
  });

  const settled = (p: Page): Promise<void> =>
    waitUntil(() => p.el.status !== undefined && p.el.status !== 'loading', 'the element settled', { timeout: 8000 });

  it('one request for the page; the visitor counted once, in the variation shown; the fallback never painted', async () => {
    const before = await units();
    const visitor = await visitorIn('bold');
    localStorage.setItem('svc.profileId', visitor);
    const p = await page({ src: '/dist/service.js' });
    await settled(p);
    expect(p.el.status).to.equal('ready');
    expect(p.shown('bold')).to.equal(true);
    await painted(p);
    expect(p.win.painted).not.to.have.property('fallback');
    expect(p.chooseRequests(), 'the loader\'s request only').to.equal(1);
    const viewed = p.win.events.filter((e) => e.name === 'Experiment Viewed');
    expect(viewed, 'one exposure reported').to.have.length(1);
    expect(viewed[0], 'by the profile the loader asked for').to.include({ profileId: visitor });
    expect(viewed[0]!.data).to.include({ experience: 'early-hero', variation: 'bold' });
    await p.win.svc!.flush();
    const after = await units();
    expect(after.units - before.units, 'one unit').to.equal(1);
    const bold = (a: typeof after): number => a.variations.find((v) => v.name === 'bold')!.units;
    expect(bold(after) - bold(before), 'in bold').to.equal(1);
  });

  it('a visitor never seen before: the SDK reports the exposure as the profile the loader minted', async () => {
    const p = await page({ src: '/dist/service.js' });
    await settled(p);
    expect(p.el.status).to.equal('ready');
    const minted = localStorage.getItem('svc.profileId');
    const viewed = p.win.events.filter((e) => e.name === 'Experiment Viewed');
    expect(viewed).to.have.length(1);
    expect(viewed[0]).to.include({ profileId: minted });
    expect(p.chooseRequests()).to.equal(1);
  });

  it('defined before the answer comes: the box stays held, then shows the answer (still one request)', async () => {
    localStorage.setItem('svc.profileId', await visitorIn('bold'));
    const p = await page({ src: '/dist/service.js', config: { ...KEYS, api: `${location.origin}/slow/1500/v1` }, timeout: 6000 });
    await p.win.customElements.whenDefined('svc-experience');
    if (p.el.status === 'loading') expect(p.shown('fallback'), 'held by the element now').to.equal(false);
    await settled(p);
    expect(p.el.status).to.equal('ready');
    expect(p.shown('bold')).to.equal(true);
    await painted(p);
    expect(p.win.painted).not.to.have.property('fallback');
    expect(p.chooseRequests()).to.equal(1);
  });

  it('an answer in time for a template the element fills, the SDK after `timeout`: the fallback stays, no late swap', async () => {
    localStorage.setItem('svc.profileId', await visitorIn('bold'));
    const p = await page({
      src: '/slow/1500/dist/service.js', timeout: 300,
      templates: '<template variation="bold"><h1 id="bold" data-field="title"></h1></template>',
    });
    await settled(p);
    expect(p.el.status).to.equal('empty');
    expect(p.shown('fallback')).to.equal(true);
    expect(p.doc.getElementById('bold'), 'never rendered').to.equal(null);
  });

  it('an answer after `timeout`: the fallback stays and the visitor is counted in no variation', async () => {
    const before = await units();
    localStorage.setItem('svc.profileId', await visitorIn('bold'));
    const p = await page({ src: '/dist/service.js', config: { ...KEYS, api: `${location.origin}/slow/1200/v1` }, timeout: 200 });
    await settled(p);
    expect(p.el.status).to.equal('empty');
    expect(p.shown('fallback')).to.equal(true);
    expect(p.shown('bold')).to.equal(false);
    // The answer came (the loader's request finished) and is not shown late.
    await waitUntil(() => p.chooseRequests() >= 1 && p.win.performance.getEntriesByType('resource').some((e) => e.name.includes('choose-api') && (e as PerformanceResourceTiming).responseEnd > 0), 'the late answer', { timeout: 5000 });
    await painted(p);
    expect(p.shown('bold'), 'no late flicker').to.equal(false);
    await p.win.svc!.flush();
    expect((await units()).units, 'counted nowhere').to.equal(before.units);
  });
});
