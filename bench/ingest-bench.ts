// Ingestion throughput of the service (durable SQLite, batches of 50 events) next to a bare node:http server
// that only parses and discards the same bodies — the named peer, measured in the same run — and next to the
// framework's floor: a Fastify route that parses and discards them too (what svc would reach if validating and
// storing cost nothing). All three run as forked children; autocannon drives them from this process over
// loopback. Rounds rotate the order and the medians are compared (on two shared cores a single figure swings
// ±40%). Each server also reports its own CPU time, so the table shows CPU µs per request as well: the cost
// each server pays, which the load generator sharing the cores does not blur.
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { validateBatch } from '../server/ingest/validate-event.js';
import { askServer } from './server-ipc.js';

export interface IngestBenchOptions {
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
  batchSize?: number;
}

/** One server's figures over the rounds. */
export interface IngestSide {
  eventsPerSecond: number[];
  median: number;
  /** Median over the rounds of the server's CPU time (user + system, all threads) per request, in µs. */
  cpuUsPerRequest: number;
}

export interface IngestBenchResult {
  svcEventsPerSecond: number[];
  bareEventsPerSecond: number[];
  svcMedian: number;
  bareMedian: number;
  /** svc / bare events per second (goal ≥ 0.5). */
  ratio: number;
  svc: IngestSide;
  bare: IngestSide;
  fastify: IngestSide;
  /** fastify / bare: the most any Fastify service can reach in this harness. */
  floorRatio: number;
  /**
   * The least storing can cost per event: inserting only the events' 16-byte unique keys into an in-memory SQLite
   * table (no row, no durability), µs per key, median of the rounds — the floor of any design that keeps the
   * idempotency key in the database on this machine.
   */
  uniqueKeyFloorUs: number;
  /** µs to validate one request's parsed batch with the service's validator (every event), median. */
  validateUsPerRequest: number;
  svcRssAtRest: number;
  svcRssPeak: number;
  bareRssAtRest: number;
  bareRssPeak: number;
  errors: number;
  connections: number;
}

const AUTH = `Basic ${Buffer.from('web1:p4ss').toString('base64')}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A body of `size` fresh events: every request stores new rows (no duplicates make it cheaper). */
function body(size: number): string {
  const now = new Date().toISOString();
  const batch = Array.from({ length: size }, (_, i) => ({
    eventId: randomUUID(), type: i % 5 === 0 ? 'product' : 'track', name: i % 5 === 0 ? 'Product viewed' : 'Clicked banner',
    profileId: `bench-profile-${i % 17}`, sessionId: 'bench-session', pageId: 'bench-page', timestamp: now,
    data: i % 5 === 0 ? { productId: `p${i % 30}`, quantity: 1 } : { position: i, label: 'hero' },
  }));
  return JSON.stringify({ batch });
}

type Mode = 'svc' | 'bare' | 'fastify';

interface Server {
  child: ChildProcess;
  port: number;
  rss(): Promise<number>;
  /** The server process's CPU time so far (user + system, µs). */
  cpu(): Promise<number>;
}

function startServer(mode: Mode): Promise<Server> {
  const child = fork(join(import.meta.dirname, 'ingest-server.ts'), [`--mode=${mode}`], {
    execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${String(code)}`)));
    child.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'port' in m) {
        resolve({ child, port: Number((m as { port: number }).port), rss: () => askServer(child, 'rss'), cpu: () => askServer(child, 'cpu') });
      }
    });
  });
}

interface LoadResult {
  eventsPerSecond: number;
  errors: number;
  peakRss: number;
  cpuUsPerRequest: number;
}

async function load(server: Server, seconds: number, connections: number, batchSize: number): Promise<LoadResult> {
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
      requests: [{ setupRequest: (req) => ({ ...req, body: body(batchSize) }) }],
    });
    const ok = result['2xx'];
    const cpuUsPerRequest = (await server.cpu() - cpuBefore) / Math.max(1, result.requests.total);
    return { eventsPerSecond: (ok * batchSize) / seconds, errors: result.non2xx + result.errors + result.timeouts, peakRss, cpuUsPerRequest };
  } finally {
    clearInterval(sampler);
  }
}

