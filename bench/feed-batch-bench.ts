// One page, two widgets: what the page's recommendations cost the service with and without the feed batch
// (`POST …/feeds/data`). A product page shows "bought together" (4) and "popular" (8). Measured, in alternating rounds
// over the same pages, through the real routes (app.inject: routing, auth, validation, storage), on SQLite:
//   - floor: two feed requests at once (the SDK before the batch: no dedupe, one round trip on the network);
//   - batch: one batch of both, the second leaving out the first's products (one round trip);
//   - told: the two feed requests one after the other, the second with `excludeProducts` (dedupe without the batch:
//     two round trips on the network, which app.inject does not count).
// A page's time is until both answers are in. Each batch answer is checked to repeat no product, so the dedupe ran.
// Run: node --import tsx bench/feed-batch-bench.ts (BENCH_FEED_EVENTS, default 100,000 events over 5,000 products).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import { upsertProducts } from '../server/recommendations/catalog-store.js';
import { CHUNK_EVENTS, applyModelsNow } from '../server/recommendations/model-inbox.js';
import { ingestBatch } from '../server/programs.js';
import { SCHEMA } from '../server/schema.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../wire/event.js';
import { uuid } from '../src/uuid.js';
import { seededRandom } from './seeded-random.js';

const PRODUCTS = 5_000;
const EVENTS = Number(process.env.BENCH_FEED_EVENTS ?? 100_000);
const ROUNDS = 5;
const PAGES = 200;
const AUTH = { authorization: `Basic ${Buffer.from('web1:p4ss').toString('base64')}` };
const BASE = '/v1/acme/projects/shop/feeds';
const FIELDS = ['title', 'price', 'image', 'url'];

/** Sessions of four views from a skewed pick, a third of them ordering two or three of those products together. */
function* history(random: () => number): Generator<ServiceEvent[]> {
  const pick = (): string => `p${Math.floor(PRODUCTS * random() ** 3)}`;
  let batch: ServiceEvent[] = [];
  for (let session = 0, made = 0; made < EVENTS; session++) {
    const base = { profileId: `u${session % 2000}`, sessionId: `s${session}`, pageId: 'page', timestamp: new Date(Date.now() - session * 1000).toISOString() };
    const viewed = Array.from({ length: 4 }, pick);
    const events: ServiceEvent[] = viewed.map((productId) => ({ ...base, eventId: uuid(), type: 'product', name: 'Product viewed', data: { productId, quantity: 1 } }));
    if (random() < 0.33) {
      for (const productId of viewed.slice(0, 2 + Math.floor(random() * 2))) {
        events.push({ ...base, eventId: uuid(), type: 'product', name: 'Product ordered', data: { productId, quantity: 1, orderId: `o${session}` } });
      }
    }
    batch.push(...events);
    made += events.length;
    if (batch.length >= 20_000) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

type Page = { profileId: string; productId: string };
type Way = (app: FastifyInstance, page: Page) => Promise<string[][]>;

const post = async (app: FastifyInstance, url: string, payload: Record<string, unknown>): Promise<Record<string, unknown>> => {
  const res = await app.inject({ method: 'POST', url, headers: AUTH, payload });
  if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
  return res.json() as Record<string, unknown>;
};
const ids = (answer: unknown): string[] => ((answer as { products: { id: string }[] }).products).map((p) => p.id);
const single = (app: FastifyInstance, page: Page, feed: number, limit: number, excludeProducts?: string[]) =>
  post(app, `${BASE}/${feed}/data`, { ...page, sourceId: 'web', limit, fields: FIELDS, ...(excludeProducts ? { excludeProducts } : {}) });

const WAYS: [string, Way][] = [
  ['floor: two feed requests at once', async (app, page) => (await Promise.all([single(app, page, 1, 4), single(app, page, 2, 8)])).map(ids)],
  ['batch: one request, deduped', async (app, page) => {
    const { answers } = await post(app, `${BASE}/data`, { ...page, sourceId: 'web', requests: [{ feed: 1, limit: 4, fields: FIELDS }, { feed: 2, limit: 8, fields: FIELDS }] });
    return (answers as unknown[]).map(ids);
  }],
  ['told: two requests in turn, the second with excludeProducts', async (app, page) => {
    const first = ids(await single(app, page, 1, 4));
    return [first, ids(await single(app, page, 2, 8, first))];
  }],
];

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

const dir = mkdtempSync(join(tmpdir(), 'svc-feed-batch-bench-'));
const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
const app = await buildApp({
  storage,
  config: { organizations: { acme: { projects: { shop: {
    apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], limits: { writeKeyPerSecond: 1_000_000 },
    feeds: [{ id: 1, strategy: 'bought-together' }, { id: 2, strategy: 'popular' }],
  } } } } },
});
try {
  await upsertProducts(storage, 'acme/shop', Array.from({ length: PRODUCTS }, (_, i) => ({ id: `p${i}`, title: `Product ${i}`, price: i % 90, url: `/p/${i}`, image: `/i/${i}.jpg` })));
  const random = seededRandom(50);
  for (const batch of history(random)) {
    await ingestBatch(storage, 'acme/shop', 'web', batch);
    await applyModelsNow(storage, CHUNK_EVENTS);
  }
  const pages: Page[] = Array.from({ length: PAGES }, (_, i) => ({ profileId: `v${i}`, productId: `p${Math.floor(PRODUCTS * random() ** 3)}` }));
  const times = WAYS.map((): number[] => []);
  let repeats = 0;
  let batched = 0;
  for (const [, way] of WAYS) for (const page of pages.slice(0, 20)) await way(app, page); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    for (const [w, [, way]] of WAYS.entries()) {
      for (const page of pages) {
        const start = process.hrtime.bigint();
        const lists = await way(app, page);
        times[w]!.push(Number(process.hrtime.bigint() - start) / 1e6);
        if (w === 1) {
          batched++;
          repeats += lists[1]!.filter((id) => lists[0]!.includes(id)).length;
          if (lists[0]!.length !== 4 || lists[1]!.length !== 8) throw new Error(`a short batch answer: ${JSON.stringify(lists)}`);
        }
      }
    }
  }
  if (batched !== ROUNDS * PAGES || repeats !== 0) throw new Error(`the batch ran ${batched} times and repeated ${repeats} products`);
  const floor = percentile([...times[0]!].sort((a, b) => a - b), 0.5);
  console.log(`A product page with two widgets (bought-together 4, popular 8), ${PRODUCTS} products, ${EVENTS} events, ${ROUNDS} rounds × ${PAGES} pages`);
  console.log('| way | page p50 ms | page p99 ms | p50 ÷ floor | round trips on a network |');
  console.log('|---|---|---|---|---|');
  for (const [w, [name]] of WAYS.entries()) {
    const sorted = [...times[w]!].sort((a, b) => a - b);
    console.log(`| ${name} | ${percentile(sorted, 0.5).toFixed(2)} | ${percentile(sorted, 0.99).toFixed(2)} | ${(percentile(sorted, 0.5) / floor).toFixed(2)} | ${w === 2 ? 2 : 1} |`);
  }
  console.log(`Batch answers checked: ${batched}, products repeated across the two widgets: ${repeats}.`);
} finally {
  await app.close();
  await storage.close();
  rmSync(dir, { recursive: true, force: true });
}
