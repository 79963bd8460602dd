// What a CMS page downloads of each SDK, gzip -9, by what the page uses: svc's page profiles (dist/service.js and the
// chunks the page fetches, read from the build's manifest: several kinds of element come as one combo) beside GrowthBook's and Segment's script-tag builds, from
// the packages installed for this comparison. The sizes are files' bytes, not timings: they do not vary between runs.
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pageChunks } from '../test/helpers/page-chunks.js';
import { goalMark } from './goal-mark.js';

const ROOT = resolve(import.meta.dirname, '..');

/** The page profiles of the README's "Builds" table: the chunks each fetches beside service.js, and its budget. */
export const PROFILES: { page: string; chunks: string[]; budget: number }[] = [
  { page: 'nothing but `svc.track` (core)', chunks: [], budget: 8 * 1024 },
  { page: '`<svc-experience>` only', chunks: ['experiences'], budget: 13 * 1024 },
  { page: 'experience + recommendations', chunks: ['experiences', 'recommendations'], budget: 17 * 1024 },
  {
    page: 'everything (every element, banner in one language, one platform, auto-track)',
    chunks: ['experiences', 'recommendations', 'consent', 'texts-en', 'auto-track', 'platform-a'],
    budget: 21 * 1024,
  },
];

/** Peers' builds a page loads with one script tag (their own packages' files). */
const PEERS: { name: string; file: string }[] = [
  { name: 'GrowthBook, script tag with auto-init (auto.min.js)', file: 'node_modules/@growthbook/growthbook/dist/bundles/auto.min.js' },
  { name: 'GrowthBook, UMD bundle (index.min.js)', file: 'node_modules/@growthbook/growthbook/dist/bundles/index.min.js' },
  { name: 'Segment analytics.js, first file (standalone.js)', file: 'node_modules/@segment/analytics-next/dist/umd/standalone.js' },
];

export interface SdkSizeRow {
  page: string;
  files: number;
  bytes: number;
  budget?: number;
}

const gzipped = (file: string): number => gzipSync(readFileSync(join(ROOT, file)), { level: 9 }).length;

export function runSdkSizeBench(): { svc: SdkSizeRow[]; peers: SdkSizeRow[]; snippet: number } {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'dist/chunks/manifest.json'), 'utf8')) as Record<string, string[]>;
  const svc = PROFILES.map(({ page, chunks, budget }) => {
    const files = ['dist/service.js', ...new Set(pageChunks(chunks).flatMap((c) => {
      if (!manifest[c]) throw new Error(`the build made no chunk ${c}: run npm run build`);
      return manifest[c].map((f) => `dist/chunks/${f}.js`);
    }))];
    return { page, files: files.length, bytes: files.reduce((sum, f) => sum + gzipped(f), 0), budget };
  });
  const peers = PEERS.filter(({ file }) => existsSync(join(ROOT, file))).map(({ name, file }) => ({ page: name, files: 1, bytes: gzipped(file) }));
  // The README's inline snippet: not fetched, but every page carries it.
  const snippetCode = readFileSync(join(ROOT, 'bundles/snippet.js'), 'utf8').split('\n').filter((l) => l.startsWith('!function')).join('\n');
  return { svc, peers, snippet: gzipSync(snippetCode, { level: 9 }).length };
}

export function formatSdkSizeBench({ svc, peers, snippet }: ReturnType<typeof runSdkSizeBench>): string {
  const kib = (n: number): string => `${(n / 1024).toFixed(1)} KiB`;
  const growthbook = peers.find((p) => p.page.startsWith('GrowthBook, script tag'))?.bytes;
  const lines = [
    'SDK bytes a page fetches (gzip -9 of every file), by what the page uses',
    '| page uses | files | bytes | budget | vs GrowthBook\'s script tag |',
    '|---|---|---|---|---|',
    ...svc.map((r) => `| ${r.page} | ${r.files} | ${r.bytes} (${kib(r.bytes)}) | ${goalMark(r.bytes <= r.budget!, `≤ ${kib(r.budget!)}`)} | ${growthbook ? (r.bytes / growthbook).toFixed(2) : '–'} |`),
    ...peers.map((r) => `| ${r.page} | 1 | ${r.bytes} (${kib(r.bytes)}) | | ${growthbook ? (r.bytes / growthbook).toFixed(2) : '–'} |`),
    `The inline snippet every page carries: ${snippet} bytes (${kib(snippet)}; budget ${goalMark(snippet <= 2.5 * 1024, '≤ 2.5 KiB')}).`,
  ];
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(formatSdkSizeBench(runSdkSizeBench()));
