// The feed endpoint's latency in two builds of the service (two checkouts), paired in one process: each build gets
// the same catalog (50,000 products) and the same seeded history (200,000 product events by default), then every
// strategy is asked by both in alternating rounds of 100 identical requests (20 rounds), and the table gives B/A at p50
// and p99. A change to the feed path is judged by it against the build before it:
//   git worktree add /tmp/before <commit> && ln -s "$PWD/node_modules" /tmp/before/node_modules
//   node --import tsx bench/feed-build-pair.mts /tmp/before . [events]
// An .mts file: it imports each checkout's modules by path, at the top level.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';

const [treeA, treeB, eventsArg] = process.argv.slice(2);
const EVENTS = Number(eventsArg ?? 200000);
const PRODUCTS = 50000;
const PROFILES = Math.max(1000, Math.floor(EVENTS / 50));
const STRATEGIES = ['popular', 'viewed-together', 'bought-together', 'recently-viewed', 'personalized'];
const AUTH = { authorization: `Basic ${Buffer.from('web1:p4ss').toString('base64')}` };

function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => { s = (s + 0x6d2b79f5) >>> 0; let t = s; t = Math.imul(t ^ (t >>> 15), t | 1); t ^= t + Math.imul(t ^ (t >>> 7), t | 61); return ((t ^ (t >>> 14)) >>> 0) / 4294967296; };
}
const pickOf = (r: () => number) => () => `p${Math.floor(PRODUCTS * r() ** 3)}`;

function batches(): any[][] {
  const r = seeded(42); const pick = pickOf(r); const now = Date.now();
  const out: any[][] = []; let batch: any[] = []; let made = 0; let session = 0;
  const push = (e: any) => { batch.push({ ...e, eventId: randomUUID(), pageId: 'page' }); made++; if (batch.length >= 2000) { out.push(batch); batch = []; } };
  while (made < EVENTS) {
    session++; const profileId = `u${Math.floor(r() * PROFILES)}`; const sessionId = `s${session}`;
    let at = now - Math.floor(r() * 30 * 86400000); const viewed: string[] = [];
    for (let i = 0; i < 6; i++) { const productId = pick(); viewed.push(productId); at += 20000; push({ type: 'product', name: 'Product viewed', profileId, sessionId, timestamp: new Date(at).toISOString(), data: { productId, quantity: 1 } }); }
    if (r() < 0.3) push({ type: 'product', name: 'Added to cart', profileId, sessionId, timestamp: new Date(at).toISOString(), data: { productId: viewed[0], quantity: 1 } });
    if (r() < 0.1) for (const productId of viewed.slice(0, 2 + Math.floor(r() * 2))) push({ type: 'product', name: 'Product ordered', profileId, sessionId, timestamp: new Date(at).toISOString(), data: { productId, quantity: 1, orderId: `o${session}` } });
  }
  if (batch.length) out.push(batch);
  return out;
}

async function setup(tree: string, events: any[][]) {
  const { buildApp } = await import(join(tree, 'server/app.ts'));
  const { openSqliteStorage } = await import(join(tree, 'server/storage/sqlite/sqlite-storage.ts'));
  const { SCHEMA } = await import(join(tree, 'server/schema.ts'));
  const { upsertProducts } = await import(join(tree, 'server/recommendations/catalog-store.ts'));
  const { ingestBatch } = await import(join(tree, 'server/programs.ts'));
  const { applyModelsNow, CHUNK_EVENTS } = await import(join(tree, 'server/recommendations/model-inbox.ts'));
  const storage = await openSqliteStorage(join(mkdtempSync(join(tmpdir(), 'feed-pair-')), 'svc.db'), SCHEMA);
  const config = { organizations: { acme: { projects: { shop: { apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
    feeds: STRATEGIES.map((strategy, i) => ({ id: i + 1, strategy })), limits: { writeKeyPerSecond: 1_000_000 } } } } } };
  const app = await buildApp({ config, storage });
  await upsertProducts(storage, 'acme/shop', Array.from({ length: PRODUCTS }, (_, i) => ({
    id: `p${i}`, title: `Product ${i}`, price: (i % 200) + 0.99, currency: 'EUR', url: `/p/${i}`, image: `/img/${i}.jpg`, category: `c${i % 40}`, available: i % 50 !== 7 })));
  for (const b of events) { await ingestBatch(storage, 'acme/shop', 'web', b); await applyModelsNow(storage, CHUNK_EVENTS); }
  return app;
}

async function time(app: any, url: string, bodies: any[]): Promise<number[]> {
  const out: number[] = [];
  for (const payload of bodies) {
    const t = performance.now();
    const res = await app.inject({ method: 'POST', url, headers: AUTH, payload });
    out.push(performance.now() - t);
    if (res.statusCode !== 200) throw new Error(res.body);
  }
  return out;
}
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(s.length * p))]!; };

const events = batches();
const A = await setup(treeA!, events);
const B = await setup(treeB!, events);
const r = seeded(7); const pick = pickOf(r);
console.log(`| strategy | A p50 | B p50 | B/A p50 | A p99 | B p99 | B/A p99 |\n|---|---|---|---|---|---|---|`);
for (const [i] of STRATEGIES.entries()) {
  const url = `/v1/acme/projects/shop/feeds/${i + 1}/data`;
  const a: number[] = []; const b: number[] = [];
  const warm = Array.from({ length: 50 }, () => ({ profileId: `u${Math.floor(r() * PROFILES)}`, sourceId: 'web', limit: 8, fields: ['title', 'price', 'image', 'url'], productId: pick() }));
  await time(A, url, warm); await time(B, url, warm);
  for (let round = 0; round < 20; round++) {
    const bodies = Array.from({ length: 100 }, () => ({ profileId: `u${Math.floor(r() * PROFILES)}`, sourceId: 'web', limit: 8, fields: ['title', 'price', 'image', 'url'], productId: pick() }));
    if (round % 2 === 0) { a.push(...await time(A, url, bodies)); b.push(...await time(B, url, bodies)); }
    else { b.push(...await time(B, url, bodies)); a.push(...await time(A, url, bodies)); }
  }
  const f = (x: number) => x.toFixed(2);
  console.log(`| ${STRATEGIES[i]} | ${f(pct(a, .5))} | ${f(pct(b, .5))} | ${f(pct(b, .5) / pct(a, .5))} | ${f(pct(a, .99))} | ${f(pct(b, .99))} | ${f(pct(b, .99) / pct(a, .99))} |`);
}
await A.close(); await B.close();
process.exit(0);
