// A platform is a plugin, not a core edit: a copy of the SDK's sources with one folder added, a third shop integration
// (test/fixtures/platform-c/ as plugins/platform-c/), builds a dist/service.js that fetches that plugin's chunk and
// installs it for `data-platform-c` (or `platformC: true`), with no other file changed. Debian's Chromium runs the page.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'puppeteer-core';
import { CHROMIUM, launchChromium } from '../server/helpers/chromium.js';

const ROOT = resolve(import.meta.dirname, '..', '..');
/** What building the page SDK reads. */
const SOURCES = ['package.json', 'esbuild.config.mjs', 'tsconfig.json', 'src', 'wire', 'bundles', 'plugins'];
const FIXTURE = join(ROOT, 'test/fixtures/platform-c');
const skip = existsSync(CHROMIUM) ? false : `needs ${CHROMIUM}`;

/** A copy of the sources in a new folder, node_modules linked; `added` folders copied in beside the plugins. */
function checkout(added: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-platform-'));
  for (const source of SOURCES) cpSync(join(ROOT, source), join(dir, source), { recursive: true, filter: (f) => !f.endsWith('.test.ts') });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  for (const [name, from] of Object.entries(added)) {
    mkdirSync(join(dir, 'plugins', name));
    for (const file of readdirSync(from)) {
      // The fixture lives one folder deeper than a plugin does: its imports lose one `../`.
      writeFileSync(join(dir, 'plugins', name, file), readFileSync(join(from, file), 'utf8').replaceAll('../../../src/', '../../src/'));
    }
  }
  return dir;
}

