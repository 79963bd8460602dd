// Offline evaluation of the recommendation strategies: which feed would have shown visitors what they went on to use?
// A synthetic shop (bench/synthetic-shop.ts: 6,000 products, 15,000 visitors over 6 weeks by default, one seed) is
// replayed in time order through the real service: the catalog upserted and the training events stored through the
// storage layer (ingestBatch, then applyModelsNow, as bench/feed-bench.ts does) with their own timestamps. For up to
// 2,000 visitors whose last session starts in the last 7 days, everything of that session after its first view is held
// out (bench/offline-split.ts); when the replay reaches that first view, each feed is asked through the real feed route
// (app.inject) for the visitor's profile and that product, and its list is scored against the held-out products:
// precision, recall and NDCG at 5 and 10, and catalog coverage (bench/offline-metrics.ts). Beside the strategies, two
// baselines computed by the bench from the same training events: `random` (10 distinct products, seeded) and
// `most-viewed` (training view counts up to the moment asked). The most-popular baseline of the verdicts is the
// service's own `popular` strategy (views, carts and orders weighted 1/3/5, decayed with a 7-day half-life).
// Each evaluated feed is a feed config object; a second one per strategy adds merchandising rules, run only when this
// build's config validation knows `rules`. BENCH_OFFLINE_VISITORS / BENCH_OFFLINE_PRODUCTS / BENCH_OFFLINE_QUERIES
// scale it down.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import type { FeedConfig, ServiceConfigFile } from '../server/config/config-types.js';
import { validateFeedItem } from '../server/config/validate-config.js';
import { upsertProducts } from '../server/recommendations/catalog-store.js';
import { applyModelsNow, CHUNK_EVENTS } from '../server/recommendations/model-inbox.js';
import { ingestBatch } from '../server/programs.js';
import { SCHEMA } from '../server/schema.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import { pairedDifference, ScoreBoard, type FeedScores } from './offline-metrics.js';
import { ReplayMirror, splitLastSessions, type Query } from './offline-split.js';
import { seededRandom } from './seeded-random.js';
import { generateShop, toServiceEvent } from './synthetic-shop.js';

export type Strategy = FeedConfig['strategy'];
export const STRATEGIES: readonly Strategy[] = ['popular', 'viewed-together', 'bought-together', 'recently-viewed', 'personalized'];

/** A feed under evaluation, as a project would configure it (without its id): strategy, limit, and rules if any. */
export interface EvaluatedFeed {
  strategy: Strategy;
  limit: number;
  rules?: unknown[];
  exclude?: string[];
  purchasedDays?: number;
  fallback?: string[];
}

export interface OfflineEvalOptions {
  seed?: number;
  products?: number;
  visitors?: number;
  days?: number;
  testDays?: number;
  maxQueries?: number;
  /** When the history ends (epoch ms); default the start of today (UTC), so that "within N days" rules see it as recent. */
  endMs?: number;
}

export interface EvalRow {
  feed: string;
  rules: string;
  /** `route`: the service's answer; `bench`: a baseline the bench computes. */
  source: 'route' | 'bench';
  scores: FeedScores;
  /** NDCG@10 over returning visitors only. */
  ndcg10Returning: number;
  /** NDCG@10 over returning visitors, against the held-out products they had not viewed before. */
  ndcg10Unseen: number;
  /** NDCG@10 minus the `popular` strategy's, paired by query: mean and 95 % half-width. */
  vsPopular: { mean: number; halfWidth: number };
  /** With rules: the share of queries whose list differs from the same strategy's without rules. */
  changedByRules?: number;
  /** With rules: NDCG@10 minus that of `popular` with the same rules, paired by query. */
  vsPopularSameRules?: { mean: number; halfWidth: number };
}

