// A traffic spike as a shop's busiest morning brings it: the Choose API asked by 100 connections (a fifth of the
// requests from new visitors, whose 20 first assignments are stored before the answer; returning visitors start a new
// session a quarter of the time) while browsers flush their outboxes at full speed (batches of 50 events, 10
// connections, as the ingestion bench saturates the service). One service, the real one (bench/ingest-server.ts with
// the choose bench's 20 experiments), on SQLite and on PostgreSQL; ingestion measured alone first, then both loads at
// once. A Choose answer is on a page's critical path (past 800 ms the visitor sees the fallback); a batch of events is
// not (the outbox sends it again), so what matters is Choose's tail while ingestion keeps most of its throughput.
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uuid } from '../src/uuid.js';
import { NAMES } from './choose-experiments.js';
import { askServer, forkBenchServer } from './server-ipc.js';
import { postgresAvailable } from './ingest-bench.js';
import { goalMark } from './goal-mark.js';
import { formatTimeline, readTrace, recordSlow, type SlowRequest } from './stall-timeline.js';

export interface MixedLoadOptions {
  seconds?: number;
  chooseConnections?: number;
  ingestConnections?: number;
  newVisitorShare?: number;
  /** The fixed Choose rate of the second mixed run (requests a second). */
  chooseRate?: number;
  /** Which databases: both by default (PostgreSQL skipped when it does not answer). */
  drivers?: readonly MixedLoadRow['driver'][];
  /** Fresh servers measured one after the other, each alone and then mixed twice (closed loop, fixed rate). */
  runs?: number;
  /** Called with each row as soon as it is measured (a long series shows its progress). */
  onRow?: (row: MixedLoadRow) => void;
  /**
   * Each mixed run's slow requests against the server's storage trace (SVC_STORAGE_TRACE): the row's `timeline`.
   */
  timeline?: boolean;
}

export interface MixedLoadRow {
  driver: 'SQLite' | 'PostgreSQL';
  /** Which of the bench's runs (1 …), each on a fresh server. */
  run: number;
  /** Choose requests a second offered: 0 when the connections ask again as soon as answered (closed loop). */
  chooseRate: number;
  ingestAloneEventsPerSecond: number;
  ingestMixedEventsPerSecond: number;
  /** Batches refused with 503 during the mixed load (the outbox sends them again). */
  ingestRefused: number;
  /** The slowest batch of events answered during the mixed load (ms). */
  ingestMax: number;
  /** p99 of the batches of events answered during the mixed load (ms). */
  ingestP99: number;
  chooseRps: number;
  chooseP50: number;
  chooseP99: number;
  chooseMax: number;
  /** Choose requests answered with anything but 2xx, or not at all. */
  chooseFailed: number;
  /** Events acknowledged (2xx) during the mixed load but not in the database once it settled: must be 0. */
  lost: number;
  /** With the `timeline` option: the run's slowest stalls against the storage's events (stall-timeline.ts). */
  timeline?: string[];
}

export interface MixedLoadResult {
  rows: MixedLoadRow[];
  skipped?: string;
}

const PROFILES = 1000;
const BATCH = 50;
const CHOOSE_PATH = '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret';
const TRACK_PATH = '/v1/acme/projects/shop/sources/web/track';
const AUTH = `Basic ${Buffer.from('web1:p4ss').toString('base64')}`;

interface Server {
  child: ChildProcess;
  port: number;
}

/** Starts the service; with `trace`, its storage and main thread write their trace to that file. */
async function startServer(mode: 'svc' | 'svc-pg', trace: string | undefined): Promise<Server> {
  const before = process.env.SVC_STORAGE_TRACE;
  if (trace !== undefined) process.env.SVC_STORAGE_TRACE = trace;
  try {
    return await forkBenchServer('ingest-server.ts', [`--mode=${mode}`, '--choose']);
  } finally {
    if (before === undefined) delete process.env.SVC_STORAGE_TRACE;
    else process.env.SVC_STORAGE_TRACE = before;
  }
}

