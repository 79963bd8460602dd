// What moves on the page-cost bench's CMS page, and when: the same page (heading, <svc-experience>, text,
// <svc-recommendations limit="4">, text, <svc-consent>, the README's snippet), the same service (`npm start`'s config,
// a fresh database), loaded many times in headless Chromium. Each load records, from a script registered before the
// page's own: every `layout-shift` entry with its sources (the node, its rect before and after, clipped to the
// viewport), the first contentful paint, when the loader added service.js and when it arrived, when each custom
// element was defined, when the Choose answer and the products arrived, the elements' states (the experience held,
// shown, settled; the products ready; the banner open), and the custom elements' and paragraphs' heights over time
// (a ResizeObserver), so a shift can be put beside the event that preceded it.
//
// Conditions, each `--runs` loads:
// - `--throttle`: `none`; `cpu4` (Emulation.setCPUThrottlingRate, 4 or `--cpu=N`); `mobile` (the same CPU slowdown
//   and Lighthouse's DevTools-throttling network: 562.5 ms round trip, 1.4 Mbit/s down, 675 kbit/s up); `lighthouse`
//   (Lighthouse itself, mobile, `throttlingMethod: 'devtools'`, as the page-cost bench runs it: its CLS and the
//   trace's LayoutShift events); `lighthouse-bench` (the same, each counted run preceded by the page-cost bench's
//   other audits: the page without svc and the hero pages, simulated and DevTools throttling).
//   Lighthouse by itself clears neither localStorage nor IndexedDB between runs in one Chrome; here a `new` visitor's
//   run clears them (and cookies), and a `returning` visitor's run resets nothing (see lighthouseVisitor).
// - `--viewport`: `mobile` (412×823 at 1.75×, a mobile user agent) or `desktop` (1280×800).
// - `--visitor`: `new` (a fresh browser context per load) or `returning` (one context for every load, after one
//   uncounted load: localStorage, IndexedDB and the HTTP cache kept).
// - `--scenario`: `normal`, or forced outcomes (see Scenario) such as the feed answering fewer products than `limit`.
// - `--jitter=ms`: each request to the service held a random 0–ms longer (other orders of arrival).
// - `--self-check`: a 100 px block put above the experience 1 s after load, a shift the table must show.
//
//   node --import tsx bench/layout-shift-bench.ts --runs=30 --throttle=mobile,cpu4,none --viewport=mobile,desktop
//     --visitor=new,returning [--scenario=normal,feed-3] [--jitter=1500] [--verbose]
//
// Prints a table per condition (CLS as Lighthouse computes it, the largest session window; each shift with its time
// and sources; the events), then a summary (runs, median and max CLS, runs above 0.01). Exits 1 when a run's CLS is
// above 0.01.
import * as chromeLauncher from 'chrome-launcher';
import lighthouse from 'lighthouse';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { lighthouseVisitor, startPages, type LighthouseVisitor } from './page-cost-bench.js';

type Throttle = 'none' | 'cpu4' | 'mobile' | 'lighthouse' | 'lighthouse-bench';
type Viewport = 'mobile' | 'desktop';
type Visitor = LighthouseVisitor;

interface Rect { x: number; y: number; width: number; height: number }
interface Source { node: string; previousRect: Rect; currentRect: Rect }
interface Shift { t: number; value: number; sources: Source[] }
interface Load {
  cls: number;
  shifts: Shift[];
  /** Events, ms since navigation: fcp, script-added, script-loaded, defined:<tag>, products, banner, choice… */
  events: Record<string, number>;
  /** Height changes of the observed elements: [t, element, height]. */
  sizes: [number, string, number][];
}

