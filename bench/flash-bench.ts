// What a visitor sees of an experiment: was the fallback painted before the variation (a flash), and when was the
// final content painted, beside the page's first contentful paint — for new visitors and for the same visitors'
// second page view (their assignment already known).
//
// The page is a CMS page with the README's snippet and `<svc-experience name="hero-banner">` above the fold, served
// from another origin than the service (`npm start`'s config, a fresh database: hero-banner splits control/bold
// 50/50; control's content is the fallback's, bold's differs). Each visitor is a fresh browser context in
// Chromium, with a slow-4G-like network (150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up) and a 4× CPU slowdown
// set through the DevTools protocol. Element Timing (`elementtiming` on the fallback and on each variation's
// content) says what was painted and when; a `PerformanceObserver` registered before the page's own scripts reads
// the entries. A visitor "in a variation" is one served bold: for them a painted fallback is a flash.
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { median } from './choose-bench.js';
import { cmsPage, startPages, TEXT } from './page-cost-bench.js';
import { goalMark } from './goal-mark.js';

export interface PageView {
  /** The variation the element showed, or undefined when it kept the fallback. */
  variation: string | undefined;
  status: string;
  /** Render times (ms since navigation) of the elements painted, by their `elementtiming` name. */
  painted: Record<string, number>;
  fcpMs: number;
  /** The page's first Choose request: when it started and when its answer had arrived (ms since navigation). */
  choose?: { start: number; end: number };
}

export interface Visitor {
  first: PageView;
  second: PageView;
}

export interface FlashResult {
  visitors: Visitor[];
}

/** The CMS page: the experience is the first thing below the site's name. */
function page(snippet: string): string {
  return cmsPage(snippet, `<p elementtiming="site">Acme Coffee</p>
<svc-experience name="hero-banner">
  <h1 elementtiming="fallback">Welcome</h1>
  <template variation="control"><h1 elementtiming="control">Welcome</h1></template>
  <template variation="bold"><h1 elementtiming="bold">Big sale</h1></template>
</svc-experience>
<p>${TEXT}</p>`);
}

/** Registered before the page's scripts: paint and element entries, and what the element settled on. */
const OBSERVE = `(() => {
  const seen = { painted: {}, fcp: NaN, settled: null };
  window.__flash = seen;
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (!(e.identifier in seen.painted)) seen.painted[e.identifier] = e.renderTime || e.loadTime;
  }).observe({ type: 'element', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') seen.fcp = e.startTime;
  }).observe({ type: 'paint', buffered: true });
  addEventListener('svc:experience', (e) => { seen.settled = e.detail; });
})();`;

async function throttle(p: Page): Promise<void> {
  const cdp = await p.createCDPSession();
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false, latency: 150, downloadThroughput: (1.6 * 1024 * 1024) / 8, uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
}

/** One page view: waits until the element settles (or 6 s), then a moment more for the paint to be reported. */
async function view(p: Page, url: string): Promise<PageView> {
  await p.goto(url, { waitUntil: 'load' });
  await p.waitForFunction('window.__flash && window.__flash.settled !== null', { timeout: 6000, polling: 50 }).catch(() => undefined);
  await new Promise((r) => setTimeout(r, 300));
  const seen = await p.evaluate('window.__flash') as { painted: Record<string, number>; fcp: number; settled: { status: string; variation?: string } | null };
  const choose = await p.evaluate(`(() => {
    const e = performance.getEntriesByType('resource').find((r) => r.name.includes('/optimization/choose-api'));
    return e ? { start: e.startTime, end: e.responseEnd } : undefined;
  })()`) as PageView['choose'];
  return {
    choose,
    variation: seen.settled?.status === 'ready' ? seen.settled.variation : undefined,
    status: seen.settled?.status ?? 'never settled',
    painted: seen.painted,
    fcpMs: seen.fcp,
  };
}

async function visit(browser: Browser, url: string): Promise<Visitor> {
  const context = await browser.createBrowserContext();
  try {
    const first = await context.newPage();
    await first.evaluateOnNewDocument(OBSERVE);
    await throttle(first);
    const firstView = await view(first, url);
    await first.close();
    const second = await context.newPage();
    await second.evaluateOnNewDocument(OBSERVE);
    await throttle(second);
    return { first: firstView, second: await view(second, url) };
  } finally {
    await context.close();
  }
}

