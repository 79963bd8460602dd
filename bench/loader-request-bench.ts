// What the loader's Choose request costs a new visitor, sent as the snippet sends it (a CORS simple request: the
// writeKey as `?writeKey=`, a text/plain body) against the SDK's way (an Authorization header and a JSON body, so the
// browser first sends a preflight). Chromium's DevTools network emulation does not delay preflights, so the flash
// bench cannot show this: here the service is behind a proxy that answers every request, preflights included,
// 150 ms late (the slow-4G round trip), and the page is on another origin. Each visitor is a fresh browser context
// (no cached preflight); the two ways alternate visitor by visitor.
import { createServer, request } from 'node:http';
import puppeteer, { type Browser } from 'puppeteer-core';
import { median } from './choose-bench.js';
import { startPages } from './page-cost-bench.js';

const ROUND_TRIP_MS = 150;
/** The snippet's request, and the same request as the SDK sends Choose (with a preflight). */
const SIMPLE = '+"/optimization/choose-api?writeKey="+encodeURIComponent(c.writeKey),{method:"POST",';
const PREFLIGHTED = '+"/optimization/choose-api",{method:"POST",headers:{Authorization:"Basic "+btoa(c.writeKey.replace(".",":")),"Content-Type":"application/json"},';

export type LoaderRequestResult = Record<'simple' | 'preflighted', number[]>;

async function askedToAnswered(browser: Browser, url: string): Promise<number> {
  const context = await browser.createBrowserContext();
  try {
    const page = await context.newPage();
    await page.goto(url, { waitUntil: 'load' });
    const measure = `(() => {
      const e = performance.getEntriesByType('resource').find((r) => r.name.includes('/optimization/choose-api'));
      return e && e.responseEnd > 0 ? e.responseEnd - e.startTime : null;
    })()`;
    await page.waitForFunction(measure, { timeout: 5000 });
    return (await page.evaluate(measure)) as number;
  } finally {
    await context.close();
  }
}

export async function runLoaderRequestBench(visitors = 10): Promise<LoaderRequestResult> {
  let service = 0;
  // The proxy in front of the service: every request answered one round trip late.
  const proxy = createServer((req, res) => {
    setTimeout(() => {
      const upstream = request({ host: '127.0.0.1', port: service, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      upstream.on('error', () => res.destroy()); // a page closed mid-request
      req.pipe(upstream);
    }, ROUND_TRIP_MS);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxied = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
  const pages = await startPages((snippet) => {
    const origin = /http:\/\/127\.0\.0\.1:(\d+)/.exec(snippet);
    if (!origin?.[1] || !snippet.includes(SIMPLE)) throw new Error('loader request bench: the snippet no longer sends Choose as expected');
    service = Number(origin[1]);
    const page = (head: string): string => `<!doctype html><html lang="en"><head>${head}</head><body>
<svc-experience name="hero-banner"><h1>Welcome</h1><template variation="bold"><h1>Big sale</h1></template></svc-experience></body></html>`;
    const head = snippet.replaceAll(origin[0], proxied);
    return { simple: page(head), preflighted: page(head.replace(SIMPLE, PREFLIGHTED)) };
  });
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  const result: LoaderRequestResult = { simple: [], preflighted: [] };
  try {
    await askedToAnswered(browser, pages.url('simple')); // warm-up, not counted
    for (let i = 0; i < visitors; i++) {
      for (const way of i % 2 === 0 ? (['simple', 'preflighted'] as const) : (['preflighted', 'simple'] as const)) {
        result[way].push(await askedToAnswered(browser, pages.url(way)));
      }
    }
  } finally {
    await browser.close();
    proxy.closeAllConnections();
    proxy.close();
    await pages.close();
  }
  return result;
}

export function formatLoaderRequestBench(r: LoaderRequestResult): string {
  const simple = median(r.simple);
  const preflighted = median(r.preflighted);
  return [
    `## The loader's Choose request: ${r.simple.length} new visitors each way, every request ${ROUND_TRIP_MS} ms late (a proxy)`,
    '',
    '| | asked → answered, median | ratio |',
    '|---|---|---|',
    `| the snippet's (\`?writeKey=\`, text/plain: no preflight) | ${Math.round(simple)} ms | 1.00 |`,
    `| with an Authorization header (a preflight first) | ${Math.round(preflighted)} ms | ${(preflighted / simple).toFixed(2)} |`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatLoaderRequestBench(await runLoaderRequestBench(Number(process.env.BENCH_LOADER_VISITORS ?? 10))));
}