/** Each file below `dir`'s `folder` and a hash of its bytes. */
function tree(dir: string, folder: string): Record<string, string> {
  return Object.fromEntries(readdirSync(join(dir, folder), { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => {
    const path = join(e.parentPath, e.name);
    return [relative(dir, path), createHash('sha256').update(readFileSync(path)).digest('hex')];
  }));
}

/** Builds the page SDK of `dir`; the build's error output when it fails. */
function buildPageSdk(dir: string): string | undefined {
  try {
    execFileSync(process.execPath, ['esbuild.config.mjs', '--page-sdk'], { cwd: dir, stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return String((error as { stderr?: Buffer }).stderr);
  }
}

describe('a third platform plugin, added as a folder', { skip }, () => {
  let dir: string;
  let server: Server;
  let origin: string;
  let browser: Browser;
  /** The paths the pages asked the server for. */
  const requested: string[] = [];

  before(async () => {
    dir = checkout({ 'platform-c': FIXTURE });
    assert.equal(buildPageSdk(dir), undefined);
    server = createServer((request, response) => {
      const path = new URL(request.url!, 'http://x').pathname;
      requested.push(path);
      if (path.startsWith('/v1/')) return void response.writeHead(204).end();
      if (path.startsWith('/dist/') && existsSync(join(dir, path))) {
        response.writeHead(200, { 'content-type': extname(path) === '.js' ? 'text/javascript' : 'application/json' });
        return void response.end(readFileSync(join(dir, path)));
      }
      response.writeHead(404).end();
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Opens a shop page whose product is `c-1`, in a browser context of its own (a first visit), loading the copy's
   * service.js with `flags`; the events it tracks.
   */
  async function shopPage(flags: string): Promise<{ names: () => Promise<string[]>; data: () => Promise<unknown[]>; page: Page }> {
    const page = await (await browser.createBrowserContext()).newPage();
    await page.evaluateOnNewDocument(() => {
      const w = window as unknown as { shopC: unknown; seen: { name: string; data?: unknown }[] };
      w.shopC = { product: { id: 'c-1' } };
      w.seen = [];
      addEventListener('svc:event', (e) => w.seen.push((e as CustomEvent<{ name: string; data?: unknown }>).detail));
    });
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (new URL(request.url()).pathname !== '/shop') return void request.continue();
      void request.respond({
        contentType: 'text/html',
        body: `<!doctype html><html lang="en"><title>Shop C</title><h1>A product</h1>
<script src="/dist/service.js" data-organization="acme" data-project="shop" data-source-id="web" data-write-key="web1.p4ss"
  data-api="${origin}/v1" ${flags}></script>`,
      });
    });
    await page.goto(`${origin}/shop`, { waitUntil: 'load' });
    const seen = (): Promise<{ name: string; data?: unknown }[]> => page.evaluate(() => (window as unknown as { seen: { name: string; data?: unknown }[] }).seen);
    return { page, names: async () => (await seen()).map((e) => e.name), data: async () => (await seen()).map((e) => e.data) };
  }

  it('adds no file and changes none outside its own folder: src/, bundles/ and the other plugins are the repository\'s', () => {
    for (const folder of ['src', 'wire', 'bundles']) assert.deepEqual(tree(dir, folder), tree(ROOT, folder), folder);
    const plugins = tree(dir, 'plugins');
    const own = Object.keys(plugins).filter((path) => path.startsWith(join('plugins', 'platform-c')));
    assert.deepEqual(own.sort(), [join('plugins', 'platform-c', 'index.ts'), join('plugins', 'platform-c', 'platform.json')]);
    const theirs = Object.fromEntries(Object.entries(tree(ROOT, 'plugins')).filter(([path]) => !path.endsWith('.test.ts')));
    assert.deepEqual(Object.fromEntries(Object.entries(plugins).filter(([path]) => !own.includes(path))), theirs);
  });

  it('the build makes its chunk, named after its folder, beside the other platforms\'', () => {
    const manifest = JSON.parse(readFileSync(join(dir, 'dist/chunks/manifest.json'), 'utf8')) as Record<string, string[]>;
    for (const chunk of ['platform-a', 'platform-b', 'platform-c']) assert.ok(manifest[chunk], `no chunk ${chunk}`);
  });

  it('data-platform-c fetches and installs it: its Product viewed follows the session\'s first events', async () => {
    const { page, names, data } = await shopPage('data-platform-c');
    try {
      await page.waitForFunction(() => (window as unknown as { seen: { name: string }[] }).seen.some((e) => e.name === 'Product viewed'));
      assert.deepEqual(await names(), ['Session start', 'View Page', 'Product viewed']);
      assert.deepEqual((await data())[2], { productId: 'c-1' });
      assert.ok(requested.some((path) => path.endsWith('/platform-c.js')));
    } finally {
      await page.browserContext().close();
    }
  });

  it('data-platform-c="false" leaves it unfetched: auto-tracking is installed, the plugin never is', async () => {
    requested.length = 0;
    const { page, names } = await shopPage('data-platform-c="false"');
    try {
      // The instance's own chunks are installed together, auto-tracking first: once it has tracked, any other would
      // have been installed too.
      await page.waitForFunction(() => (window as unknown as { seen: { name: string }[] }).seen.some((e) => e.name === 'View Page'));
      assert.deepEqual(await names(), ['Session start', 'View Page']);
      assert.ok(requested.some((path) => path.endsWith('/auto-track.js')), requested.join());
      assert.ok(!requested.some((path) => path.includes('platform-')), requested.join());
    } finally {
      await page.browserContext().close();
    }
  });
});

describe('a platform plugin\'s registration, checked by the build', () => {
  const cases: [string, string, RegExp][] = [
    ['a flag that is not a config name', '{ "flag": "shopC" }', /"flag" must be a config name like "platformC", not "shopC"/],
    ['another platform\'s flag', '{ "flag": "platformA" }', /flag platformA is plugins\/platform-a's already/],
    ['a flag its index.ts exports no factory for', '{ "flag": "platformD" }', /plugins\/platform-c\/index.ts exports no factory named platformD/],
  ];
  for (const [what, registration, message] of cases) {
    it(`fails, naming the folder, on ${what}`, () => {
      const dir = checkout({ 'platform-c': FIXTURE });
      try {
        writeFileSync(join(dir, 'plugins/platform-c/platform.json'), registration);
        assert.match(buildPageSdk(dir) ?? 'built', message);
        assert.ok(!existsSync(join(dir, 'dist')), 'nothing was built');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