/** Shares over the held-out products of every query: what each strategy could reach at best. */
export interface Reachability {
  /** Viewed by the visitor before (recently-viewed can show them; personalized never does). */
  viewedBefore: number;
  /** The same share over returning visitors' held-out products only. */
  viewedBeforeReturning: number;
  /** Shared a training session with the anchor (viewed-together's list holds them). */
  coViewedWithAnchor: number;
  /** Shared a training order with the anchor (bought-together's list holds them). */
  coBoughtWithAnchor: number;
  /** Share of queries whose anchor has any bought-together neighbour. */
  anchorsWithOrders: number;
}

export interface OfflineEvalResult {
  products: number;
  visitors: number;
  sessions: number;
  returningShare: number;
  events: number;
  trainingEvents: number;
  queries: number;
  returningQueries: number;
  candidates: number;
  targetsPerQuery: number;
  /** `supported`, `not supported by this build`, or why this build refused the evaluated rules. */
  rules: string;
  rows: EvalRow[];
  reach: Reachability;
  seconds: number;
}

const DAY_MS = 24 * 3600 * 1000;
const K = 10;
const BATCH = 20_000;
const AUTH = { authorization: `Basic ${Buffer.from('web1:p4ss').toString('base64')}` };

/**
 * The rules each strategy is also evaluated with: a merchant's usual set for a product page — stay in the viewed
 * product's category, not what the visitor bought in the last 30 days, and popular products (in the category, then
 * anywhere) when the strategy has too few.
 */
export function withRules(strategy: Strategy): EvaluatedFeed {
  return {
    strategy, limit: K, rules: [{ filter: { category: { same: true } } }], exclude: ['purchased'], purchasedDays: 30,
    fallback: ['popular-in-category', 'popular'],
  };
}
const RULES_LABEL = 'same category, -purchased 30 d, fallback';

/**
 * Whether this build's config validation knows `rules`: it lets unknown feed fields pass (an older file still loads), so
 * a build that knows rules is one that refuses a malformed `rules`. Answers the refusal of a well-formed one, if any.
 */
export function rulesSupport(): string {
  try {
    validateFeedItem({ id: 1, strategy: 'popular', rules: 'not a list of rules' });
    return 'not supported by this build';
  } catch {
    try {
      for (const s of STRATEGIES) validateFeedItem({ id: 1, ...withRules(s) });
      return 'supported';
    } catch (error) {
      return `refused by this build (${error instanceof Error ? error.message : String(error)})`;
    }
  }
}

function config(feeds: readonly EvaluatedFeed[]): ServiceConfigFile {
  return {
    organizations: { acme: { projects: { shop: {
      apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
      feeds: feeds.map((f, i) => ({ id: i + 1, ...f }) as FeedConfig),
      limits: { writeKeyPerSecond: 1_000_000 },
    } } } },
  };
}

async function askFeed(app: FastifyInstance, id: number, q: Query): Promise<string[]> {
  const res = await app.inject({
    method: 'POST', url: `/v1/acme/projects/shop/feeds/${id}/data`, headers: AUTH,
    payload: { profileId: q.profileId, sourceId: 'web', limit: K, fields: [], productId: q.anchor },
  });
  if (res.statusCode !== 200) throw new Error(`feed ${id}: ${res.statusCode} ${res.body}`);
  return (res.json() as { products: { id: string }[] }).products.map((p) => p.id);
}

function randomList(random: () => number, catalog: readonly { id: string }[], anchor: string): string[] {
  const picked = new Set<string>();
  while (picked.size < Math.min(K, catalog.length - 1)) {
    const id = (catalog[Math.floor(random() * catalog.length)] as { id: string }).id;
    if (id !== anchor) picked.add(id);
  }
  return [...picked];
}