/** µs per key of inserting random 16-byte keys (the unique (project, eventId) key at its most compact), in memory. */
function uniqueKeyFloor(rounds: number): number {
  const db = new Database(':memory:');
  db.exec('CREATE TABLE keys (k BLOB PRIMARY KEY) WITHOUT ROWID');
  const insert = db.prepare('INSERT INTO keys (k) VALUES (?) ON CONFLICT DO NOTHING');
  const insertGroup = db.transaction((keys: Buffer[]) => {
    for (const k of keys) insert.run(k);
  });
  const perKey: number[] = [];
  for (let round = 0; round < rounds; round++) {
    // 200 groups of 500 keys (10 requests of 50 events per commit, as under the HTTP load); keys made beforehand.
    const groups = Array.from({ length: 200 }, () => Array.from({ length: 500 }, () => randomBytes(16)));
    const start = process.hrtime.bigint();
    for (const keys of groups) insertGroup(keys);
    perKey.push(Number(process.hrtime.bigint() - start) / 1000 / (200 * 500));
  }
  db.close();
  return median(perKey);
}

/** µs per request of validating a parsed bench body (the issue requires every event validated). */
function validationCost(rounds: number, batchSize: number): number {
  const parsed = Array.from({ length: 100 }, () => JSON.parse(body(batchSize)) as unknown);
  const perRequest: number[] = [];
  let events = 0;
  for (let round = 0; round < rounds; round++) {
    const start = process.hrtime.bigint();
    for (let i = 0; i < 2000; i++) events += validateBatch(parsed[i % parsed.length]).length;
    perRequest.push(Number(process.hrtime.bigint() - start) / 1000 / 2000);
  }
  if (events === 0) throw new Error('ingest bench: nothing was validated');
  return median(perRequest);
}

/**
 * Runs rotating rounds against the three servers and returns medians and the ratio svc / bare (goal ≥ 0.5).
 * @example const r = await runIngestBench({ rounds: 3, secondsPerRound: 8 });
 */
export async function runIngestBench(options: IngestBenchOptions = {}): Promise<IngestBenchResult> {
  const rounds = options.rounds ?? 3;
  const seconds = options.secondsPerRound ?? 8;
  const connections = options.connections ?? 10;
  const batchSize = options.batchSize ?? 50;
  const modes: Mode[] = ['svc', 'bare', 'fastify'];
  const servers = new Map<Mode, Server>();
  try {
    for (const mode of modes) servers.set(mode, await startServer(mode));
    const server = (mode: Mode): Server => servers.get(mode) as Server;
    const svcRssAtRest = await server('svc').rss();
    const bareRssAtRest = await server('bare').rss();
    // Warm-up (JIT, SQLite page cache), not counted.
    for (const mode of modes) await load(server(mode), 2, connections, batchSize);
    const rates = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    const cpu = new Map<Mode, number[]>(modes.map((m) => [m, []]));
    let svcRssPeak = svcRssAtRest;
    let bareRssPeak = bareRssAtRest;
    let errors = 0;
    for (let round = 0; round < rounds; round++) {
      // Rotate which goes first so drift (thermal, neighbours) hits all alike.
      const order = modes.map((_, i) => modes[(i + round) % modes.length] as Mode);
      for (const mode of order) {
        const r = await load(server(mode), seconds, connections, batchSize);
        errors += r.errors;
        rates.get(mode)?.push(r.eventsPerSecond);
        cpu.get(mode)?.push(r.cpuUsPerRequest);
        if (mode === 'svc') svcRssPeak = Math.max(svcRssPeak, r.peakRss);
        if (mode === 'bare') bareRssPeak = Math.max(bareRssPeak, r.peakRss);
      }
    }
    const side = (mode: Mode): IngestSide => {
      const eventsPerSecond = rates.get(mode) as number[];
      return { eventsPerSecond, median: median(eventsPerSecond), cpuUsPerRequest: median(cpu.get(mode) as number[]) };
    };
    const svc = side('svc');
    const bare = side('bare');
    const fastify = side('fastify');
    return {
      svcEventsPerSecond: svc.eventsPerSecond, bareEventsPerSecond: bare.eventsPerSecond, svcMedian: svc.median, bareMedian: bare.median,
      ratio: svc.median / bare.median, svc, bare, fastify, floorRatio: fastify.median / bare.median,
      uniqueKeyFloorUs: uniqueKeyFloor(Math.max(rounds, 3)),
      validateUsPerRequest: validationCost(Math.max(rounds, 3), batchSize),
      svcRssAtRest, svcRssPeak, bareRssAtRest, bareRssPeak, errors, connections,
    };
  } finally {
    for (const s of servers.values()) s.child.kill('SIGTERM');
  }
}