/** Registered before the page's scripts (evaluateOnNewDocument): what moved, and what happened around it. */
export const OBSERVE = `(() => {
  const r = { shifts: [], events: {}, sizes: [] };
  window.__shifts = r;
  const now = () => Math.round(performance.now());
  const mark = (name, t) => { if (!(name in r.events)) r.events[name] = Math.round(t ?? performance.now()); };
  const describe = (n) => {
    if (!n) return '(removed)';
    if (n.nodeType !== 1) return n.nodeName.toLowerCase() + ' in ' + describe(n.parentElement || (n.getRootNode && n.getRootNode().host));
    let s = n.localName;
    if (n.id) s += '#' + n.id;
    if (n.classList.length) s += '.' + [...n.classList].join('.');
    if (n.getAttribute('part')) s += '[part=' + n.getAttribute('part') + ']';
    const root = n.getRootNode();
    if (root !== document && root.host) s = root.host.localName + ' ▸ ' + s;
    else if (n.localName === 'p' && n.parentElement === document.body) s += '#' + ([...document.querySelectorAll('body > p')].indexOf(n) + 1);
    return s;
  };
  const rect = (q) => ({ x: Math.round(q.x), y: Math.round(q.y), width: Math.round(q.width), height: Math.round(q.height) });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      r.shifts.push({ t: Math.round(e.startTime), value: e.value, recent: e.hadRecentInput,
        sources: (e.sources || []).map((s) => ({ node: describe(s.node), previousRect: rect(s.previousRect), currentRect: rect(s.currentRect) })) });
    }
  }).observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') mark('fcp', e.startTime);
  }).observe({ type: 'paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.name.endsWith('/service.js')) { mark('script-start', e.startTime); mark('script-loaded', e.responseEnd); }
      if (e.name.includes('/choose-api')) mark('choose-answered', e.responseEnd);
      if (e.name.includes('/feeds/') && e.name.endsWith('/data')) mark('products-answered', e.responseEnd);
    }
  }).observe({ type: 'resource', buffered: true });
  for (const tag of ['svc-experience', 'svc-recommendations', 'svc-consent']) customElements.whenDefined(tag).then(() => mark('defined:' + tag));
  const watched = new WeakSet();
  const last = new Map();
  const sizes = new ResizeObserver((entries) => {
    for (const e of entries) {
      const name = describe(e.target);
      const h = Math.round(e.borderBoxSize[0].blockSize);
      if (last.get(name) === h) continue;
      last.set(name, h);
      r.sizes.push([now(), name, h]);
    }
  });
  const watch = () => {
    for (const el of document.querySelectorAll('svc-experience, svc-recommendations, svc-consent, body > p')) {
      if (watched.has(el)) continue;
      watched.add(el);
      sizes.observe(el);
    }
  };
  new MutationObserver((records) => {
    watch();
    for (const m of records) {
      if (m.type === 'childList') for (const n of m.addedNodes) if (n.localName === 'script' && /service\\.js$/.test(n.src || '')) mark('script-added');
      if (m.type !== 'attributes') continue;
      const el = m.target, v = el.getAttribute(m.attributeName);
      if (el.localName === 'svc-recommendations' && m.attributeName === 'status') mark('recs:' + v);
      if (el.localName === 'svc-consent' && m.attributeName === 'open' && v !== null) mark('banner-open');
      if (el.localName === 'svc-experience' && m.attributeName === 'status') mark('exp:' + v);
      if (el.localName === 'svc-experience' && m.attributeName === 'data-svc-known') mark('exp:known-shown');
      if (el.localName === 'svc-experience' && m.attributeName === 'data-svc-wait') mark(v === null ? 'exp:wait-end' : 'exp:wait');
    }
  }).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['status', 'open', 'data-svc-known', 'data-svc-wait'] });
  if (document.visibilityState !== 'visible') mark('hidden-at-start', 0);
  addEventListener('DOMContentLoaded', () => { watch(); mark('dcl'); });
  addEventListener('load', () => mark('load'));
})();`;

