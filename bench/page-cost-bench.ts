// What svc costs a page, as Google measures it: Lighthouse (mobile, simulated throttling) on one CMS-like page served
// from another origin than the service, once without svc and once with the README's snippet, alternating, median
// of 3 each (rounds alternate new visitors, storage cleared, and returning ones: 2 of 3 new). The page: a heading, <svc-experience> with a fallback and two templates, text, <svc-recommendations>
// with four products, more text, <svc-consent>. The service is `npm start`'s: the shipped config, a fresh database.
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as chromeLauncher from 'chrome-launcher';
import lighthouse, { type Flags } from 'lighthouse';
import { buildApp } from '../server/app.js';
import { loadConfigFile } from '../server/config/load-config.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import { median } from './choose-bench.js';
import { SCHEMA } from '../server/schema.js';
import { goalMark } from './goal-mark.js';

const ROOT = resolve(import.meta.dirname, '..');

export interface PageCost {
  score: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  bytes: number;
  /** Main-thread time Lighthouse attributes to service.js and its chunks (parse, compile, run; 4× CPU slowdown). */
  svcMs: number;
}

/**
 * The CMS page (`without`, `with`) and the page whose largest element is the experience (`heroWithout`, `heroWith`:
 * a new visitor's box waits for the decision).
 */
type Side = 'without' | 'with' | 'heroWithout' | 'heroWith';

/**
 * Lighthouse's two ways to throttle: `simulate` (its default, what PageSpeed Insights reports: an unthrottled load
 * replayed through a network and CPU model) and `devtools` (the load itself throttled, the metrics observed). The
 * model counts every request that finished before the unthrottled load's LCP as one LCP may have waited for, so
 * the loader's Choose request, which never holds the rest of the page, is charged to LCP there and not here.
 */
export type Throttling = 'simulate' | 'devtools';

export type PageCostResult = Record<Throttling, Record<Side, PageCost[]>>;

/** A paragraph of the CMS pages' text. */
export const TEXT = 'Our roasts are small-batch and shipped within a day. '.repeat(12);

