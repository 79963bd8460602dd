// Ingestion throughput of the service (batches of 50 events with the SDK's own time-ordered ids, durable) next to
// the durable floor on the same database, measured in the same run: the cheapest durable write of the same events
// with the same uniqueness guarantee (a table with the service's event columns keyed (project, event_id), no other
// index, one transaction per request; see ingest-server.ts). On SQLite and on PostgreSQL, plus a bare node:http server
// that parses and discards (the transport alone). Every server runs as a forked child; autocannon drives them from
// this process over loopback. Rounds rotate the order and the medians are compared (on two shared cores a single
// figure swings ±40%). Each server reports its own CPU time, so the table shows CPU µs per request as well, and its
// RSS at rest and under load. The service folds product events into its recommendation models after the answer: after
// each of its rounds the bench waits until they caught up, and counts that time ("sustained") and that CPU too.
import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { uuid } from '../src/uuid.js';
import { askServer, forkBenchServer } from './server-ipc.js';
import { goalMark } from './goal-mark.js';

export interface IngestBenchOptions {
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
  batchSize?: number;
  /** Leave out the overload run (it starts a server of its own). */
  skipOverload?: boolean;
}

export type Mode = 'svc' | 'floor' | 'svc-pg' | 'floor-pg' | 'bare';

/** One server's figures over the rounds. */
export interface IngestSide {
  mode: Mode;
  /** Events acknowledged per second of load, each round. */
  eventsPerSecond: number[];
  median: number;
  /** Median over the rounds of the seconds the service's models took to catch up after the load (0 for the others). */
  catchUpSeconds: number;
  /** Median of events per second counted to when the models had caught up: what the node sustains, models included. */
  sustained: number;
  /** Median over the rounds of the server's CPU time (user + system, all threads) per request, in µs. */
  cpuUsPerRequest: number;
  rssAtRest: number;
  rssPeak: number;
}

export interface IngestBenchResult {
  sides: IngestSide[];
  /** svc / floor on SQLite, and on PostgreSQL when it ran (goal ≥ 0.7 on both): events acknowledged per second. */
  sqliteRatio: number;
  postgresRatio: number | null;
  /** The same with svc's events counted to when its models had caught up. */
  sqliteSustainedRatio: number;
  postgresSustainedRatio: number | null;
  errors: number;
  connections: number;
  /** Why the PostgreSQL rows are missing, when they are. */
  skipped?: string;
  overload: OverloadResult | null;
}

/** svc on SQLite under more connections than it can serve, with a low backpressure bound. */
export interface OverloadResult {
  connections: number;
  maxPendingEvents: number;
  eventsPerSecond: number;
  answered: number;
  refused: number;
  rssAtRest: number;
  rssPeak: number;
}

const AUTH = `Basic ${Buffer.from('web1:p4ss').toString('base64')}`;

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

let browsers = 0;
/** Products in the catalog; views are skewed towards the first ones (a cube of a uniform draw), as shops' are. */
const CATALOG = 5000;

/**
 * A body of `size` fresh events with the SDK's ids, as one browser sends it: one profile and one session per
 * request (a browser's outbox sends one batch at a time, so concurrent requests come from different visitors), a
 * fifth of the events product views of a catalog of 5,000 with a few popular products (the models' hot rows), the
 * rest clicks.
 * Every request stores new rows (no duplicates make it cheaper).
 */
function body(size: number): string {
  const now = new Date().toISOString();
  const browser = ++browsers;
  const batch = Array.from({ length: size }, (_, i) => ({
    eventId: uuid(), type: i % 5 === 0 ? 'product' : 'track', name: i % 5 === 0 ? 'Product viewed' : 'Clicked banner',
    profileId: `bench-profile-${browser}`, sessionId: `bench-session-${browser}`, pageId: `bench-page-${browser}-${i % 4}`, timestamp: now,
    data: i % 5 === 0 ? { productId: `p${Math.floor(CATALOG * Math.random() ** 3)}`, quantity: 1 } : { position: i, label: 'hero' },
  }));
  return JSON.stringify({ batch });
}

export interface Server {
  child: ChildProcess;
  port: number;
  rss(): Promise<number>;
  /** The server process's CPU time so far (user + system, µs). */
  cpu(): Promise<number>;
  /** Resolves once the server has done all it accepted (the service: its models caught up). */
  settled(): Promise<number>;
}

export async function startServer(mode: Mode, args: string[] = []): Promise<Server> {
  const { child, port } = await forkBenchServer('ingest-server.ts', [`--mode=${mode}`, ...args]);
  return { child, port, rss: () => askServer(child, 'rss'), cpu: () => askServer(child, 'cpu'), settled: () => askServer(child, 'settled') };
}