/** Lighthouse's CLS: the largest session window (shifts less than 1 s apart, a window at most 5 s long). */
export function sessionWindowCls(shifts: { t: number; value: number }[]): number {
  let max = 0, sum = 0, first = -Infinity, prev = -Infinity;
  for (const s of [...shifts].sort((a, b) => a.t - b.t)) {
    if (s.t - prev > 1000 || s.t - first > 5000) { sum = 0; first = s.t; }
    sum += s.value;
    prev = s.t;
    max = Math.max(max, sum);
  }
  return max;
}

const MOBILE_UA = 'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/130.0.0.0 Mobile Safari/537.36';

/**
 * Forced outcomes the random orders may not reach: the feed answers fewer products than `limit` (`feed-1`, `feed-2`,
 * `feed-3`), or fails (`feed-error`); the Choose API fails (`choose-error`) or answers after the deadline
 * (`choose-late`); service.js never arrives (`no-sdk`) or arrives 3 s late (`sdk-late`); product images fail
 * (`images-404`); the recommendations element's chunk answers 404 (`recs-chunk-404`: its stand-in).
 */
export type Scenario = 'normal' | 'feed-1' | 'feed-2' | 'feed-3' | 'feed-error' | 'choose-error' | 'choose-late' | 'no-sdk' | 'sdk-late' | 'images-404'
  | 'recs-chunk-404';

async function forceScenario(p: Page, scenario: Scenario): Promise<void> {
  await p.setRequestInterception(true);
  const cors = (origin: string | undefined): Record<string, string> => ({ 'access-control-allow-origin': origin ?? '*', 'content-type': 'application/json' });
  p.on('request', (req) => {
    if (req.isInterceptResolutionHandled()) return;
    const url = req.url();
    const origin = req.headers().origin;
    const feed = /\/feeds\/[^/]+\/data/.test(url) && req.method() === 'POST';
    if (feed && scenario === 'feed-error') return void req.respond({ status: 503, headers: cors(origin), body: '{}' });
    if (feed && scenario.startsWith('feed-')) {
      const keep = Number(scenario.slice(5));
      return void fetch(url, { method: 'POST', headers: req.headers(), body: req.postData() })
        .then((r) => r.json() as Promise<{ products?: unknown[] }>)
        .then((j) => req.respond({ status: 200, headers: cors(origin), body: JSON.stringify({ ...j, products: (j.products ?? []).slice(0, keep) }) }))
        .catch(() => req.abort());
    }
    if (url.includes('/choose-api') && scenario === 'choose-error') return void req.respond({ status: 503, headers: cors(origin), body: '{}' });
    if (url.includes('/choose-api') && scenario === 'choose-late') return void setTimeout(() => void req.continue().catch(() => undefined), 1500);
    if (url.endsWith('/service.js') && scenario === 'no-sdk') return void req.abort();
    if (url.endsWith('/service.js') && scenario === 'sdk-late') return void setTimeout(() => void req.continue().catch(() => undefined), 3000);
    if (/\/img\//.test(url) && scenario === 'images-404') return void req.respond({ status: 404, body: '' });
    if (/\/chunks\/recommendations-[^/]*\.js$/.test(url) && scenario === 'recs-chunk-404') return void req.respond({ status: 404, body: '' });
    void req.continue().catch(() => undefined);
  });
}

async function prepare(p: Page, throttle: Throttle, viewport: Viewport, jitterMs: number, cmsOrigin: string, scenario: Scenario = 'normal'): Promise<void> {
  await p.evaluateOnNewDocument(OBSERVE);
  if (process.argv.includes('--self-check')) {
    await p.evaluateOnNewDocument(`addEventListener('load', () => setTimeout(() => { const d = document.createElement('div'); d.style.height = '100px'; document.querySelector('svc-experience').before(d); }, 1000))`);
  }
  if (scenario !== 'normal') await forceScenario(p, scenario);
  if (jitterMs > 0 && scenario === 'normal') {
    // Each request to the service (service.js, Choose, the feed, images, events) held a random 0–jitter ms more:
    // the orders in which they can arrive, on a busy machine or a bad network.
    await p.setRequestInterception(true);
    p.on('request', (req) => {
      if (req.isInterceptResolutionHandled()) return;
      const cms = req.url().startsWith(cmsOrigin);
      setTimeout(() => void req.continue().catch(() => undefined), cms ? 0 : Math.random() * jitterMs);
    });
  }
  const cdp = await p.createCDPSession();
  if (viewport === 'mobile') {
    await p.setUserAgent(MOBILE_UA);
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: 412, height: 823, deviceScaleFactor: 1.75, mobile: true });
  } else {
    await cdp.send('Emulation.setDeviceMetricsOverride', { width: 1280, height: 800, deviceScaleFactor: 1, mobile: false });
  }
  if (throttle === 'mobile') {
    await cdp.send('Network.enable');
    // Lighthouse's mobile DevTools throttling (its "slow 4G" with the DevTools adjustments).
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false, latency: 150 * 3.75, downloadThroughput: (1.6 * 1024 * 0.9 * 1024) / 8, uploadThroughput: (750 * 0.9 * 1024) / 8,
    });
  }
  if (throttle === 'mobile' || throttle === 'cpu4') await cdp.send('Emulation.setCPUThrottlingRate', { rate: Number(arg('cpu', '4')) });
}

