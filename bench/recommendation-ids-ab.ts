// What recommendation ids cost ingestion, by paired runs:
// `node --import tsx bench/recommendation-ids-ab.ts [--mode=svc|svc-pg] [--pairs=8] [--seconds=6] [--connections=10]`.
// Both sides are this checkout's ingestion server (bench/ingest-server.ts: the real service, durable, a fresh database
// each start) under the same load of a shop's pages as a browser batches them: per page a page view, a product view,
// six card impressions of a recommendation, a card click and a banner click, in batches of 50 fresh events. Side B's
// impressions and clicks carry `{productId, position, feed, recommendationId}` as <svc-recommendations> sends them
// (one id per page's list, a UUID as the service issues them); side A's the same without `recommendationId`.
// Ingestion reads nothing by the id (the report joins it to the issued answers later), so what B pays is the id's
// bytes: parsed, validated and stored in the payload. Prints each run, then B / A per pair (pairs alternate which side
// runs first) with the median and the range.
import { randomUUID } from 'node:crypto';
import { uuid } from '../src/uuid.js';
import { load, median, startServer, type Mode } from './ingest-bench.js';

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
const range = (xs: number[]): string => `${Math.min(...xs).toFixed(3)}–${Math.max(...xs).toFixed(3)}`;
const sorted = [...cost].sort((a, b) => a - b);
console.log(`\n## Recommendation ids at ingestion (${mode}, ${pairs} pairs of ${seconds} s, ${connections} connections, batches of ${BATCH})\n`);
console.log('| | per pair | median | range | goal |\n|---|---|---:|---|---|');
console.log(`| time per event, with ids / without (A/B sustained events/s) | ${cost.map((r) => r.toFixed(3)).join(' / ')} | ${median(cost).toFixed(3)} | `
  + `${range(cost)} | ${median(cost) <= 1.05 ? 'met' : 'missed'} (≤ 1.05) |`);
console.log(`| CPU per request, with ids / without | ${cpu.map((r) => r.toFixed(3)).join(' / ')} | ${median(cpu).toFixed(3)} | ${range(cpu)} | |`);
console.log(`\nMiddle half of the pairs: ${sorted[Math.floor(pairs / 4)]!.toFixed(3)}–${sorted[Math.ceil((3 * pairs) / 4) - 1]!.toFixed(3)}`);