interface LoadResult {
  eventsPerSecond: number;
  /** Seconds after the load until the server had done all it accepted (the models caught up; 0 for the others). */
  catchUpSeconds: number;
  errors: number;
  /** Answers 503 (backpressure). */
  refused: number;
  peakRss: number;
  cpuUsPerRequest: number;
}

/** `makeBody`: a request body of `batchSize` fresh events (default: the ingestion bench's own mix). */
export async function load(
  server: Server, seconds: number, connections: number, batchSize: number, makeBody: (size: number) => string = body,
): Promise<LoadResult> {
  let peakRss = await server.rss();
  const cpuBefore = await server.cpu();
  const sampler = setInterval(() => {
    server.rss().then((r) => { peakRss = Math.max(peakRss, r); }, () => undefined);
  }, 250);
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${server.port}/v1/acme/projects/shop/sources/web/track`,
      method: 'POST',
      connections,
      duration: seconds,
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: makeBody(batchSize) }) }],
    });
    const ok = result['2xx'];
    const loadEnd = performance.now();
    await server.settled();
    const catchUpSeconds = (performance.now() - loadEnd) / 1000;
    // The CPU of the model upkeep that ran after the load too: it is part of what each request cost.
    const cpuUsPerRequest = (await server.cpu() - cpuBefore) / Math.max(1, result.requests.total);
    const refused = Number((result.statusCodeStats as Record<string, { count: number }> | undefined)?.['503']?.count ?? 0);
    return { eventsPerSecond: (ok * batchSize) / seconds, catchUpSeconds, errors: result.non2xx + result.errors + result.timeouts, refused, peakRss, cpuUsPerRequest };
  } finally {
    clearInterval(sampler);
  }
}

/** Whether PostgreSQL answers at BENCH_PG_URL (the PostgreSQL rows are skipped, with a message, when it does not). */
export async function postgresAvailable(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (error) {
    return `PostgreSQL skipped: ${(error as Error).message}`;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Runs rotating rounds against every server and returns medians and the ratios svc / floor (goal ≥ 0.7 on both).
 * @example const r = await runIngestBench({ rounds: 3, secondsPerRound: 8 });
 */
export async function runIngestBench(options: IngestBenchOptions = {}): Promise<IngestBenchResult> {
  const rounds = options.rounds ?? 3;
  const seconds = options.secondsPerRound ?? 8;
  const connections = options.connections ?? 10;
  const batchSize = options.batchSize ?? 50;
  const skipped = await postgresAvailable();
  const modes: Mode[] = skipped ? ['svc', 'floor', 'bare'] : ['svc', 'floor', 'svc-pg', 'floor-pg', 'bare'];
  const servers = new Map<Mode, Server>();
  try {
    for (const mode of modes) servers.set(mode, await startServer(mode));
    const server = (mode: Mode): Server => servers.get(mode) as Server;
    const rest = new Map<Mode, number>();
    for (const mode of modes) rest.set(mode, await server(mode).rss());
    // Warm-up (JIT, page caches), not counted.
    for (const mode of modes) await load(server(mode), 2, connections, batchSize);
    const rates = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    const cpu = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    const catchUp = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    const sustained = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    const peak = new Map<Mode, number>(rest);
    let errors = 0;
    for (let round = 0; round < rounds; round++) {
      // Rotate which goes first so drift (thermal, neighbours) hits all alike.
      const order = modes.map((_, i) => modes[(i + round) % modes.length] as Mode);
      for (const mode of order) {
        const r = await load(server(mode), seconds, connections, batchSize);
        errors += r.errors;
        rates.get(mode)?.push(r.eventsPerSecond);
        cpu.get(mode)?.push(r.cpuUsPerRequest);
        catchUp.get(mode)?.push(r.catchUpSeconds);
        sustained.get(mode)?.push((r.eventsPerSecond * seconds) / (seconds + r.catchUpSeconds));
        peak.set(mode, Math.max(peak.get(mode) ?? 0, r.peakRss));
      }
    }
    const sides = modes.map((mode): IngestSide => {
      const eventsPerSecond = rates.get(mode) as number[];
      return {
        mode, eventsPerSecond, median: median(eventsPerSecond), cpuUsPerRequest: median(cpu.get(mode) as number[]),
        catchUpSeconds: median(catchUp.get(mode) as number[]), sustained: median(sustained.get(mode) as number[]),
        rssAtRest: rest.get(mode) ?? 0, rssPeak: peak.get(mode) ?? 0,
      };
    });
    const of = (mode: Mode): number => sides.find((s) => s.mode === mode)?.median ?? NaN;
    const sustainedOf = (mode: Mode): number => sides.find((s) => s.mode === mode)?.sustained ?? NaN;
    for (const s of servers.values()) s.child.kill('SIGTERM');
    servers.clear();
    return {
      sides, sqliteRatio: of('svc') / of('floor'), postgresRatio: skipped ? null : of('svc-pg') / of('floor-pg'),
      sqliteSustainedRatio: sustainedOf('svc') / of('floor'), postgresSustainedRatio: skipped ? null : sustainedOf('svc-pg') / of('floor-pg'),
      errors, connections, ...(skipped ? { skipped } : {}),
      overload: options.skipOverload ? null : await overload(seconds, batchSize),
    };
  } finally {
    for (const s of servers.values()) s.child.kill('SIGTERM');
  }
}

/**
 * Backpressure at work: svc on SQLite with its bound on events held but not committed lowered to 2,000 (the default,
 * 50,000, is more than one address's 256 connections can hold in flight), driven by 200 connections. It answers what it
 * can, refuses the rest with 503 and Retry-After, and its memory stays near the normal load's.
 */
async function overload(seconds: number, batchSize: number): Promise<OverloadResult> {
  const maxPendingEvents = 2000;
  const connections = 200;
  const server = await startServer('svc', [`--max-pending=${maxPendingEvents}`]);
  try {
    const rssAtRest = await server.rss();
    const r = await load(server, seconds, connections, batchSize);
    const answered = Math.round((r.eventsPerSecond * seconds) / batchSize);
    return { connections, maxPendingEvents, eventsPerSecond: r.eventsPerSecond, answered, refused: r.refused, rssAtRest, rssPeak: r.peakRss };
  } finally {
    server.child.kill('SIGTERM');
  }
}

const LABELS: Record<Mode, string> = {
  svc: 'svc on SQLite (durable: synchronous=FULL, group commit)',
  floor: 'floor on SQLite (PK-only table, WAL, synchronous=NORMAL)',
  'svc-pg': 'svc on PostgreSQL',
  'floor-pg': 'floor on PostgreSQL (PK-only table, ON CONFLICT DO NOTHING)',
  bare: 'bare node:http (parse + discard)',
};

/** The result as the table `npm run bench` prints. */
export function formatIngestBench(r: IngestBenchResult): string {
  const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`;
  const rate = (n: number): string => Math.round(n).toLocaleString('en-US');
  const us = (n: number): string => `${Math.round(n).toLocaleString('en-US')} µs`;
  const rows = [
    ['server', 'events/s (median)', 'rounds', 'models caught up after', 'sustained events/s', 'CPU/request', 'RSS at rest', 'RSS under load'],
    ...r.sides.map((s) => [
      LABELS[s.mode], rate(s.median), s.eventsPerSecond.map(rate).join(' / '), s.mode.startsWith('svc') ? `${s.catchUpSeconds.toFixed(1)} s` : '—',
      rate(s.sustained), us(s.cpuUsPerRequest), mb(s.rssAtRest), mb(s.rssPeak),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  const ratios = (name: string, ratio: number | null, sustained: number | null): string => (ratio === null || sustained === null
    ? `svc / floor on ${name}: ${r.skipped}`
    : `svc / floor on ${name} = ${ratio.toFixed(2)} acknowledged (goal ${goalMark(ratio >= 0.7, '≥ 0.7')}), ${sustained.toFixed(2)} sustained with the models caught up`);
  const o = r.overload;
  return [
    `## Ingestion: POST …/track, batches of 50 events with the SDK's UUIDv7 ids, ${r.connections} connections, rotating rounds`,
    '',
    line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line),
    '',
    'A fifth of the events are product views, which the recommendation models count: the service applies them after',
    'the answer, in chunks. "Sustained" counts each round to the moment its models had caught up.',
    '',
    ratios('SQLite', r.sqliteRatio, r.sqliteSustainedRatio),
    ratios('PostgreSQL', r.postgresRatio, r.postgresSustainedRatio),
    ...(r.errors ? [`${r.errors} non-2xx answers or errors`] : []),
    ...(o === null ? [] : [
      '',
      `Overload: svc on SQLite, ${o.connections} connections, backpressure bound ${rate(o.maxPendingEvents)} events: `
        + `${rate(o.eventsPerSecond)} events/s stored, ${rate(o.answered)} requests answered 200 and `
        + `${rate(o.refused)} refused with 503 + Retry-After; RSS ${mb(o.rssAtRest)} at rest, ${mb(o.rssPeak)} at most.`,
    ]),
  ].join('\n');
}