let newVisitors = 0;
const sessions = new Map<number, number>();
function chooseBody(share: number): string {
  if (Math.random() < share) {
    const profileId = `mixed-new-${process.pid}-${newVisitors++}`;
    return JSON.stringify({ identification: { sourceId: 'web', profileId }, names: NAMES, device: 'desktop', sessionId: `${profileId}-s` });
  }
  const visitor = Math.floor(Math.random() * PROFILES);
  let session = sessions.get(visitor) ?? 0;
  if (Math.random() < 0.25) sessions.set(visitor, ++session);
  return JSON.stringify({
    identification: { sourceId: 'web', profileId: `mixed-profile-${visitor}` }, names: NAMES, device: 'desktop', sessionId: `mixed-s-${visitor}-${session}`,
  });
}

let browsers = 0;
function trackBody(): string {
  const now = new Date().toISOString();
  const browser = ++browsers;
  return JSON.stringify({
    batch: Array.from({ length: BATCH }, (_, i) => ({
      eventId: uuid(), type: i % 5 === 0 ? 'product' : 'track', name: i % 5 === 0 ? 'Product viewed' : 'Clicked banner',
      profileId: `mixed-browser-${browser}`, sessionId: `mixed-session-${browser}`, pageId: `mixed-page-${browser}`, timestamp: now,
      data: i % 5 === 0 ? { productId: `p${Math.floor(5000 * Math.random() ** 3)}`, quantity: 1 } : { position: i },
    })),
  });
}

function ingest(server: Server, seconds: number, connections: number, slow?: SlowRequest[]): Promise<autocannon.Result> {
  const run = autocannon({
    url: `http://127.0.0.1:${server.port}${TRACK_PATH}`, method: 'POST', connections, duration: seconds,
    headers: { authorization: AUTH, 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: trackBody() }) }],
  });
  if (slow) recordSlow(run as unknown as autocannon.Instance, 'batch', slow);
  return run;
}

/** Choose requests as fast as `connections` get answers (`rate` 0), or `rate` a second over them. */
function choose(server: Server, seconds: number, connections: number, share: number, rate: number, slow?: SlowRequest[]): Promise<autocannon.Result> {
  const run = autocannon({
    url: `http://127.0.0.1:${server.port}${CHOOSE_PATH}`, method: 'POST', connections, duration: seconds,
    ...(rate > 0 ? { overallRate: rate } : {}),
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: chooseBody(share) }) }],
  });
  if (slow) recordSlow(run as unknown as autocannon.Instance, 'Choose', slow);
  return run;
}

/** Each returning profile's first visit, before measuring: their assignments are stored. */
async function firstVisits(server: Server): Promise<void> {
  let next = 0;
  await autocannon({
    url: `http://127.0.0.1:${server.port}${CHOOSE_PATH}`, method: 'POST', connections: 20, amount: PROFILES,
    headers: { 'content-type': 'application/json' },
    requests: [{ setupRequest: (req) => ({ ...req, body: JSON.stringify({ identification: { sourceId: 'web', profileId: `mixed-profile-${next++}` }, names: NAMES, device: 'desktop' }) }) }],
  });
}

const refused = (r: autocannon.Result): number => Number((r.statusCodeStats as Record<string, { count: number }> | undefined)?.['503']?.count ?? 0);

