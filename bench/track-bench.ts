// The main-thread cost of one `track()` call: ours (dist/service-core.js) next to @segment/analytics-next,
// both loaded in the same Chromium page and measured in alternating rounds, the network stubbed for both
// (fetch and sendBeacon answer 200 at once), so what is measured is the SDK's own work on the main thread.
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';
import { goalMark } from './goal-mark.js';

export interface TrackBenchOptions {
  rounds: number;
  /** `track()` calls per round and SDK; the per-call figure of a round is its mean. */
  callsPerRound: number;
}

export interface TrackBenchResult {
  rounds: number;
  callsPerRound: number;
  /** Median over rounds of the mean per call, in microseconds. */
  ours: { syncUs: number; settledUs: number };
  segment: { syncUs: number; settledUs: number };
  /** Segment with `disableClientPersistence: true`. */
  segmentMemory: { syncUs: number; settledUs: number };
  segmentVersion: string;
}

/** Segment's ESM build bundled for the page, the way a site bundling it would ship it. */
async function bundleSegment(dir: string): Promise<string> {
  const entry = join(dir, 'segment-entry.mjs');
  writeFileSync(entry, "import { AnalyticsBrowser } from '@segment/analytics-next';\nwindow.AnalyticsBrowser = AnalyticsBrowser;\n");
  const outfile = join(dir, 'segment.js');
  await build({ entryPoints: [entry], bundle: true, minify: true, format: 'iife', target: 'es2022', outfile, nodePaths: [join(process.cwd(), 'node_modules')], logLevel: 'error' });
  return readFileSync(outfile, 'utf8');
}


// Runs in the page (plain script: functions handed to page.evaluate must not carry the TypeScript
// loader's helpers). One round of `count` calls: `sync` is the calls alone, `settled` runs until the next
// task, so it includes the microtasks each call queued (our IndexedDB write, Segment's plugin pipeline).
const ROUND = `
window.benchRound = async (which, count) => {
  const nextTask = () => new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });
  await nextTask();
  const t0 = performance.now();
  if (which === 'ours') for (let i = 0; i < count; i++) window.svc.track({ eventTitle: 'Video played', data: { videoId: 'v1', position: i } });
  else { const seg = which === 'segment' ? window.seg : window.segMem; for (let i = 0; i < count; i++) void seg.track('Video played', { videoId: 'v1', position: i }); }
  const t1 = performance.now();
  await nextTask();
  const t2 = performance.now();
  // Let both deliver (stubbed) before the next round, so neither carries a growing backlog.
  await new Promise((r) => setTimeout(r, 100));
  return { sync: ((t1 - t0) * 1000) / count, settled: ((t2 - t0) * 1000) / count };
};`;

type Round = { sync: number; settled: number };

const PAGE = `<!doctype html><meta charset="utf-8"><title>track bench</title>
<script>
  // The network edge, stubbed the same way for both SDKs: every request succeeds at once.
  window.fetch = async () => new Response('{"accepted":1,"duplicates":0}', { status: 200, headers: { 'Content-Type': 'application/json' } });
  navigator.sendBeacon = () => true;
</script>
<script src="/service-core.js"></script>
<script src="/segment.js"></script>
<script>${ROUND}</script>`;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function runTrackBench(options: TrackBenchOptions): Promise<TrackBenchResult> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-track-bench-'));
  const files: Record<string, string> = {
    '/': PAGE,
    '/service-core.js': readFileSync('dist/service-core.js', 'utf8'),
    '/segment.js': await bundleSegment(dir),
  };
  // A real origin: IndexedDB and localStorage are refused on about:blank.
  const server: Server = createServer((req, res) => {
    const body = files[req.url ?? '/'];
    res.writeHead(body === undefined ? 404 : 200, { 'Content-Type': req.url === '/' ? 'text/html' : 'text/javascript' });
    res.end(body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const browser = await puppeteer.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.evaluate(async () => {
      const w = window as unknown as Record<string, unknown> & {
        ServiceJs: new (c: object) => unknown;
        AnalyticsBrowser: { load(s: object, o: object): Promise<[unknown, unknown]> };
      };
      w.svc = new w.ServiceJs({ organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', platformA: false, platformB: false, api: `${location.origin}/v1` });
      // Settings given inline, so Segment fetches nothing from its CDN; everything else is its default.
      const [analytics] = await w.AnalyticsBrowser.load(
        { writeKey: 'bench', cdnSettings: { integrations: { 'Segment.io': { apiKey: 'bench' } } } },
        {},
      );
      w.seg = analytics;
      // A second, stricter peer: Segment without client persistence (no cookie or localStorage reads,
      // which cost a synchronous round trip to the browser process per access in Chromium).
      const [memoryOnly] = await w.AnalyticsBrowser.load(
        { writeKey: 'bench-memory', cdnSettings: { integrations: { 'Segment.io': { apiKey: 'bench' } } } },
        { disableClientPersistence: true },
      );
      w.segMem = memoryOnly;
    });
    const peers = ['ours', 'segment', 'segmentMemory'] as const;
    const run = (which: (typeof peers)[number]): Promise<Round> =>
      page.evaluate((w, n) => (window as unknown as { benchRound(w: string, n: number): Promise<Round> }).benchRound(w, n), which, options.callsPerRound);
    // Warm-up: every SDK's code paths compiled and its storage opened before anything counts.
    for (let i = 0; i < 3; i++) for (const which of peers) await run(which);
    const results: Record<(typeof peers)[number], Round[]> = { ours: [], segment: [], segmentMemory: [] };
    for (let r = 0; r < options.rounds; r++) {
      // Rotate who goes first: a shared two-core machine drifts between rounds.
      for (let k = 0; k < peers.length; k++) {
        const which = peers[(r + k) % peers.length]!;
        results[which].push(await run(which));
      }
    }
    const summary = (rounds: Round[]): { syncUs: number; settledUs: number } =>
      ({ syncUs: median(rounds.map((x) => x.sync)), settledUs: median(rounds.map((x) => x.settled)) });
    const pkg = JSON.parse(readFileSync('node_modules/@segment/analytics-next/package.json', 'utf8')) as { version: string };
    return {
      rounds: options.rounds,
      callsPerRound: options.callsPerRound,
      ours: summary(results.ours),
      segment: summary(results.segment),
      segmentMemory: summary(results.segmentMemory),
      segmentVersion: pkg.version,
    };
  } finally {
    await browser.close();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatTrackBench(r: TrackBenchResult): string {
  const f = (us: number): string => us.toFixed(1).padStart(9);
  const ratio = (a: number, b: number): string => `${(a / b).toFixed(3)}×`.padStart(8);
  const row = (label: string, key: 'syncUs' | 'settledUs'): string =>
    `  ${label.padEnd(18)}${f(r.ours[key])}${f(r.segment[key])}${f(r.segmentMemory[key])}${ratio(r.ours[key], r.segment[key])}${ratio(r.ours[key], r.segmentMemory[key])}`
    + `   ${goalMark(r.ours[key] / r.segment[key] <= 0.5 && r.ours[key] / r.segmentMemory[key] <= 0.5, '≤ 0.50× both')}`;
  return [
    `track(): main-thread µs per call, median of ${r.rounds} rotating rounds × ${r.callsPerRound} calls, network stubbed, one page`,
    `  (segment = @segment/analytics-next ${r.segmentVersion} defaults; seg-mem = with disableClientPersistence)`,
    '                          svc  segment  seg-mem  svc/seg  svc/seg-mem   goal',
    row('the call itself', 'syncUs'),
    row('+ its microtasks', 'settledUs'),
  ].join('\n');
}