export async function runOfflineEval(options: OfflineEvalOptions = {}): Promise<OfflineEvalResult> {
  const started = performance.now();
  const endMs = options.endMs ?? Math.floor(Date.now() / DAY_MS) * DAY_MS;
  const shop = generateShop({
    seed: options.seed ?? 1, products: options.products ?? 6000, visitors: options.visitors ?? 15_000, days: options.days ?? 42, endMs,
  });
  const split = splitLastSessions(shop.events, (options.testDays ?? 7) * DAY_MS, options.maxQueries ?? 2000);
  const rules = rulesSupport();
  const evaluated: { label: string; rules: string; feed: EvaluatedFeed }[] = STRATEGIES.map((strategy) => ({ label: strategy, rules: 'none', feed: { strategy, limit: K } }));
  if (rules === 'supported') evaluated.push(...STRATEGIES.map((strategy) => ({ label: strategy, rules: RULES_LABEL, feed: withRules(strategy) })));
  // Per feed: every evaluated visitor; returning visitors; returning visitors against the held-out products they had not
  // viewed before (those with any).
  type Boards = { all: ScoreBoard; returning: ScoreBoard; unseen: ScoreBoard };
  const boards = new Map<string, Boards>();
  const board = (name: string): Boards => {
    let b = boards.get(name);
    if (!b) boards.set(name, (b = { all: new ScoreBoard(), returning: new ScoreBoard(), unseen: new ScoreBoard() }));
    return b;
  };
  const score = (name: string, q: Query, unseen: ReadonlySet<string>, answered: string[]): void => {
    const b = board(name);
    b.all.add(answered, q.targets);
    if (q.returning) b.returning.add(answered, q.targets);
    if (q.returning && unseen.size > 0) b.unseen.add(answered, unseen);
  };
  // Per strategy: queries whose list with rules differs from the list without (0 everywhere: the rules did nothing).
  const changedByRules = new Map<string, number>();
  const reachCounts = { targets: 0, viewedBefore: 0, returningTargets: 0, returningViewedBefore: 0, coViewed: 0, coBought: 0, anchorsWithOrders: 0 };

  const dir = mkdtempSync(join(tmpdir(), 'svc-offline-eval-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
  const app = await buildApp({ config: config(evaluated.map((e) => e.feed)), storage });
  try {
    await upsertProducts(storage, 'acme/shop', shop.catalog);
    const mirror = new ReplayMirror();
    const random = seededRandom((options.seed ?? 1) + 1000);
    let next = 0;
    const due = (at: number): boolean => next < split.training.length && (split.training[next]?.event.at ?? Infinity) <= at;
    const ingestUntil = async (at: number): Promise<void> => {
      while (due(at)) {
        const batch = [];
        let last = 0;
        while (batch.length < BATCH && due(at)) {
          const { event, index } = split.training[next++] as (typeof split.training)[number];
          batch.push(toServiceEvent(event, index));
          mirror.add(event);
          last = event.at;
        }
        // Received when the last of them happened: the models count each event at its own time.
        await ingestBatch(storage, 'acme/shop', 'web', batch, { receivedAt: last });
        await applyModelsNow(storage, CHUNK_EVENTS);
      }
    };
    for (const q of split.queries) {
      await ingestUntil(q.at);
      const viewed = mirror.viewedBy.get(q.profileId);
      const unseen = new Set([...q.targets].filter((t) => !viewed?.has(t)));
      score('random', q, unseen, randomList(random, shop.catalog, q.anchor));
      score('most-viewed', q, unseen, mirror.mostViewed(K, q.anchor));
      const plain = new Map<Strategy, string[]>();
      for (const [i, e] of evaluated.entries()) {
        const answered = await askFeed(app, i + 1, q);
        if (e.feed.rules === undefined) plain.set(e.feed.strategy, answered);
        else if (answered.join() !== plain.get(e.feed.strategy)?.join()) changedByRules.set(e.label, (changedByRules.get(e.label) ?? 0) + 1);
        // Proof that the service answered: without rules every strategy fills its list from popular products.
        if (e.feed.rules === undefined && answered.length !== K) throw new Error(`${e.label} answered ${answered.length} products, not ${K}`);
        score(`${e.label}\n${e.rules}`, q, unseen, answered);
      }
      const coViewed = mirror.coViewed.get(q.anchor);
      const coBought = mirror.coBought.get(q.anchor);
      if (coBought && coBought.size > 0) reachCounts.anchorsWithOrders++;
      for (const t of q.targets) {
        reachCounts.targets++;
        if (viewed?.has(t)) reachCounts.viewedBefore++;
        if (q.returning) reachCounts.returningTargets++;
        if (q.returning && viewed?.has(t)) reachCounts.returningViewedBefore++;
        if (coViewed?.has(t)) reachCounts.coViewed++;
        if (coBought?.has(t)) reachCounts.coBought++;
      }
    }
    await ingestUntil(Infinity);
  } finally {
    await app.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
  const catalogSize = shop.catalog.length;
  const row = (feed: string, rulesLabel: string, source: EvalRow['source'], name: string): EvalRow => {
    const b = board(name);
    return {
      feed, rules: rulesLabel, source, scores: b.all.scores(catalogSize), ndcg10Returning: b.returning.scores(catalogSize).ndcg10,
      ndcg10Unseen: b.unseen.scores(catalogSize).ndcg10,
      vsPopular: pairedDifference(b.all.ndcg10s, board('popular\nnone').all.ndcg10s),
    };
  };
  const rows = [
    row('random', 'none', 'bench', 'random'), row('most-viewed', 'none', 'bench', 'most-viewed'),
    ...evaluated.map((e) => {
      const r = row(e.label, e.rules, 'route', `${e.label}\n${e.rules}`);
      if (e.feed.rules !== undefined) {
        r.changedByRules = (changedByRules.get(e.label) ?? 0) / Math.max(1, split.queries.length);
        r.vsPopularSameRules = pairedDifference(board(`${e.label}\n${e.rules}`).all.ndcg10s, board(`popular\n${e.rules}`).all.ndcg10s);
      }
      return r;
    }),
  ];
  const targets = Math.max(1, reachCounts.targets);
  const queries = split.queries.length;
  return {
    products: catalogSize, visitors: shop.visitors, sessions: shop.sessions, returningShare: shop.returningShare,
    events: shop.events.length, trainingEvents: split.training.length, queries,
    returningQueries: split.queries.filter((q) => q.returning).length, candidates: split.candidates,
    targetsPerQuery: reachCounts.targets / Math.max(1, queries), rules, rows,
    reach: {
      viewedBefore: reachCounts.viewedBefore / targets,
      viewedBeforeReturning: reachCounts.returningViewedBefore / Math.max(1, reachCounts.returningTargets), coViewedWithAnchor: reachCounts.coViewed / targets,
      coBoughtWithAnchor: reachCounts.coBought / targets, anchorsWithOrders: reachCounts.anchorsWithOrders / Math.max(1, queries),
    },
    seconds: (performance.now() - started) / 1000,
  };
}

/** Why a strategy can or cannot beat the popular list on this replay, from the reachability shares. */
function reachNote(strategy: string, reach: Reachability): string {
  const pct = (x: number): string => `${(100 * x).toFixed(0)} %`;
  switch (strategy) {
    case 'viewed-together':
      return `${pct(reach.coViewedWithAnchor)} of held-out products shared a training session with the page's product`;
    case 'bought-together':
      return `${pct(reach.coBoughtWithAnchor)} of held-out products shared a training order with the page's product; `
        + `${pct(reach.anchorsWithOrders)} of page products had any order neighbour (the rest is the popular fill)`;
    case 'recently-viewed':
      return `${pct(reach.viewedBefore)} of held-out products (${pct(reach.viewedBeforeReturning)} of returning visitors') were `
        + 'viewed by the visitor before: all it can show; a new visitor gets the popular fill';
    case 'personalized':
      return `it never shows what the visitor viewed before: ${pct(reach.viewedBefore)} of held-out products `
        + `(${pct(reach.viewedBeforeReturning)} of returning visitors') are out of its reach`;
    default:
      return '';
  }
}

/** Whether a feed beats the popular list on NDCG@10: by more than the paired 95 % interval, or not. */
function verdict(d: EvalRow['vsPopular']): string {
  if (d.mean - d.halfWidth > 0) return 'beats';
  return d.mean + d.halfWidth < 0 ? 'does NOT beat (worse)' : 'does NOT beat (no difference beyond noise)';
}

export function formatOfflineEval(r: OfflineEvalResult): string {
  const n = (x: number): string => x.toLocaleString('en-US');
  const f = (x: number): string => x.toFixed(3);
  const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
  const rows = r.rows.map((row) => {
    const s = row.scores;
    return `| ${row.feed} | ${row.rules} | ${row.source} | ${f(s.precision5)} | ${f(s.recall5)} | ${f(s.ndcg5)} | ${f(s.precision10)} `
      + `| ${f(s.recall10)} | ${f(s.ndcg10)} | ${f(row.ndcg10Returning)} | ${f(row.ndcg10Unseen)} | ${pct(s.coverage)} |`;
  });
  const popular = r.rows.find((row) => row.feed === 'popular' && row.rules === 'none') as EvalRow;
  const verdicts = r.rows.filter((row) => row.source === 'route' && row !== popular).map((row) => {
    const rulesNote = row.changedByRules === undefined ? '' : ` (with rules, which changed ${pct(row.changedByRules)} of its lists)`;
    const d = row.vsPopular;
    const signed = (x: number): string => `${x >= 0 ? '+' : ''}${f(x)}`;
    const same = row.vsPopularSameRules !== undefined && row.feed !== 'popular'
      ? `; against popular with the same rules: ${signed(row.vsPopularSameRules.mean)} ± ${f(row.vsPopularSameRules.halfWidth)}`
      : '';
    return `${row.feed}${rulesNote}: ${verdict(d)} most-popular on NDCG@10 (${f(row.scores.ndcg10)} vs ${f(popular.scores.ndcg10)}, `
      + `${signed(d.mean)} ± ${f(d.halfWidth)} paired, 95 %)${same}${row.feed === 'popular' ? '' : `; ${reachNote(row.feed, r.reach)}`}`;
  });
  return [
    `Offline evaluation of recommendation strategies: a synthetic shop of ${n(r.products)} products, ${n(r.visitors)} visitors `
      + `(${pct(r.returningShare)} come back), ${n(r.sessions)} sessions, ${n(r.events)} product events, replayed in time order `
      + `through the service (SQLite; ${n(r.trainingEvents)} training events) in ${r.seconds.toFixed(0)} s`,
    `held out: the last session after its first view, for ${n(r.queries)} visitors (of ${n(r.candidates)} whose last session `
      + `started in the last week; ${n(r.returningQueries)} returning), ${r.targetsPerQuery.toFixed(2)} products each; `
      + 'each feed asked through the feed route for the visitor and the first view\'s product',
    'most-popular baseline: the `popular` strategy (the service\'s decayed views/carts/orders score); most-viewed: training '
      + 'view counts (bench); random: 10 distinct products (bench). Coverage: share of the catalog in any first 10. '
      + '"NDCG@10 returning": returning visitors only; "… not viewed before": theirs against the held-out products they had not viewed.',
    `rules: ${r.rules}`,
    '| feed | rules | source | P@5 | R@5 | NDCG@5 | P@10 | R@10 | NDCG@10 | NDCG@10 returning | … not viewed before | coverage |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows,
    ...verdicts,
  ].join('\n');
}

/** The run `npm run bench` and `node --import tsx bench/offline-eval.ts` make, scaled by the environment. */
export function offlineEvalOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): OfflineEvalOptions {
  return {
    visitors: Number(env.BENCH_OFFLINE_VISITORS ?? 15_000),
    products: Number(env.BENCH_OFFLINE_PRODUCTS ?? 6000),
    maxQueries: Number(env.BENCH_OFFLINE_QUERIES ?? 2000),
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatOfflineEval(await runOfflineEval(offlineEvalOptionsFromEnv())));
}