async function measure(driver: MixedLoadRow['driver'], run: number, options: Required<MixedLoadOptions>): Promise<MixedLoadRow[]> {
  const trace = options.timeline ? join(mkdtempSync(join(tmpdir(), 'svc-mixed-trace-')), 'trace.jsonl') : undefined;
  const server = await startServer(driver === 'SQLite' ? 'svc' : 'svc-pg', trace);
  try {
    await firstVisits(server);
    const alone = await ingest(server, options.seconds, options.ingestConnections);
    await askServer(server.child, 'settled');
    const rows: MixedLoadRow[] = [];
    for (const rate of [0, options.chooseRate]) {
      const before = await askServer(server.child, 'stored');
      const slow: SlowRequest[] = [];
      const start = Date.now();
      const [mixedIngest, mixedChoose] = await Promise.all([
        ingest(server, options.seconds, options.ingestConnections, slow),
        choose(server, options.seconds, options.chooseConnections, options.newVisitorShare, rate, slow),
      ]);
      const end = Date.now();
      await askServer(server.child, 'settled');
      const stored = (await askServer(server.child, 'stored')) - before;
      // Batches in flight when the load stopped are stored without their answer being counted: more may be stored.
      const lost = Math.max(0, mixedIngest['2xx'] * BATCH - stored);
      if (lost > 0) throw new Error(`mixed load bench: ${lost} acknowledged events are not stored on ${driver}`);
      const timeline = trace === undefined ? {} : { timeline: formatTimeline(start, slow, readTrace(trace, start, end)) };
      rows.push({ ...row(driver, run, rate, options.seconds, alone, mixedIngest, mixedChoose), lost, ...timeline });
      options.onRow(rows.at(-1)!);
    }
    return rows;
  } finally {
    server.child.kill();
  }
}

function row(
  driver: MixedLoadRow['driver'], run: number, chooseRate: number, seconds: number, alone: autocannon.Result, mixedIngest: autocannon.Result, mixedChoose: autocannon.Result,
): Omit<MixedLoadRow, 'lost' | 'timeline'> {
  // A bench that measured a failing service would look fast: Choose must have answered.
  if (mixedChoose['2xx'] === 0) throw new Error(`mixed load bench: Choose never answered 2xx on ${driver}`);
  return {
    driver,
    run,
    chooseRate,
    ingestAloneEventsPerSecond: (alone['2xx'] * BATCH) / seconds,
    ingestMixedEventsPerSecond: (mixedIngest['2xx'] * BATCH) / seconds,
    ingestRefused: refused(mixedIngest),
    ingestMax: mixedIngest.latency.max,
    ingestP99: mixedIngest.latency.p99,
    chooseRps: mixedChoose['2xx'] / seconds,
    chooseP50: mixedChoose.latency.p50,
    chooseP99: mixedChoose.latency.p99,
    chooseMax: mixedChoose.latency.max,
    chooseFailed: mixedChoose.non2xx + mixedChoose.errors + mixedChoose.timeouts,
  };
}

export async function runMixedLoadBench(options: MixedLoadOptions = {}): Promise<MixedLoadResult> {
  const o: Required<MixedLoadOptions> = {
    seconds: options.seconds ?? 15, chooseConnections: options.chooseConnections ?? 100,
    ingestConnections: options.ingestConnections ?? 10, newVisitorShare: options.newVisitorShare ?? 0.2,
    chooseRate: options.chooseRate ?? 2000, drivers: options.drivers ?? ['SQLite', 'PostgreSQL'], runs: options.runs ?? 1,
    onRow: options.onRow ?? (() => {}), timeline: options.timeline ?? false,
  };
  const skipped = o.drivers.includes('PostgreSQL') ? await postgresAvailable() : undefined;
  const rows: MixedLoadRow[] = [];
  for (const driver of o.drivers) {
    if (driver === 'PostgreSQL' && skipped) continue;
    for (let run = 1; run <= o.runs; run++) rows.push(...(await measure(driver, run, o)));
  }
  return skipped ? { rows, skipped } : { rows };
}

const MIXED_HEADER = [
  '| | run | Choose asked | Choose answered | Choose p50 | Choose p99 | Choose max | Choose failed | events/s stored, alone | events/s stored, mixed | mixed / alone | batch p99 | batch max | batches refused (503) | acknowledged, not stored | goals |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
];

/**
 * The goals a row is held to, each marked: no Choose answer over 500 ms, on SQLite at a fixed rate ingestion ≥ 0.6 of
 * what it stores alone (the share the gate between SQLite's writers gives up; PostgreSQL has no gate, and there the
 * share is what the CPU left over), and every acknowledged event stored.
 */