/** One load: until the products are there and the banner is open (or 8 s), then 1.5 s more for late shifts. */
async function load(context: BrowserContext, url: string, throttle: Throttle, viewport: Viewport, jitterMs = 0, scenario: Scenario = 'normal'): Promise<Load> {
  const p = await context.newPage();
  try {
    await prepare(p, throttle, viewport, jitterMs, new URL(url).origin, scenario);
    await p.goto(url, { waitUntil: 'load', timeout: 30_000 });
    await p.waitForFunction(`(() => { const e = window.__shifts.events; return ('recs:ready' in e || 'recs:error' in e || 'recs:empty' in e) && 'banner-open' in e; })()`,
      { timeout: 8000, polling: 50 }).catch(() => undefined);
    await new Promise((r) => setTimeout(r, 1500));
    const seen = await p.evaluate('window.__shifts') as Omit<Load, 'cls'> | undefined;
    if (!seen) throw new Error(`layout shift bench: nothing recorded on ${p.url()}: ${(await p.content()).slice(0, 200)}`);
    return { ...seen, cls: sessionWindowCls(seen.shifts) };
  } finally {
    await p.close();
  }
}

/** One Lighthouse run (mobile, DevTools throttling): its CLS and its layout-shift entries, from the trace. */
async function lighthouseLoad(url: string, port: number, throttlingMethod: 'devtools' | 'simulate' = 'devtools', visitor: Visitor = 'new'): Promise<Load> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], throttlingMethod, ...lighthouseVisitor(visitor) });
  const lhr = result?.lhr;
  if (!lhr) throw new Error(`layout shift bench: Lighthouse gave no report for ${url}`);
  const items = ((lhr.audits['layout-shifts']?.details as { items?: unknown[] } | undefined)?.items ?? []) as
    { node?: { snippet?: string; selector?: string; boundingRect?: Rect }; score?: number }[];
  const trace = (result.artifacts as { Trace?: { traceEvents: { name: string; ts: number; args?: { data?: Record<string, unknown> } }[] } }).Trace;
  const events = trace?.traceEvents ?? [];
  const nav = events.find((e) => e.name === 'navigationStart' && (e.args?.data as { isLoadingMainFrame?: boolean } | undefined)?.isLoadingMainFrame);
  const t0 = nav?.ts ?? 0;
  const shifts: Shift[] = events.filter((e) => e.name === 'LayoutShift').map((e) => {
    const data = e.args?.data as { score?: number; weighted_score_delta?: number; impacted_nodes?: { node_id: number; old_rect: number[]; new_rect: number[] }[] };
    const r = (q: number[]): Rect => ({ x: q[0] ?? 0, y: q[1] ?? 0, width: q[2] ?? 0, height: q[3] ?? 0 });
    return {
      t: Math.round((e.ts - t0) / 1000), value: data.weighted_score_delta ?? data.score ?? 0,
      sources: (data.impacted_nodes ?? []).map((n) => ({ node: `node ${n.node_id}`, previousRect: r(n.old_rect), currentRect: r(n.new_rect) })),
    };
  });
  // Name the trace's nodes from the audit's items where it lists them.
  const named = items.map((i) => `${i.node?.selector ?? '?'} ${i.node?.snippet ?? ''} (${(i.score ?? 0).toFixed(3)})`);
  if (named.length && shifts.length) shifts[0]!.sources.push({ node: `Lighthouse: ${named.join('; ')}`, previousRect: { x: 0, y: 0, width: 0, height: 0 }, currentRect: { x: 0, y: 0, width: 0, height: 0 } });
  const ev: Record<string, number> = {};
  const fcp = events.find((e) => e.name === 'firstContentfulPaint');
  if (fcp) ev.fcp = Math.round((fcp.ts - t0) / 1000);
  return { cls: Number(lhr.audits['cumulative-layout-shift']?.numericValue ?? NaN), shifts, events: ev, sizes: [] };
}

