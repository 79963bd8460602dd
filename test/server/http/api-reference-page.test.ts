// The API reference page (/docs/api): rendered by Swagger UI from the service's own files and its description, in a
// real Chromium, with no request leaving the machine, and no accessibility violation axe finds.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'puppeteer-core';
import { launchChromium } from '../helpers/chromium.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useApp } from '../helpers/use-test-app.js';

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

describe('the API reference page', () => {
  const h = useApp(SQLITE_DRIVER);
  let browser: Browser | undefined;
  let origin = '';
  before(async () => {
    await h.app.listen({ host: '127.0.0.1', port: 0 });
    origin = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(() => browser?.close());

  /** Opens the page at `width`, every request recorded and those to any other origin refused; waits for the operations. */
  async function open(width: number, bypassPolicy = false) {
    const page = await browser!.newPage();
    // axe runs in the page as a script of the test's, which the page's own policy (its own files only) would refuse.
    if (bypassPolicy) await page.setBypassCSP(true);
    await page.setViewport({ width, height: 900 });
    const requests: string[] = [];
    const failed: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      requests.push(request.url());
      if (request.url().startsWith(`${origin}/`) || request.url().startsWith('data:')) void request.continue();
      else void request.abort();
    });
    page.on('requestfailed', (request) => failed.push(request.url()));
    page.on('response', (response) => {
      if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
    });
    await page.goto(`${origin}/docs/api`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock-summary', { timeout: 20_000 });
    return { page, requests, failed };
  }

  it('renders every operation of the description from this service alone: no request leaves the machine', async () => {
    const { page, requests, failed } = await open(1280);
    const operations = await page.$$eval('.opblock', (blocks) => blocks.length);
    const described = (await h.app.inject('/v1/openapi.json')).json<{ paths: Record<string, object> }>();
    const count = Object.values(described.paths).reduce((n, item) => n + Object.keys(item).length, 0);
    assert.equal(operations, count);
    assert.deepEqual(requests.filter((url) => !url.startsWith(`${origin}/`) && !url.startsWith('data:')), []);
    assert.ok(requests.includes(`${origin}/v1/openapi.json`), 'the page read the description');
    assert.deepEqual(failed, []);
    assert.match(String((await h.app.inject('/docs/api')).headers['content-security-policy']), /default-src 'self'/);
    await page.close();
  });

  for (const width of [1280, 390]) {
    it(`has no violation axe finds, at ${width} px, with an operation open`, async () => {
      const { page } = await open(width, true);
      await page.click('.opblock-summary-control');
      await page.waitForSelector('.opblock-body');
      await page.addScriptTag({ path: AXE });
      const violations = await page.evaluate(async () => {
        const result = await (window as unknown as { axe: { run(): Promise<{ violations: { id: string; nodes: { target: string[] }[] }[] }> } }).axe.run();
        return result.violations.map((v) => `${v.id}: ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(', ')}`);
      });
      assert.deepEqual(violations, []);
      await page.close();
    });
  }
});
