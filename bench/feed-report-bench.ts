// The feed report at shop scale: 1,000,000 impressions and 50,000 clicks of one feed over four weeks (BENCH_FEED_REPORT_SCALE
// scales them), beside a second feed's tenth of that, with carts and orders (some after a click, some not) across
// 5,000 profiles of which 1,200 signed in and 400 of those on a second device. Measured in one run, on SQLite and on
// PostgreSQL (a fresh database) when it answers:
// - report: `GET …/feeds/1/report` through the real route (app.inject: auth, query, reads, attribution), alone and
//   with by=position, by=day and by=strategy;
// - floor: the cheapest question over the same rows — one SQL aggregate that counts the feed's impressions and clicks
//   in the range joined to the recommendations the service issued (the join the report cannot skip: an id it never
//   issued counts nowhere; on the events' recommendation_id column, as the report joins), grouped by event name. No
//   positions, no conversions, no people, no prices.
// Rounds alternate report and floor; the table gives medians and maxima and the ratio of medians (goal ≤ 3× and < 1 s).
//
// The data is generated with a fixed seed and stored through the service's own programs: ingestBatch for events (the
// track route's program, batches of 2,000 received as they happen, then the inbox applied: models and the report's
// card counts), upsertProducts for the catalog, and the issued recommendations as FeedService.answer records them (one
// row per answer), many rows per statement.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import type { ServiceConfigFile } from '../server/config/config-types.js';
import { ingestBatch } from '../server/programs.js';
import { applyModelsNow } from '../server/recommendations/model-inbox.js';
import { upsertProducts } from '../server/recommendations/catalog-store.js';
import { insertRows, valuesOp } from '../server/storage/sql-program.js';
import { openPostgresStorage } from '../server/storage/postgres/postgres-storage.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../server/storage/storage.js';
import { SCHEMA } from '../server/schema.js';
import type { ServiceEvent } from '../wire/event.js';
import { postgresAvailable } from './ingest-bench.js';
import { DAY, median, PROJECT, START, timed, uuid } from './results-data.js';
import { seededRandom } from './seeded-random.js';
import { goalMark } from './goal-mark.js';

const PG_ROOT = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const ADMIN = { authorization: 'Bearer adm1.s3cret' };
const SPAN = 28 * DAY;
const PRODUCTS = 2000;
const PROFILES = 5000;
/** Profiles v0…v1199 signed in as user0…user1199; v4600…v4999 are second devices of user0…user399. */
const SIGNED_IN = 1200;
const SECOND_DEVICES = 400;
const LIST = 8;
const ODD_IDS = ['p"q', ',p', 'p\\q'];
/**
 * Events per stored batch. The applier takes at least one inbox row per chunk and, on PostgreSQL, locks the basket of
 * each session in it: rows of 20,000 ran out of the lock table (max_locks_per_transaction).
 */
const BATCH = 2_000;
const RANGE = `from=${new Date(START).toISOString()}&to=${new Date(START + SPAN).toISOString()}`;
export const BY = ['', 'position', 'day', 'strategy'] as const;

export function config(): ServiceConfigFile {
  return {
    organizations: { acme: { adminKeys: ['adm1.s3cret'], projects: { shop: {
      apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
      feeds: [{ id: 1, strategy: 'popular' }, { id: 2, strategy: 'viewed-together' }, { id: 3, strategy: 'personalized', attributionHours: 168 }],
    } } } },
  };
}

/** What was generated, to check the answer against. */
interface Generated {
  impressions: number;
  clicks: number;
  carts: number;
  orders: number;
}

/** Time-ordered event ids (UUID v7 shape from the event's time and a counter), as the SDK mints them. */
function eventIds(): (at: number) => string {
  let n = 0;
  return (at) => {
    const ms = at.toString(16).padStart(12, '0');
    const c = (n++).toString(16).padStart(12, '0');
    return `${ms.slice(0, 8)}-${ms.slice(8)}-7000-8000-${c}`;
  };
}

/** A compact event before it is built: time, then what makes it. */
type Row = [at: number, make: () => ServiceEvent];