/** A CMS page of the benches: `head` is what svc adds (nothing for the page without it), then `body`. */
export function cmsPage(head: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Acme Coffee</title>
<style>body{font-family:system-ui,sans-serif;margin:0 auto;max-width:40rem;padding:1rem;line-height:1.5}</style>
${head}</head><body>
${body}
</body></html>`;
}

/** The page a CMS editor builds; `head` is what svc adds (nothing for the page without it). */
function page(head: string): string {
  return cmsPage(head, `<h1>Acme Coffee</h1>
<svc-experience name="hero-banner">
  <p class="hero">Fresh coffee, roasted this week.</p>
  <template variation="control"><p class="hero">Fresh coffee, roasted this week.</p></template>
  <template variation="bold"><p class="hero"><strong>Fresh coffee, roasted this week.</strong></p></template>
</svc-experience>
<p>${TEXT}</p>
<svc-recommendations feed="1" limit="4" fields="title,price,url,image"></svc-recommendations>
<p>${TEXT}</p>
<svc-consent></svc-consent>`);
}

/**
 * A page whose largest element is the experience itself: a hero block of text above a short page, so Largest
 * Contentful Paint is the experience's paint, and shows what waiting for the decision costs.
 */
function heroPage(head: string): string {
  const hero = (text: string): string => `<div class="hero"><h2>${text}</h2><p>${TEXT}${TEXT}</p></div>`;
  return cmsPage(head, `<h1>Acme Coffee</h1>
<svc-experience name="hero-banner">
  ${hero('Fresh coffee, roasted this week.')}
  <template variation="control">${hero('Fresh coffee, roasted this week.')}</template>
  <template variation="bold">${hero('<strong>Fresh coffee, roasted this week.</strong>')}</template>
</svc-experience>
<p>Free shipping over €30.</p>`);
}

/** The README's snippet (bundles/snippet.js: the stub, then the loader), pointing at the service. */
function svcHead(service: string): string {
  const lines = readFileSync(join(ROOT, 'bundles/snippet.js'), 'utf8').split('\n').filter((line) => line.startsWith('!function'));
  return `<script>\n${lines.join('\n').replaceAll('https://svc.example.com', service)}\n</script>`;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolveListen) => server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    resolveListen(typeof address === 'object' && address ? address.port : 0);
  }));
}

export type LighthouseVisitor = 'new' | 'returning';

/**
 * Lighthouse's settings for a visitor: `new` clears the page's origin's localStorage, IndexedDB and cookies besides
 * what Lighthouse clears by default (the HTTP cache, service workers, Cache Storage); `returning` resets nothing, so
 * localStorage, IndexedDB and the HTTP cache (service.js and its chunks, `immutable`) stay from the run before.
 */
export function lighthouseVisitor(visitor: LighthouseVisitor): Pick<Flags, 'clearStorageTypes' | 'disableStorageReset'> {
  return visitor === 'new'
    ? { clearStorageTypes: ['file_systems', 'shader_cache', 'service_workers', 'cache_storage', 'local_storage', 'indexeddb', 'cookies'] }
    : { disableStorageReset: true };
}

async function audit(url: string, port: number, throttlingMethod: Throttling, visitor: LighthouseVisitor): Promise<PageCost> {
  const result = await lighthouse(url, { port, output: 'json', logLevel: 'error', onlyCategories: ['performance'], throttlingMethod, ...lighthouseVisitor(visitor) });
  const lhr = result?.lhr;
  if (!lhr) throw new Error(`page cost bench: Lighthouse gave no report for ${url}`);
  const value = (id: string): number => Number(lhr.audits[id]?.numericValue ?? NaN);
  return {
    score: Number(lhr.categories.performance?.score ?? NaN),
    lcpMs: value('largest-contentful-paint'),
    tbtMs: value('total-blocking-time'),
    cls: value('cumulative-layout-shift'),
    bytes: value('total-byte-weight'),
    svcMs: ((lhr.audits['bootup-time']?.details as { items?: { url: string; total: number }[] } | undefined)?.items ?? [])
      .filter((item) => /\/svc\/.*\/(service\.js|chunks\/.+\.js)$/.test(item.url)).reduce((sum, item) => sum + item.total, 0),
  };
}

/**
 * The service (`npm start`'s config, a fresh database) and a CMS on another origin serving the two pages (`with` and
 * `without`), or the pages `build` makes from the README's snippet for that service (`path` → HTML).
 */
export async function startPages<Page extends string = Side>(
  build?: (snippet: string) => Record<Page, string>,
): Promise<{ url: (side: Page) => string; close: () => Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-page-cost-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
  const app = await buildApp({ config: await loadConfigFile(join(ROOT, 'svc.config.json')), storage, staticRoot: ROOT });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const service = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  // The CMS: another origin (another port) than the service, as a site owner's page is.
  const built: Record<string, string> = build
    ? build(svcHead(service))
    : { without: page(''), with: page(svcHead(service)), heroWithout: heroPage(''), heroWith: heroPage(svcHead(service)) };
  const pages = Object.fromEntries(Object.entries(built).map(([side, html]) => [`/${side}.html`, html]));
  const cms = createServer((req, res) => {
    const body = pages[req.url ?? ''];
    res.writeHead(body ? 200 : 404, { 'content-type': 'text/html; charset=utf-8' });
    res.end(body ?? 'not found');
  });
  const cmsPort = await listen(cms);
  return {
    url: (side) => `http://127.0.0.1:${cmsPort}/${side}.html`,
    close: async () => {
      cms.close();
      await app.close();
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The visitor of a page-cost round: even rounds new, odd ones returning. */
export const visitorOfRound = (round: number): LighthouseVisitor => (round % 2 === 0 ? 'new' : 'returning');

export async function runPageCostBench(rounds = 3): Promise<PageCostResult> {
  const pages = await startPages();
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    chromeFlags: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const sides = (): Record<Side, PageCost[]> => ({ without: [], with: [], heroWithout: [], heroWith: [] });
  const result: PageCostResult = { simulate: sides(), devtools: sides() };
  try {
    // Warm-up, not counted: the service's first answers.
    await audit(pages.url('with'), chrome.port, 'simulate', 'new');
    for (let round = 0; round < rounds; round++) {
      // A mix of visitors: even rounds new (storage cleared), odd rounds returning (nothing reset after the round
      // before): 2 of 3 new with the default 3 rounds.
      const visitor = visitorOfRound(round);
      for (const method of ['simulate', 'devtools'] as const) {
        for (const pair of [['without', 'with'], ['heroWithout', 'heroWith']] as const) {
          const order = round % 2 === 0 ? pair : ([pair[1], pair[0]] as const);
          for (const side of order) result[method][side].push(await audit(pages.url(side), chrome.port, method, visitor));
        }
      }
    }
  } finally {
    await chrome.kill();
    await pages.close();
  }
  return result;
}

export function formatPageCostBench(r: PageCostResult): string {
  const m = (side: PageCost[], key: keyof PageCost): number => median(side.map((c) => c[key]));
  const ms = (n: number): string => `${Math.round(n)} ms`;
  const signed = (n: number, fmt: (n: number) => string): string => `${n >= 0 ? '+' : ''}${fmt(n)}`;
  /** A goal: its text, and whether the medians without (a) and with svc (b), simulated, meet it. */
  type Goal = [text: string, met: (a: number, b: number) => boolean];
  // Without and with svc as simulated, the delta simulated, the delta observed (devtools throttling), the goal marked.
  const row = (label: string, key: keyof PageCost, fmt: (n: number) => string, goal: Goal | string, pair: [Side, Side]): string => {
    const [a, b] = pair.map((side) => m(r.simulate[side], key)) as [number, number];
    const [c, d] = pair.map((side) => m(r.devtools[side], key)) as [number, number];
    const mark = typeof goal === 'string' ? goal : goalMark(goal[1](a, b), goal[0]);
    return `| ${label} | ${fmt(a)} | ${fmt(b)} | ${signed(b - a, fmt)} | ${signed(d - c, fmt)} | ${mark} |`;
  };
  const table = (pair: [Side, Side], lcpGoal: Goal | string, goals: boolean): string[] => [
    '| | without svc | with svc | delta | delta, observed | goal |',
    '|---|---|---|---|---|---|',
    row('performance score', 'score', (n) => n.toFixed(2), goals ? ['≥ 0.98', (_, b) => b >= 0.98] : '', pair),
    row('Largest Contentful Paint', 'lcpMs', ms, lcpGoal, pair),
    row('Total Blocking Time', 'tbtMs', ms, goals ? ['+≤ 50 ms', (a, b) => b - a <= 50] : '', pair),
    row('Cumulative Layout Shift', 'cls', (n) => n.toFixed(3), goals ? ['≤ 0.01', (_, b) => b <= 0.01] : '', pair),
    row('bytes', 'bytes', (n) => `${(n / 1024).toFixed(1)} KB`, '', pair),
    row('main thread in service.js and its chunks', 'svcMs', ms, '', pair),
  ];
  return [
    `## Page cost: Lighthouse (mobile), a CMS page without and with svc (median of ${r.simulate.with.length} each way; ` +
      `${Array.from({ length: r.simulate.with.length }, (_, i) => visitorOfRound(i)).filter((v) => v === 'new').length} of ` +
      `${r.simulate.with.length} rounds new visitors, the others returning)`,
    '',
    'Simulated throttling (Lighthouse\'s default), and the delta observed with DevTools throttling (the load itself',
    'throttled): the simulation charges LCP with every request that ended before the unthrottled LCP, the loader\'s',
    'Choose request included, though no content but the experience\'s box waits for it.',
    '',
    ...table(['without', 'with'], ['+≤ 100 ms', (a, b) => b - a <= 100], true),
    '',
    'A page whose largest element is the experience (every Lighthouse run is a new visitor, whose box waits for the decision):',
    '',
    ...table(['heroWithout', 'heroWith'], 'the wait, told', false),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatPageCostBench(await runPageCostBench(Number(process.env.BENCH_PAGE_COST_ROUNDS ?? 3))));
}
