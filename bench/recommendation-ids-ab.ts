// What recommendation ids cost ingestion, by paired runs:
// `node --import tsx bench/recommendation-ids-ab.ts [--mode=svc|svc-pg] [--pairs=8] [--seconds=6] [--connections=10]`,
// or `… --inject=2000` for pairs of single requests in one process (below).
// Both sides are this checkout's ingestion server (bench/ingest-server.ts: the real service, durable, a fresh database
// each start) under the same load of a shop's pages as a browser batches them: per page a page view, a product view,
// six card impressions of a recommendation, a card click and a banner click, in batches of 50 fresh events. Side B's
// impressions and clicks carry `{productId, position, feed, recommendationId}` as <svc-recommendations> sends them
// (one id per page's list, a UUID as the service issues them); side A's the same without `recommendationId`.
// Ingestion reads nothing by the id (the report joins it to the issued answers later), so what B pays is the id's
// bytes: parsed, validated and stored in the payload. Prints each run, then B / A per pair (pairs alternate which side
// runs first) with the median and the range.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { SCHEMA } from '../server/schema.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import { uuid } from '../src/uuid.js';
import { load, median, startServer, type Mode } from './ingest-bench.js';
import { goalMark } from './goal-mark.js';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const mode = arg('mode', 'svc') as Mode;
const pairs = Number(arg('pairs', '8'));
const seconds = Number(arg('seconds', '6'));
const connections = Number(arg('connections', '10'));
const BATCH = 50;
const CARDS = 6;

let browsers = 0;

/** A browser's batch of `size` events: pages of a shop with a feed on each; `withIds`: its cards carry the answer's id. */
function pages(withIds: boolean): (size: number) => string {
  return (size) => {
    const browser = ++browsers;
    const now = new Date().toISOString();
    const base = (i: number) => ({
      eventId: uuid(), profileId: `ab-profile-${browser}`, sessionId: `ab-session-${browser}`, pageId: `ab-page-${browser}-${Math.floor(i / 10)}`, timestamp: now,
    });
    const batch: object[] = [];
    let list: string[] = [];
    let recommendationId = '';
    for (let i = 0; batch.length < size; i++) {
      const slot = i % 10;
      const card = (name: string, at: number) => ({
        ...base(i), type: 'product', name, data: { productId: list[at], position: at + 1, feed: 1, ...(withIds ? { recommendationId } : {}) },
      });
      if (slot === 0) {
        list = Array.from({ length: CARDS }, () => `p${Math.floor(5000 * Math.random() ** 3)}`);
        recommendationId = randomUUID();
        batch.push({ ...base(i), type: 'page', name: 'View Page', data: { path: `/product/${list[0]}` } });
      } else if (slot === 1) batch.push({ ...base(i), type: 'product', name: 'Product viewed', data: { productId: list[0], quantity: 1 } });
      else if (slot <= 1 + CARDS) batch.push(card('Product impression', slot - 2));
      else if (slot === 2 + CARDS) batch.push(card('Product clicked', Math.floor(CARDS * Math.random() ** 2)));
      else batch.push({ ...base(i), type: 'track', name: 'Clicked banner', data: { position: slot, label: 'hero' } });
    }
    return JSON.stringify({ batch });
  };
}

const BODIES = { A: pages(false), B: pages(true) };

async function run(side: 'A' | 'B'): Promise<{ sustained: number; cpu: number }> {
  const server = await startServer(mode);
  try {
    // A short warm-up (statements prepared, threads started), then the measured load.
    await load(server, 1, connections, BATCH, BODIES[side]);
    const r = await load(server, seconds, connections, BATCH, BODIES[side]);
    if (r.errors > 0) throw new Error(`${side}: ${r.errors} errors`);
    const sustained = (r.eventsPerSecond * seconds) / (seconds + r.catchUpSeconds);
    console.log(`${side} ${Math.round(r.eventsPerSecond)} events/s acknowledged, ${Math.round(sustained)} sustained, ${r.cpuUsPerRequest.toFixed(0)} µs CPU per request`);
    return { sustained, cpu: r.cpuUsPerRequest };
  } finally {
    server.child.kill();
  }
}