function formatLoad(i: number, l: Load, verbose: boolean): string[] {
  const events = Object.entries(l.events).sort((a, b) => a[1] - b[1]).map(([k, v]) => `${k} ${v}`).join(', ');
  const rect = (q: Rect): string => `${q.x},${q.y} ${q.width}×${q.height}`;
  const out = [`| ${i + 1} | ${l.cls.toFixed(4)} | ${l.shifts.length ? l.shifts.map((s) => `${s.t} ms: ${s.value.toFixed(4)}`).join('; ') : '—'} | ${events} |`];
  for (const s of l.shifts) {
    for (const src of s.sources) out.push(`|  | | ↳ ${s.t} ms ${src.node}: ${rect(src.previousRect)} → ${rect(src.currentRect)} | |`);
  }
  if (verbose || l.cls > 0.01) out.push(`|  | | sizes: ${l.sizes.map(([t, n, h]) => `${t} ${n}=${h}`).join(', ')} | |`);
  return out;
}

function arg(name: string, fallback: string): string {
  const hit = process.argv.find((a) => a.startsWith(`--${name}=`));
  return hit ? hit.slice(name.length + 3) : fallback;
}

export interface ConditionResult { scenario: Scenario; throttle: Throttle; viewport: Viewport; visitor: Visitor; loads: Load[] }