function rowGoals(row: MixedLoadRow): string {
  return [
    goalMark(row.chooseMax <= 500, 'Choose max ≤ 500 ms'),
    ...(row.chooseRate && row.driver === 'SQLite' ? [goalMark(row.ingestMixedEventsPerSecond / row.ingestAloneEventsPerSecond >= 0.6, 'mixed / alone ≥ 0.6')] : []),
    goalMark(row.lost === 0, 'none lost'),
  ].join('; ');
}

/** One row of the bench's table. */
export function formatMixedLoadRow(row: MixedLoadRow): string {
  const ms = (n: number): string => `${Math.round(n)} ms`;
  const k = (n: number): string => `${(n / 1000).toFixed(1)}k`;
  return `| ${row.driver} | ${row.run} | ${row.chooseRate ? `${row.chooseRate} req/s` : 'at once (closed loop)'} | ${Math.round(row.chooseRps)} req/s | ${ms(row.chooseP50)} | ${ms(row.chooseP99)} | ${ms(row.chooseMax)} | ${row.chooseFailed} | ` +
    `${k(row.ingestAloneEventsPerSecond)} | ${k(row.ingestMixedEventsPerSecond)} | ${(row.ingestMixedEventsPerSecond / row.ingestAloneEventsPerSecond).toFixed(2)} | ${ms(row.ingestP99)} | ${ms(row.ingestMax)} | ${row.ingestRefused} | ${row.lost} | ${rowGoals(row)} |`;
}

export function formatMixedLoadBench(r: MixedLoadResult): string {
  return [
    '## A traffic spike: Choose (100 connections, 20 % new visitors) beside ingestion at saturation (10 connections × 50 events)',
    '',
    ...MIXED_HEADER,
    ...r.rows.map(formatMixedLoadRow),
    ...(r.skipped ? ['', r.skipped] : []),
    '',
    'Choose "at once": each connection asks again as soon as it is answered (the issue\'s load: Choose then takes what',
    'CPU it can of the shared cores); at a fixed rate: a spike of that many requests a second.',
    'Goals: on both databases no Choose answer over 500 ms (the max, not only the p99) and every acknowledged event stored;',
    'on SQLite, ingestion ≥ 0.6 of what it stores alone at the fixed rate (on PostgreSQL, where no gate orders the writers,',
    'the share is a reading: what the shared cores leave once Choose is answered).',
  ].join('\n');
}

// Alone: node --import tsx bench/mixed-load-bench.ts [--driver=sqlite|postgres] [--runs=N] [--seconds=S] [--rate=R]
// [--timeline] prints each row as it is measured (a run: a fresh server, Choose closed loop and then at R a second);
// with --timeline, under each row its slowest stalls against the storage's trace.
if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name: string): string | undefined => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const driver = arg('driver');
  const drivers: MixedLoadRow['driver'][] = driver === undefined ? ['SQLite', 'PostgreSQL'] : [driver === 'postgres' ? 'PostgreSQL' : 'SQLite'];
  if (driver !== undefined && driver !== 'sqlite' && driver !== 'postgres') throw new Error(`--driver=${driver}: sqlite or postgres`);
  console.log(MIXED_HEADER.join('\n'));
  const result = await runMixedLoadBench({
    seconds: Number(arg('seconds') ?? process.env.BENCH_MIXED_SECONDS ?? 15),
    chooseRate: Number(arg('rate') ?? process.env.BENCH_MIXED_CHOOSE_RATE ?? 2000),
    runs: Number(arg('runs') ?? 1), drivers, timeline: process.argv.includes('--timeline'),
    onRow: (row) => console.log([formatMixedLoadRow(row), ...(row.timeline ?? [])].join('\n')),
  });
  if (result.skipped) console.log(`\n${result.skipped}`);
  const worst = Math.max(...result.rows.map((row) => row.chooseMax));
  console.log(`\nslowest Choose answer of all runs: ${Math.round(worst)} ms (goal ${goalMark(worst <= 500, '≤ 500 ms')})`);
}