/**
 * `--inject=N`: N pairs of single requests in one process, through the real route (app.inject: auth, parsing,
 * validation, a durable commit on SQLite), A and B alternating request by request, so that a shared machine's drift
 * hits both alike; the ratio of their total times.
 */
async function injected(n: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-ids-ab-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
  const app = await buildApp({ storage, config: { organizations: { acme: { projects: { shop: {
    apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], limits: { writeKeyPerSecond: 1_000_000 },
  } } } } } });
  const headers = { authorization: `Basic ${Buffer.from('web1:p4ss').toString('base64')}`, 'content-type': 'application/json' };
  const time = async (side: 'A' | 'B'): Promise<number> => {
    const payload = BODIES[side](BATCH);
    const started = process.hrtime.bigint();
    const res = await app.inject({ method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers, payload });
    if (res.statusCode !== 200 || (res.json() as { accepted: number }).accepted !== BATCH) throw new Error(`${side}: ${res.statusCode} ${res.body}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  try {
    for (let i = 0; i < 200; i++) await time(i % 2 ? 'A' : 'B');
    const totals = { A: 0, B: 0 };
    const perHundred: number[] = [];
    let chunk = { A: 0, B: 0 };
    for (let i = 0; i < n; i++) {
      for (const side of (i % 2 === 0 ? ['A', 'B'] : ['B', 'A']) as ('A' | 'B')[]) {
        const ms = await time(side);
        totals[side] += ms;
        chunk[side] += ms;
      }
      if ((i + 1) % 100 === 0) {
        perHundred.push(chunk.B / chunk.A);
        chunk = { A: 0, B: 0 };
      }
    }
    const sorted = [...perHundred].sort((a, b) => a - b);
    console.log(`\n## Recommendation ids at ingestion, in process (SQLite, ${n} pairs of requests of ${BATCH} events)\n`);
    console.log(`time with ids / without: ${(totals.B / totals.A).toFixed(3)} overall (${(totals.A / n).toFixed(2)} ms vs ${(totals.B / n).toFixed(2)} ms `
      + `a request); per 100 pairs median ${median(perHundred).toFixed(3)}, middle half ${sorted[Math.floor(sorted.length / 4)]!.toFixed(3)}–`
      + `${sorted[Math.ceil((3 * sorted.length) / 4) - 1]!.toFixed(3)}, range ${range(perHundred)}; goal ${goalMark(totals.B / totals.A <= 1.05, '≤ 1.05')}`);
  } finally {
    await app.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const range = (xs: number[]): string => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
const inject = Number(arg('inject', '0'));
if (inject > 0) {
  await injected(inject);
  process.exit(0);
}

const cost: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < pairs; i++) {
  const order: ('A' | 'B')[] = i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  const got: Record<string, { sustained: number; cpu: number }> = {};
  for (const side of order) got[side] = await run(side);
  // Every run stored events: a side that did nothing would show as 0 events/s here, not as a ratio.
  if (!(got.A!.sustained > 0 && got.B!.sustained > 0)) throw new Error('a side stored nothing');
  // The cost of the ids: how much longer B takes per event than A (throughput A / B), and its CPU per request.
  cost.push(got.A!.sustained / got.B!.sustained);
  cpu.push(got.B!.cpu / got.A!.cpu);
}
const sorted = [...cost].sort((a, b) => a - b);
console.log(`\n## Recommendation ids at ingestion (${mode}, ${pairs} pairs of ${seconds} s, ${connections} connections, batches of ${BATCH})\n`);
console.log('| | per pair | median | range | goal |\n|---|---|---:|---|---|');
console.log(`| time per event, with ids / without (A/B sustained events/s) | ${cost.map((r) => r.toFixed(3)).join(' / ')} | ${median(cost).toFixed(3)} | `
  + `${range(cost)} | ${goalMark(median(cost) <= 1.05, '≤ 1.05')} |`);
console.log(`| CPU per request, with ids / without | ${cpu.map((r) => r.toFixed(3)).join(' / ')} | ${median(cpu).toFixed(3)} | ${range(cpu)} | |`);
console.log(`\nMiddle half of the pairs: ${sorted[Math.floor(pairs / 4)]!.toFixed(3)}–${sorted[Math.ceil((3 * pairs) / 4) - 1]!.toFixed(3)}`);