export async function generate(storage: Storage, scale: number): Promise<Generated> {
  const rand = seededRandom(49);
  const pick = (n: number): number => Math.floor(rand() * n);
  // Three ids that JSON writes with an escape or that a comma starts, for the report's rare path.
  const idOf = (i: number): string => ODD_IDS[PRODUCTS - 1 - i] ?? `p${i}`;
  const catalog = Array.from({ length: PRODUCTS }, (_, i) => ({ id: idOf(i), title: `Product ${i}`, price: 5 + (i % 40) * 5, currency: 'EUR' }));
  await upsertProducts(storage, PROJECT, catalog);
  // A person's profiles: the signed-in ones' second devices act for them too.
  const devicesOf = (profile: number): number[] => (profile < SECOND_DEVICES ? [profile, PROFILES - SECOND_DEVICES + profile] : [profile]);
  const rows: Row[] = [];
  const id = eventIds();
  const event = (at: number, type: ServiceEvent['type'], name: string, profile: number, data: Record<string, unknown>, userId?: string): Row =>
    [at, () => ({
      eventId: id(at), type, name, profileId: `v${profile}`, sessionId: `s${profile}-${Math.floor(at / DAY)}`, pageId: 'p',
      timestamp: new Date(at).toISOString(), data, ...(userId !== undefined ? { userId } : {}),
    })];
  for (let u = 0; u < SIGNED_IN; u++) {
    rows.push(event(START, 'identify', 'Identify', u, {}, `user${u}`));
    if (u < SECOND_DEVICES) rows.push(event(START, 'identify', 'Identify', PROFILES - SECOND_DEVICES + u, {}, `user${u}`));
  }
  const issued: (string | number)[][] = [];
  const generated: Generated = { impressions: 0, clicks: 0, carts: 0, orders: 0 };
  const product = (): string => idOf(Math.floor(PRODUCTS * rand() ** 2));
  for (const [feed, strategy, answers, clicks] of [[1, 'popular', 125_000, 50_000], [2, 'viewed-together', 12_500, 5000]] as const) {
    const lists: { rid: string; profile: number; at: number; products: string[] }[] = [];
    for (let a = 0; a < Math.round(answers * scale); a++) {
      const profile = pick(PROFILES);
      const at = START + pick(SPAN - DAY);
      const products = new Set<string>();
      while (products.size < LIST) products.add(product());
      const list = { rid: uuid(rand), profile, at, products: [...products] };
      lists.push(list);
      issued.push([PROJECT, list.rid, feed, strategy, `v${profile}`, JSON.stringify(list.products), at]);
      list.products.forEach((productId, i) => {
        rows.push(event(at + 500, 'product', 'Product impression', profile, { productId, position: i + 1, feed, recommendationId: list.rid }));
      });
      if (feed === 1) generated.impressions += LIST;
    }
    for (let c = 0; c < Math.round(clicks * scale); c++) {
      const list = lists[pick(lists.length)]!;
      const position = Math.floor(LIST * rand() ** 2);
      const productId = list.products[position]!;
      const at = list.at + 5000 + pick(60_000);
      rows.push(event(at, 'product', 'Product clicked', list.profile, { productId, position: position + 1, feed, recommendationId: list.rid }));
      if (feed === 1) generated.clicks++;
      // A fifth of the clicks lead to a cart within two days (on any of the person's devices; some after the window),
      // half of those to an order, most with the platform's price.
      if (rand() < 0.2) {
        const devices = devicesOf(list.profile);
        const cartAt = at + pick(2 * DAY);
        rows.push(event(cartAt, 'product', 'Added to cart', devices[pick(devices.length)]!, { productId, quantity: 1 }));
        if (feed === 1) generated.carts++;
        if (rand() < 0.5) {
          const orderAt = cartAt + pick(3_600_000);
          const priced = rand() < 0.7 ? { price: 9.5, currency: 'EUR' } : {};
          rows.push(event(orderAt, 'product', 'Product ordered', devices[pick(devices.length)]!, { productId, quantity: 1 + pick(2), orderId: `o${c}`, ...priced }));
          if (feed === 1) generated.orders++;
        }
      }
    }
  }
  // Carts and orders nobody clicked a card for.
  for (let i = 0; i < Math.round(10_000 * scale); i++) {
    const profile = pick(PROFILES);
    const at = START + pick(SPAN);
    const productId = product();
    rows.push(event(at, 'product', 'Added to cart', profile, { productId, quantity: 1 }));
    if (i % 3 === 0) rows.push(event(at + 60_000, 'product', 'Product ordered', profile, { productId, quantity: 1, orderId: `x${i}`, price: 20, currency: 'EUR' }));
  }
  for (let i = 0; i < issued.length; i += 5000) {
    const chunk = issued.slice(i, i + 5000);
    await storage.transaction(function* () {
      yield insertRows('INSERT INTO recommendations (project, recommendation_id, feed_id, strategy, profile_id, products, issued_at)', chunk);
    });
  }
  rows.sort((a, b) => a[0] - b[0]);
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    await ingestBatch(storage, PROJECT, 'web', batch.map(([, make]) => make()), { receivedAt: batch[batch.length - 1]![0] });
  }
  // What the service's applier does after ingestion: the models and the report's card counts catch up with the inbox.
  await applyModelsNow(storage);
  return generated;
}