/**
 * Visitors until at least `perArm` were shown bold and `perArm` were not (the split is the service's, 50/50, so about
 * 2 × `perArm` visitors; at most 4 × `perArm`).
 */
export async function runFlashBench(perArm = 8): Promise<FlashResult> {
  const pages = await startPages((snippet) => ({ experiment: page(snippet) }));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  const result: FlashResult = { visitors: [] };
  try {
    const inBold = (): number => result.visitors.filter((v) => v.first.variation === 'bold').length;
    while (result.visitors.length < 4 * perArm && (inBold() < perArm || result.visitors.length - inBold() < perArm)) {
      result.visitors.push(await visit(browser, pages.url('experiment')));
    }
  } finally {
    await browser.close();
    await pages.close();
  }
  // A bench that ran without svc would report no flash: every visitor's element must have settled on an answer.
  const ready = result.visitors.flatMap((v) => [v.first, v.second]).filter((v) => v.status === 'ready').length;
  if (ready === 0) throw new Error('flash bench: no <svc-experience> showed a variation: svc did not run on the page');
  return result;
}

/** A view's flash: the visitor was shown bold (content unlike the fallback) and the fallback was painted first. */
export function flashed(v: PageView): boolean {
  return v.variation === 'bold' && 'fallback' in v.painted;
}

/** When the content the visitor ends with was painted: the variation's, or the fallback's when it stayed. */
export function finalPaintMs(v: PageView): number {
  return v.variation !== undefined ? v.painted[v.variation] ?? NaN : v.painted.fallback ?? NaN;
}

export function formatFlashBench(r: FlashResult): string {
  const ms = (n: number): string => (Number.isFinite(n) ? `${Math.round(n)} ms` : 'n/a');
  // Each kind of visitor's goals: no flash, and its final content painted by FCP + `byMs` (the median view).
  const row = (label: string, views: PageView[], byMs: number): string => {
    const bold = views.filter((v) => v.variation === 'bold');
    const settled = views.filter((v) => v.status !== 'never settled');
    const final = median(views.map(finalPaintMs).filter(Number.isFinite));
    const fcp = median(views.map((v) => v.fcpMs).filter(Number.isFinite));
    const late = median(views.map((v) => finalPaintMs(v) - v.fcpMs).filter(Number.isFinite));
    const asked = views.filter((v) => v.choose !== undefined);
    const decided = `${ms(median(asked.map((v) => v.choose!.start)))} → ${ms(median(asked.map((v) => v.choose!.end)))}`;
    const flashes = bold.filter(flashed).length;
    return `| ${label} | ${bold.length} of ${views.length} (${settled.length} settled) | ${flashes} of ${bold.length}` +
      `${bold.length ? ` (${Math.round((100 * flashes) / bold.length)} %)` : ''} | ${ms(fcp)} | ${decided} | ${ms(final)} | ${ms(late)} | `
      + `${goalMark(flashes === 0, 'no flash')}; ${goalMark(late <= byMs, `final by FCP + ${byMs} ms`)} |`;
  };
  return [
    `## What visitors see: ${r.visitors.length} visitors, slow 4G (150 ms round trip) and 4× CPU slowdown, Element Timing`,
    '',
    '| | shown bold | fallback painted first (flash) | first contentful paint | Choose asked → answered | final content painted | final − FCP | goals |',
    '|---|---|---|---|---|---|---|---|',
    row('new visitor', r.visitors.map((v) => v.first), 150),
    row('returning visitor (second page view)', r.visitors.map((v) => v.second), 100),
    '',
    'Times are medians, in ms since navigation; final − FCP is the median of each view\'s difference.',
    'Goals: no flash for new or returning visitors; returning visitors\' final content by FCP + 100 ms, new visitors\' by FCP + one round trip (150 ms).',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatFlashBench(await runFlashBench(Number(process.env.BENCH_FLASH_PER_ARM ?? 8))));
}
