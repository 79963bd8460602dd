// End to end: the real service (buildApp + listen, the shipped svc.config.json, SQLite in a temp dir) serves
// the demo page; Debian's Chromium loads it, the SDK tracks through the real network, the events land in
// storage. No mock of our server anywhere.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser } from 'puppeteer-core';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Storage } from '../../../server/storage/storage.js';
import { sqliteDatabase, type TestDatabase } from '../helpers/storage-drivers.js';
import { listEvents, readExposures } from '../helpers/stored-rows.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const VERSION = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
const missing = ['dist/service.js', 'demo/index.html'].filter((f) => !existsSync(join(REPO, f)));
if (!existsSync(CHROMIUM)) missing.push(CHROMIUM);
const skip = missing.length > 0 ? `needs ${missing.join(' and ')} (run \`npm run build\`; the SDK and demo are built by the browser half)` : false;

/** Polls `check` until it returns a value, at most `attempts` times, `intervalMs` apart (bounded, no timing assertion). */
async function eventually<T>(check: () => Promise<T | undefined>, attempts = 100, intervalMs = 100): Promise<T | undefined> {
  for (let i = 0; i < attempts; i++) {
    const value = await check();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return undefined;
}

describe('end to end: Chromium + demo page + SDK + service + storage', { skip }, () => {
  let db: TestDatabase;
  let storage: Storage;
  let app: FastifyInstance;
  let browser: Browser;
  let address: string;

  before(async () => {
    db = sqliteDatabase();
    storage = await db.open();
    const config = JSON.parse(readFileSync(join(REPO, 'svc.config.json'), 'utf8')) as ServiceConfigFile;
    app = await buildApp({ config, storage, staticRoot: REPO });
    address = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await storage?.close();
    await db?.destroy();
  });

  it('the demo page creates window.svc, svc.track() reaches the service, the event is in storage', async () => {
    const page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    await page.goto(`${address}/`, { waitUntil: 'load' });
    // The page loads the SDK async behind the snippet's stub (an array): wait for the instance itself.
    await page.waitForFunction(() => typeof (window as unknown as { svc?: { isUserOptIn?: unknown } }).svc?.isUserOptIn === 'function', { timeout: 10_000 });
    await page.evaluate(() => {
      (window as unknown as { svc: { track(p: { eventTitle: string; data: Record<string, unknown> }): void } })
        .svc.track({ eventTitle: 'E2E', data: { a: 1 } });
    });
    const stored = await eventually(async () => {
      const events = await listEvents(storage, 'acme/shop', { limit: 10_000 });
      return events.find((e) => e.event.name === 'E2E');
    });
    assert.ok(stored, `the E2E event never reached storage (page errors: ${pageErrors.join('; ') || 'none'})`);
    assert.equal(stored.sourceId, 'web');
    assert.equal(stored.event.type, 'track');
    assert.deepEqual(stored.event.data, { a: 1 });
    assert.match(stored.event.eventId, /^[0-9a-f-]{36}$/);
    assert.ok(stored.event.profileId && stored.event.sessionId && stored.event.pageId);
    await page.close();
  });

  it('a visitor who orders in the demo shows up in the demo\'s results page, in <svc-results>', async () => {
    const context = await browser.createBrowserContext();
    const shop = await context.newPage();
    await shop.goto(`${address}/`, { waitUntil: 'load' });
    await shop.waitForFunction(() => document.querySelector('svc-experience.hero')?.getAttribute('status') !== 'loading', { timeout: 10_000 });
    // The demo asks for consent before it tracks; once the visitor accepts, the element asks for its variation and,
    // showing it, reports the exposure (an Experiment Viewed event: the Choose answer records none).
    await shop.waitForFunction(() => document.querySelector('svc-consent')?.shadowRoot?.querySelector('[part~="accept"]'), { timeout: 10_000 });
    await shop.evaluate(() => document.querySelector('svc-consent')!.shadowRoot!.querySelector<HTMLButtonElement>('[part~="accept"]')!.click());
    await shop.waitForFunction(() => document.querySelector('svc-experience.hero')?.getAttribute('status') === 'ready', { timeout: 10_000 });
    const exposed = await eventually(async () => {
      const events = await listEvents(storage, 'acme/shop', { limit: 10_000 });
      return events.some((e) => e.event.name === 'Experiment Viewed' && e.event.data?.experience === 'hero-banner') ? true : undefined;
    });
    assert.ok(exposed, 'the visitor was never reported as shown hero-banner');
    assert.equal((await readExposures(storage, 'acme/shop')).some((e) => e.experience === 'hero-banner'), false, 'the answer recorded no exposure');
    await shop.click('[data-add="p2"]');
    await shop.click('#order');
    const ordered = await eventually(async () => {
      const events = await listEvents(storage, 'acme/shop', { limit: 10_000 });
      return events.find((e) => e.event.name === 'Product ordered') ? true : undefined;
    });
    assert.ok(ordered, 'the order never reached storage');
    await context.close();

    const admin = await browser.newPage();
    await admin.goto(`${address}/results.html`, { waitUntil: 'load' });
    await admin.waitForFunction(() => document.querySelector('svc-results')?.getAttribute('status') === 'ready', { timeout: 10_000 });
    const purchases = await admin.evaluate(() => {
      const results = (document.querySelector('svc-results') as HTMLElement & { results: { metrics: { name: string; variations: { total: number }[] }[] } }).results;
      return results.metrics.find((m) => m.name === 'purchase')!.variations.reduce((sum, v) => sum + v.total, 0);
    });
    assert.equal(purchases, 1);
    const tables = await admin.evaluate(() => document.querySelector('svc-results')!.shadowRoot!.querySelectorAll('table').length);
    assert.equal(tables, 3, 'one table per metric of the demo project');
    await admin.close();
  });

  it('a CMS page on another origin gets service.js and the chunks of its elements from the service, and they work', async () => {
    const snippet = readFileSync(join(REPO, 'bundles', 'snippet.js'), 'utf8').split('\n').filter((l) => l.startsWith('!function'));
    const loader = snippet[1]!.replace(/\(document,"[^"]*",\{[^}]*\}\);$/, `(document,"${address}/svc/${VERSION}/service.js",${JSON.stringify({
      organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: `${address}/v1`, autoTrack: 'false',
    })});`);
    const html = `<!doctype html><html lang="de"><head><script>${snippet[0]}</script><script>${loader}</script></head><body>
<h1>Acme</h1><svc-recommendations feed="1" limit="2"></svc-recommendations><svc-consent></svc-consent></body></html>`;
    const cms: Server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(html));
    await new Promise<void>((resolve) => cms.listen(0, '127.0.0.1', resolve));
    const port = (cms.address() as { port: number }).port;
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    const chunks: string[] = [];
    page.on('requestfinished', (request) => {
      if (request.url().includes('/chunks/')) chunks.push(`${request.response()?.status()} ${request.url().replace(address, '')}`);
    });
    try {
      await page.goto(`http://localhost:${port}/`, { waitUntil: 'load' });
      await page.waitForFunction(() => document.querySelector('svc-recommendations')?.getAttribute('status') === 'ready', { timeout: 15_000 });
      await page.waitForFunction(() => (document.querySelector('svc-consent')?.shadowRoot?.textContent ?? '').includes('Alle akzeptieren'), { timeout: 15_000 });
      const cards = await page.evaluate(() => document.querySelector('svc-recommendations')!.shadowRoot!.querySelectorAll('li a[href]').length);
      assert.equal(cards, 2);
      assert.ok(chunks.length > 0 && chunks.every((c) => c.startsWith(`200 /svc/${VERSION}/chunks/`)), chunks.join(', '));
      assert.deepEqual(problems, []);
    } finally {
      await page.close();
      cms.close();
    }
  });
});
