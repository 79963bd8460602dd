// End to end, on SQLite: the real service (buildApp + listen) and Debian's Chromium on a page with the README's snippet
// and the SDK, each visitor a fresh browser context. One visitor's exposure crawls over a slow network while their
// order, 50 ms later, arrives at once; another first arrives through the snippet and is exposed on a visit two hours
// later. Results count the order, and tell the first visitor new and the second returning.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, Page } from 'puppeteer-core';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { ResultsAnswer } from '../../../wire/results-answer.js';
import { sqliteDatabase, type TestDatabase } from '../helpers/storage-drivers.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const missing = ['dist/service.js'].filter((f) => !existsSync(join(REPO, f)));
if (!existsSync(CHROMIUM)) missing.push(CHROMIUM);
const skip = missing.length > 0 ? `needs ${missing.join(' and ')} (run \`npm run build\`; Chromium from Debian's package)` : false;

const HOUR = 3_600_000;
/** How much longer the exposure's request takes to reach the service than the order's. */
const SLOW_MS = 600;

function config(): ServiceConfigFile {
  const split = (name: string) => ({ name, variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] });
  return {
    organizations: {
      acme: {
        projects: {
          shop: {
            apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], limits: { writeKeyPerSecond: 1_000_000 },
            experiences: [split('quick'), split('later')],
            metrics: [{ name: 'purchase', event: 'Product ordered', type: 'binomial' }],
          },
        },
      },
    },
  };
}

/** The README's snippet (both lines), loading this service's SDK with the browser's keys. */
function snippet(address: string): string {
  const [stub = '', loader = ''] = readFileSync(join(REPO, 'README.md'), 'utf8').split('\n').filter((l) => l.startsWith('!function'));
  const keys = { organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: `${address}/v1`, autoTrack: 'false' };
  return `${stub}\n${loader.slice(0, loader.indexOf('}(document,') + 1)}(document,${JSON.stringify(`${address}/svc/service.js`)},${JSON.stringify(keys)});`;
}

describe('end to end: event times and visitors through the snippet, the SDK and a slow network', { skip, timeout: 60_000 }, () => {
  let db: TestDatabase;
  let storage: Storage;
  let app: FastifyInstance;
  let browser: Browser;
  let address: string;
  /** How far ahead of now the service's clock and the pages' clocks are: "two hours later". */
  let later = 0;

  before(async () => {
    db = sqliteDatabase();
    storage = await db.open();
    app = await buildApp({ config: config(), storage, staticRoot: REPO, now: () => Date.now() + later });
    address = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await app?.close();
    await storage?.close();
    await db?.destroy();
  });

  /**
   * A page of the shop with the snippet, in `page`: its document answered by the test, every other request going to
   * the service, the batch that carries an `Experiment Viewed` held back SLOW_MS first (a slow mobile network).
   */
  async function open(page: Page): Promise<void> {
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (request.url() === `${address}/shop.html`) {
        void request.respond({ contentType: 'text/html', body: `<!doctype html><html lang="en"><head><script>${snippet(address)}</script></head><body><h1>Shop</h1></body></html>` });
      } else if (request.url().endsWith('/track') && (request.postData() ?? '').includes('Experiment Viewed')) {
        setTimeout(() => void request.continue(), SLOW_MS);
      } else {
        void request.continue();
      }
    });
    await page.goto(`${address}/shop.html`, { waitUntil: 'load' });
    await page.waitForFunction(() => typeof (window as unknown as { svc?: { isUserOptIn?: unknown } }).svc?.isUserOptIn === 'function', { timeout: 10_000 });
  }

  /** Reports in the page that it showed `experience`'s bold variation; then, `orderAfterMs` later when given, an order. */
  async function view(page: Page, experience: string, orderAfterMs?: number): Promise<string> {
    return page.evaluate(async (name, gap) => {
      type Svc = { track(p: { eventTitle: string; data?: Record<string, unknown> }): void; flush(): Promise<void> };
      const svc = (window as unknown as { svc: Svc }).svc;
      svc.track({ eventTitle: 'Experiment Viewed', data: { experience: name, variation: 'bold' } });
      const sent = svc.flush();
      if (gap !== undefined) {
        await new Promise((resolve) => setTimeout(resolve, gap));
        svc.track({ eventTitle: 'Product ordered', data: { price: 10 } });
        await svc.flush();
      }
      await sent;
      return localStorage.getItem('svc.profileId') ?? '';
    }, experience, orderAfterMs);
  }

  async function results(experience: string, query = ''): Promise<ResultsAnswer> {
    const res = await fetch(`${address}/v1/acme/projects/shop/experiences/${experience}/results?apiKey=srv1.s3cret${query}`);
    assert.equal(res.status, 200, await res.clone().text());
    return await res.json() as ResultsAnswer;
  }

  it('counts an order made 50 ms after the view although the view\'s request arrived 600 ms later, and says the visitor is new', async () => {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await open(page);
    const profileId = await view(page, 'quick', 50);
    await context.close();
    assert.match(profileId, /^[0-9a-f]{8}-[0-9a-f]{4}-7/, 'the snippet minted a version 7 id');
    const answer = await results('quick', '&dimension=visitor');
    assert.equal(answer.units, 1);
    const purchase = answer.metrics.find((m) => m.name === 'purchase')!;
    assert.equal(purchase.variations.reduce((sum, v) => sum + v.total, 0), 1, 'the order counts');
    assert.deepEqual(answer.dimensions!.map((d) => [d.value, d.units]), [['new', 1]]);
  });

  it('says returning for a visitor who first arrived through the snippet and is exposed on a visit two hours later', async () => {
    const context = await browser.createBrowserContext();
    const first = await context.newPage();
    await open(first);
    await first.close();
    later = 2 * HOUR;
    try {
      const page = await context.newPage();
      // Two hours later on the visitor's device too: its clock dates the exposure.
      await page.evaluateOnNewDocument(`{
        const Real = Date;
        globalThis.Date = class extends Real {
          constructor(...a) { if (a.length === 0) super(Real.now() + ${later}); else super(...a); }
          static now() { return Real.now() + ${later}; }
        };
      }`);
      await open(page);
      await view(page, 'later');
    } finally {
      later = 0;
      await context.close();
    }
    const answer = await results('later', '&dimension=visitor');
    assert.deepEqual(answer.dimensions!.map((d) => [d.value, d.units]), [['returning', 1]]);
  });
});