/** The result as the table `npm run bench` prints. */
export function formatIngestBench(r: IngestBenchResult): string {
  const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`;
  const rate = (n: number): string => Math.round(n).toLocaleString('en-US');
  const us = (n: number): string => `${Math.round(n).toLocaleString('en-US')} µs`;
  const rows = [
    ['server', 'events/s (median)', 'rounds', 'vs bare', 'CPU/request', 'RSS at rest', 'RSS under load'],
    ['svc (Fastify + durable SQLite)', rate(r.svc.median), r.svc.eventsPerSecond.map(rate).join(' / '), r.ratio.toFixed(2),
      us(r.svc.cpuUsPerRequest), mb(r.svcRssAtRest), mb(r.svcRssPeak)],
    ['bare node:http (parse + discard)', rate(r.bare.median), r.bare.eventsPerSecond.map(rate).join(' / '), '1.00',
      us(r.bare.cpuUsPerRequest), mb(r.bareRssAtRest), mb(r.bareRssPeak)],
    ['floor: Fastify route (parse + discard)', rate(r.fastify.median), r.fastify.eventsPerSecond.map(rate).join(' / '),
      r.floorRatio.toFixed(2), us(r.fastify.cpuUsPerRequest), '', ''],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [
    `Ingestion: POST …/track, batches of 50 events, ${r.connections} connections, rotating rounds`,
    line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line),
    `ratio svc / bare = ${r.ratio.toFixed(2)} (goal ≥ 0.5)${r.errors ? `  — ${r.errors} non-2xx/errors` : ''}`,
    budgetLine(r),
  ].join('\n');
}

/**
 * What the goal leaves per request in CPU terms, next to what the issue itself makes every request pay: at half of
 * bare's throughput svc may spend about twice bare's CPU per request; the Fastify route (the stack's framework,
 * parsing included), validating every event, and the events' unique keys in the database (here at their
 * cheapest: 16-byte keys into an in-memory table) come before storing rows, fsync or any model update.
 */
function budgetLine(r: IngestBenchResult): string {
  const budget = r.bare.cpuUsPerRequest / 0.5;
  const keys = r.uniqueKeyFloorUs * 50;
  const floor = r.fastify.cpuUsPerRequest + r.validateUsPerRequest + keys;
  return `CPU budget at the goal ≈ ${Math.round(budget)} µs/request (2 × bare); required before any storing: Fastify route ` +
    `${Math.round(r.fastify.cpuUsPerRequest)} µs + validating 50 events ${Math.round(r.validateUsPerRequest)} µs + their 50 unique keys into ` +
    `in-memory SQLite ${Math.round(keys)} µs (${r.uniqueKeyFloorUs.toFixed(1)} µs/key) = ${Math.round(floor)} µs = ${(floor / budget).toFixed(2)} × the budget`;
}