/** The floor: the feed's impressions and clicks in the range that join an issued recommendation, counted per name. */
const FLOOR_SQL = `SELECT e.name, COUNT(*) FROM events e JOIN recommendations r
    ON r.project = e.project AND r.recommendation_id = e.recommendation_id
  WHERE e.project = ? AND e.name IN ('Product impression', 'Product clicked') AND e.received_at >= ? AND e.ts < ?
    AND r.feed_id = ?
  GROUP BY e.name`;

async function floor(storage: Storage): Promise<Map<string, number>> {
  const values = await storage.run(function* () {
    return (yield valuesOp(FLOOR_SQL, PROJECT, START, START + SPAN, 1)).values ?? [];
  });
  return new Map(values.map(([name, n]) => [String(name), Number(n)]));
}

interface Answer { totals: { impressions: number; clicks: number; carts: number; orders: number }; rows?: unknown[] }

async function report(app: FastifyInstance, by: string): Promise<Answer> {
  const res = await app.inject({ method: 'GET', url: `/v1/acme/projects/shop/feeds/1/report?${RANGE}${by ? `&by=${by}` : ''}`, headers: ADMIN });
  if (res.statusCode !== 200) throw new Error(`report answered ${res.statusCode}: ${res.body}`);
  return res.json() as Answer;
}

export interface FeedReportTimes {
  by: string;
  reportMs: number[];
  floorMs: number[];
  rows: number;
}

export interface FeedReportSide {
  database: 'SQLite' | 'PostgreSQL';
  setupSeconds: number;
  generated: Generated;
  /** The report's totals and the floor's counts: the report did read the rows the floor counted. */
  answer: Answer['totals'];
  floorCounts: { impressions: number; clicks: number };
  times: FeedReportTimes[];
}

async function measure(database: FeedReportSide['database'], storage: Storage, scale: number, rounds: number): Promise<FeedReportSide> {
  const started = Date.now();
  const generated = await generate(storage, scale);
  // A live PostgreSQL has statistics of its tables (autovacuum analyzes a table within a minute of a tenth of it
  // changing); a database filled a moment ago has none yet, and its planner guesses one row per scan. Measured as it
  // runs in a shop, not in the minute after a bulk load. (SQLite's planner keeps no statistics unless asked: the
  // service never asks, so neither does the bench.)
  if (database === 'PostgreSQL') await storage.run(function* () { yield valuesOp('ANALYZE'); });
  const setupSeconds = (Date.now() - started) / 1000;
  const app = await buildApp({ config: config(), storage });
  try {
    // One of each first: statements prepared, pages cached, JIT warm.
    const answer = await report(app, '');
    const counts = await floor(storage);
    const times: FeedReportTimes[] = [];
    for (const by of BY) {
      const t: FeedReportTimes = { by, reportMs: [], floorMs: [], rows: (await report(app, by)).rows?.length ?? 0 };
      for (let r = 0; r < rounds; r++) {
        const [first, second] = r % 2 === 0 ? ['report', 'floor'] : ['floor', 'report'];
        for (const side of [first, second]) {
          if (side === 'report') t.reportMs.push((await timed(() => report(app, by)))[1]);
          else t.floorMs.push((await timed(() => floor(storage)))[1]);
        }
      }
      times.push(t);
    }
    return {
      database, setupSeconds, generated, answer: answer.totals, times,
      floorCounts: { impressions: counts.get('Product impression') ?? 0, clicks: counts.get('Product clicked') ?? 0 },
    };
  } finally {
    await app.close();
  }
}