export async function runLayoutShiftBench(options: {
  runs: number; throttles: Throttle[]; viewports: Viewport[]; visitors: Visitor[]; jitterMs?: number; scenarios?: Scenario[]; verbose?: boolean; log?: (line: string) => void;
}): Promise<ConditionResult[]> {
  const log = options.log ?? ((line: string) => console.log(line));
  const pages = await startPages();
  const url = pages.url('with');
  const results: ConditionResult[] = [];
  let browser: Browser | undefined;
  let chrome: chromeLauncher.LaunchedChrome | undefined;
  try {
    for (const scenario of options.scenarios ?? ['normal']) {
      for (const throttle of options.throttles) {
        for (const viewport of options.viewports) {
          for (const visitor of options.visitors) {
            // Lighthouse: its mobile emulation, no forced scenario; a new visitor's storage cleared before each run, a
            // returning one's kept (see lighthouseVisitor).
            if (throttle.startsWith('lighthouse') && (viewport !== 'mobile' || scenario !== 'normal')) continue;
            const loads: Load[] = [];
            log('');
            log(`### ${scenario === 'normal' ? '' : `scenario ${scenario}, `}throttle ${throttle}, viewport ${viewport}, ${visitor} visitor`);
            log('| run | CLS | shifts (time: score) | events (ms since navigation) |');
            log('|---|---|---|---|');
            if (throttle === 'lighthouse' || throttle === 'lighthouse-bench') {
              chrome ??= await chromeLauncher.launch({
                chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
                chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
              });
              // A returning visitor has been here once before the counted runs.
              if (visitor === 'returning') await lighthouseLoad(url, chrome.port, 'devtools', 'new');
              for (let i = 0; i < options.runs; i++) {
                if (throttle === 'lighthouse-bench') {
                  // The page-cost bench's sequence around each counted run: the other pages, both throttling methods.
                  for (const side of ['without', 'heroWithout', 'heroWith'] as const) {
                    for (const method of ['simulate', 'devtools'] as const) {
                      const other = await lighthouseLoad(pages.url(side), chrome.port, method, visitor);
                      if (other.cls > 0) log(`|  | | (${side}, ${method}: CLS ${other.cls.toFixed(4)}) | |`);
                    }
                  }
                  const sim = await lighthouseLoad(url, chrome.port, 'simulate', visitor);
                  if (sim.cls > 0) log(`|  | | (with, simulate: CLS ${sim.cls.toFixed(4)}) | |`);
                }
                const l = await lighthouseLoad(url, chrome.port, 'devtools', visitor);
                loads.push(l);
                for (const line of formatLoad(i, l, options.verbose ?? false)) log(line);
              }
            } else {
              browser ??= await puppeteer.launch({
                executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
                args: ['--no-sandbox', '--headless=new', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
              });
              const shared = visitor === 'returning' ? await browser.createBrowserContext() : undefined;
              // A returning visitor has been here once before the counted loads.
              if (shared) await load(shared, url, throttle, viewport, options.jitterMs, scenario);
              for (let i = 0; i < options.runs; i++) {
                const context = shared ?? (await browser.createBrowserContext());
                try {
                  const l = await load(context, url, throttle, viewport, options.jitterMs, scenario);
                  loads.push(l);
                  for (const line of formatLoad(i, l, options.verbose ?? false)) log(line);
                } finally {
                  if (!shared) await context.close();
                }
              }
              await shared?.close();
            }
            results.push({ scenario, throttle, viewport, visitor, loads });
          }
        }
      }
    }
  } finally {
    await browser?.close();
    await chrome?.kill();
    await pages.close();
  }
  return results;
}

export function formatLayoutShiftSummary(results: ConditionResult[]): string {
  return [
    '| scenario | throttle | viewport | visitor | runs | median CLS | p90 | p95 | max CLS | runs with CLS > 0 | runs with CLS > 0.01 |',
    '|---|---|---|---|---|---|---|---|---|---|---|',
    ...results.map((r) => {
      const cls = r.loads.map((l) => l.cls).sort((a, b) => a - b);
      const p = (q: number): string => (cls[Math.min(cls.length - 1, Math.ceil(q * cls.length) - 1)] ?? NaN).toFixed(4);
      return `| ${r.scenario} | ${r.throttle} | ${r.viewport} | ${r.visitor} | ${cls.length} | ${p(0.5)} | ${p(0.9)} | ${p(0.95)} | ` +
        `${Math.max(...cls).toFixed(4)} | ${cls.filter((c) => c > 0).length} | ${cls.filter((c) => c > 0.01).length} |`;
    }),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const list = <T extends string>(name: string, fallback: string): T[] => arg(name, fallback).split(',') as T[];
  const results = await runLayoutShiftBench({
    runs: Number(arg('runs', '30')),
    throttles: list<Throttle>('throttle', 'mobile'),
    viewports: list<Viewport>('viewport', 'mobile'),
    visitors: list<Visitor>('visitor', 'new'),
    jitterMs: Number(arg('jitter', '0')),
    scenarios: list<Scenario>('scenario', 'normal'),
    verbose: process.argv.includes('--verbose'),
  });
  console.log('');
  console.log(formatLayoutShiftSummary(results));
  if (results.some((r) => r.loads.some((l) => l.cls > 0.01))) process.exitCode = 1;
}
