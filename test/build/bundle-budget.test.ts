// The bundle budgets, min+gzip: what a CMS page pays for the SDK. `npm test` builds before this runs.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { pageChunks } from '../helpers/page-chunks.js';

const budgets: [string, number][] = [
  ['dist/service-core.js', 8 * 1024],
];

/** Each chunk's files (its own, then those it imports), written by the build beside them. */
const manifest = (): Record<string, string[]> => JSON.parse(readFileSync('dist/chunks/manifest.json', 'utf8')) as Record<string, string[]>;

/**
 * What a CMS page fetches of the SDK, by what it uses: dist/service.js, then the files of each chunk it needs (a file
 * two chunks share is fetched once). The page that uses everything has every element, the banner in one language, the
 * larger of the two platform integrations and auto-tracking. `limit` is the budget, except where the budget is not met
 * yet: there `limit` is today's size, so that nothing grows, and `goal` the budget (the README's "Builds" says why).
 */
const PROFILES: { page: string; chunks: string[]; limit: number; goal?: number }[] = [
  { page: 'nothing but svc.track (core)', chunks: [], limit: 9 * 1024, goal: 8 * 1024 },
  { page: '<svc-experience> only', chunks: ['experiences'], limit: 13 * 1024 },
  { page: 'experience + recommendations', chunks: ['experiences', 'recommendations'], limit: 17 * 1024 },
  { page: 'everything', chunks: ['experiences', 'recommendations', 'consent', 'texts-en', 'auto-track', 'platform-a'], limit: 21 * 1024 },
  { page: 'everything, Magento', chunks: ['experiences', 'recommendations', 'consent', 'texts-en', 'auto-track', 'platform-b'], limit: 21 * 1024 },
  { page: 'everything, the banner in German', chunks: ['experiences', 'recommendations', 'consent', 'texts-de', 'auto-track', 'platform-a'], limit: 21 * 1024 },
];

/** The chunks' files (in the build's folder below dist/chunks/), as paths. */
const chunkFiles = (): string[] => readdirSync('dist/chunks', { recursive: true }).map(String).filter((f) => f.endsWith('.js')).map((f) => `dist/chunks/${f}`);

const gzipped = (file: string): number => gzipSync(readFileSync(file), { level: 9 }).length;

/** The files a page that needs `chunks` fetches, service.js first (several kinds of element come as one combo). */
export function profileFiles(chunks: string[]): string[] {
  const all = manifest();
  return ['dist/service.js', ...new Set(pageChunks(chunks).flatMap((chunk) => {
    assert.ok(all[chunk], `the build made no chunk ${chunk}`);
    return all[chunk]!.map((f) => `dist/chunks/${f}.js`);
  }))];
}

describe('what a page fetches of the SDK, by what it uses (gzip -9 of every file)', () => {
  for (const { page, chunks, limit, goal } of PROFILES) {
    it(`${page}: at most ${limit / 1024} KiB${goal ? ` (goal: ${goal / 1024} KiB)` : ''}`, () => {
      const files = profileFiles(chunks);
      const size = files.reduce((sum, file) => sum + gzipped(file), 0);
      assert.ok(size <= limit, `${files.map((f) => `${f} ${gzipped(f)}`).join(', ')}: ${size} bytes, over ${limit}`);
    });
  }

  it('every chunk ships precompressed copies of exactly its bytes, and a source map', () => {
    const files = chunkFiles();
    assert.ok(files.length >= 6, files.join());
    for (const f of files) {
      const code = readFileSync(f);
      assert.ok(brotliDecompressSync(readFileSync(`${f}.br`)).equals(code), `${f}.br`);
      assert.ok(gunzipSync(readFileSync(`${f}.gz`)).equals(code), `${f}.gz`);
      assert.ok(existsSync(`${f}.map`), `${f}.map`);
    }
  });

  it('a chunk carries no copy of the core: what it needs of the core it borrows from service.js', () => {
    for (const f of chunkFiles()) {
      assert.doesNotMatch(readFileSync(f, 'utf8'), /indexedDB|All config fields must be provided/, f);
    }
  });
});

describe('bundle budgets', () => {
  for (const [file, limit] of budgets) {
    it(`${file} is at most ${limit / 1024} KiB gzipped`, () => {
      assert.ok(existsSync(file), `${file} is missing: run npm run build`);
      const size = gzipSync(readFileSync(file), { level: 9 }).length;
      assert.ok(size <= limit, `${file} is ${size} bytes gzipped, over its budget of ${limit}`);
    });
  }

  it('the script-tag bundles ship precompressed copies of exactly their bytes (brotli and gzip)', () => {
    for (const file of ['dist/service.js', 'dist/service-core.js', 'dist/svc-results.js']) {
      const code = readFileSync(file);
      assert.ok(brotliDecompressSync(readFileSync(`${file}.br`)).equals(code), `${file}.br`);
      assert.ok(gunzipSync(readFileSync(`${file}.gz`)).equals(code), `${file}.gz`);
    }
  });

  it('<svc-results> stays out of service.js and its chunks (it has its own bundle)', () => {
    for (const f of chunkFiles()) assert.doesNotMatch(readFileSync(f, 'utf8'), /svc-results/, f);
    assert.doesNotMatch(readFileSync('dist/service.js', 'utf8'), /svc-results/);
    assert.match(readFileSync('dist/svc-results.js', 'utf8'), /svc-results/);
  });

  it('service-core.js carries no Lit and no custom elements', () => {
    const code = readFileSync('dist/service-core.js', 'utf8');
    assert.doesNotMatch(code, /customElements\.define|lit-html|LitElement/);
  });

  it('production builds carry no development diagnostics', () => {
    for (const file of [...budgets.map(([f]) => f), 'dist/service.js', ...chunkFiles()]) assert.doesNotMatch(readFileSync(file, 'utf8'), /is in dev mode|a plugin returned an event without a name/);
  });

  it('ships source maps', () => {
    for (const file of [...budgets.map(([f]) => f), 'dist/service.js']) assert.ok(existsSync(`${file}.map`), `${file}.map is missing`);
  });

  it('ships no declaration maps (they would point at sources the package does not include)', () => {
    const maps = readdirSync('dist/types', { recursive: true }).map(String).filter((f) => f.endsWith('.d.ts.map'));
    assert.deepEqual(maps, []);
    assert.ok(existsSync('dist/types/src/index.d.ts'));
  });

  it('the ESM build and its types exist where package.json exports point', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { exports: Record<string, { import?: string; types?: string } | string> };
    const root = pkg.exports['.'] as { import: string; types: string };
    assert.ok(existsSync(root.import), root.import);
    assert.ok(existsSync(root.types), root.types);
  });
});