/** A fresh, empty PostgreSQL database (dropped after). */
async function withPostgres<T>(work: (url: string) => Promise<T>): Promise<T> {
  const name = `svc_bench_feed_report_${process.pid}`;
  const admin = new pg.Client({ connectionString: PG_ROOT });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(PG_ROOT);
    url.pathname = `/${name}`;
    return await work(url.toString());
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

export interface FeedReportBench {
  sides: FeedReportSide[];
  skipped?: string;
}

export async function runFeedReportBench(options: { scale?: number; rounds?: number; databases?: string[] } = {}): Promise<FeedReportBench> {
  const scale = options.scale ?? 1;
  const rounds = options.rounds ?? 5;
  const databases = options.databases ?? ['sqlite', 'postgres'];
  const sides: FeedReportSide[] = [];
  if (databases.includes('sqlite')) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-feed-report-bench-'));
    const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
    try {
      sides.push(await measure('SQLite', storage, scale, rounds));
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const skipped = databases.includes('postgres') ? await postgresAvailable() : 'PostgreSQL not asked for';
  if (skipped === undefined) {
    sides.push(await withPostgres(async (url) => {
      const storage = await openPostgresStorage(url, SCHEMA);
      try {
        return await measure('PostgreSQL', storage, scale, rounds);
      } finally {
        await storage.close();
      }
    }));
  }
  return { sides, ...(skipped !== undefined ? { skipped } : {}) };
}

export function formatFeedReportBench({ sides, skipped }: FeedReportBench): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  const ms = (x: number): string => `${x.toFixed(0)} ms`;
  const lines = [
    '## Feed report: GET …/feeds/1/report vs one SQL aggregate counting its impressions and clicks joined to the issued recommendations',
    '',
    '| database | by | report p50 | report max | floor p50 | floor max | report / floor | goal | rows |',
    '|---|---|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const s of sides) {
    for (const t of s.times) {
      const report = median(t.reportMs);
      const floorMs = median(t.floorMs);
      const ratio = report / floorMs;
      const goal = goalMark(ratio <= 3 && report < 1000, '≤ 3×, < 1 s');
      lines.push(`| ${s.database} | ${t.by || '—'} | ${ms(report)} | ${ms(Math.max(...t.reportMs))} | ${ms(floorMs)} | ${ms(Math.max(...t.floorMs))} | `
        + `${ratio.toFixed(2)}× | ${goal} | ${t.rows} |`);
    }
  }
  lines.push('');
  for (const s of sides) {
    const a = s.answer;
    const g = s.generated;
    const same = a.impressions === s.floorCounts.impressions && a.clicks === s.floorCounts.clicks;
    lines.push(`${s.database}: setup ${s.setupSeconds.toFixed(0)} s; feed 1 generated ${n(g.impressions)} impressions, ${n(g.clicks)} clicks; `
      + `report counted ${n(a.impressions)} impressions, ${n(a.clicks)} clicks, ${n(a.carts)} carts, ${n(a.orders)} orders credited `
      + `(${n(g.carts)} carts and ${n(g.orders)} orders followed a click of feed 1, some outside the window); floor counted `
      + `${n(s.floorCounts.impressions)} / ${n(s.floorCounts.clicks)}${same ? ' (same)' : ' (DIFFERENT)'}.`);
  }
  if (skipped !== undefined) lines.push(skipped);
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatFeedReportBench(await runFeedReportBench({
    scale: Number(process.env.BENCH_FEED_REPORT_SCALE ?? 1),
    rounds: Number(process.env.BENCH_FEED_REPORT_ROUNDS ?? 5),
    databases: (process.env.BENCH_FEED_REPORT_DATABASES ?? 'sqlite,postgres').split(','),
  })));
}
