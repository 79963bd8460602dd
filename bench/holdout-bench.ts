// Does the recommendations holdout tell what recommendations add? Simulated shops through the real service (app.inject:
// the feed endpoint, the track endpoint, the results endpoint, on SQLite), each a project of its own with
// `recommendations.holdout` set and 1,000 visitors by default:
// - A/B: recommendations make a visitor order more often (+30 % by default); holdout 10 % (a share a shop would set)
//   and 50 % (the most power for the same visitors). The results of `recommendations-holdout` should show revenue per
//   visitor higher for `shown`: the share of shops where the sign is right, and where the difference is significant
//   (with 100 held-out visitors, seldom: the table says so; a shop reads it after weeks, not after 1,000 visitors);
//   and at a shop's scale (20,000 visitors, holdout 10 %), where the difference should be significant.
// - A/A: recommendations change nothing; holdout 50 % (the most units per arm). The share of shops whose primary metric
//   is significant must stay at or below alpha (0.05): the holdout runs with sequential intervals, read whenever asked.
// Every visitor asks a feed first (the exposure), then orders with its arm's chance: one to three lines of the catalog
// (price 5–80, quantity 1–2), timed after the feed answer. The bench also counts products a held-out visitor was
// answered (must be 0) and the exposures the results counted (must be every visitor): proof that the service ran.
// The Monte-Carlo error of a share p over N shops is sqrt(p(1 − p)/N).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import type { ProjectConfig, ServiceConfigFile } from '../server/config/config-types.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import { SCHEMA } from '../server/schema.js';
import type { ServiceEvent } from '../wire/event.js';
import { seededRandom } from './seeded-random.js';
import { goalMark } from './goal-mark.js';

export interface HoldoutBenchOptions {
  visitors?: number;
  /** Shops with a real effect, and shops without. */
  abShops?: number;
  aaShops?: number;
  /** Shops with a real effect and `scaleVisitors` visitors each, holdout 10 %: what weeks of a shop's traffic show. */
  scaleShops?: number;
  scaleVisitors?: number;
  /** Relative effect of recommendations on the chance to order, in the A/B shops. */
  effect?: number;
  baseOrderRate?: number;
  seed?: number;
}

export interface HoldoutScenario {
  name: string;
  shops: number;
  visitors: number;
  holdout: number;
  effect: number;
  /** Shops whose revenue per visitor is higher for `shown` than for `holdout`. */
  rightSign: number;
  /** Shops whose primary metric (revenue per visitor) is significant. */
  significant: number;
  /** Units the results counted, over all shops (every visitor is one). */
  units: number;
  /** Products answered to held-out visitors (must be 0). */
  heldOutProducts: number;
  seconds: number;
}

const ALPHA = 0.05;
const CATALOG = Array.from({ length: 20 }, (_, i) => ({ id: `p${i}`, title: `Product ${i}`, price: 5 + ((i * 37) % 76) }));

/** A shop's project: keys of its own (`w<n>.k` for the browser's requests, `s<n>.k` for results). */
function shop(n: number, holdout: number): ProjectConfig {
  return {
    apiKeys: [`s${n}.k`], writeKeys: [`w${n}.k`], sources: ['web'], feeds: [{ id: 1, strategy: 'popular' }], catalog: CATALOG,
    recommendations: { holdout }, limits: { writeKeyPerSecond: 1e9 },
  };
}

interface MetricAnswer {
  name: string;
  variations: { name: string; units: number; mean: number | null; significant?: boolean }[];
}

/** One scenario: `shops` projects, each `visitors` visitors through the feed, their orders, then its results. */
async function scenario(
  app: FastifyInstance, name: string, shops: [project: string, n: number][], visitors: number, holdout: number, effect: number, baseOrderRate: number, seed: number,
): Promise<HoldoutScenario> {
  const started = performance.now();
  const random = seededRandom(seed);
  const out: HoldoutScenario = { name, shops: shops.length, visitors, holdout, effect, rightSign: 0, significant: 0, units: 0, heldOutProducts: 0, seconds: 0 };
  for (const [project, n] of shops) {
    const base = `/v1/bench/projects/${project}`;
    const browser = { authorization: `Basic ${Buffer.from(`w${n}:k`).toString('base64')}` };
    const events: ServiceEvent[] = [];
    for (let start = 0; start < visitors; start += 50) {
      // Fifty visitors at a time, as a shop's pages ask at once.
      const answers = await Promise.all(Array.from({ length: Math.min(50, visitors - start) }, async () => {
        const profileId = randomUUID();
        const res = await app.inject({
          method: 'POST', url: `${base}/feeds/1/data`, headers: browser, payload: { profileId, sourceId: 'web', limit: 4, fields: ['title'] },
        });
        if (res.statusCode !== 200) throw new Error(`feed: ${res.statusCode} ${res.body}`);
        return { profileId, answer: res.json() as { products: unknown[]; holdout?: boolean } };
      }));
      const orderedAt = new Date(Date.now() + 1000).toISOString();
      for (const { profileId, answer } of answers) {
        if (answer.holdout === true) out.heldOutProducts += answer.products.length;
        const rate = answer.holdout === true ? baseOrderRate : baseOrderRate * (1 + effect);
        if (random() >= rate) continue;
        const orderId = randomUUID();
        const lines = 1 + Math.floor(random() * 3);
        for (let l = 0; l < lines; l++) {
          const product = CATALOG[Math.floor(random() * CATALOG.length)]!;
          events.push({
            eventId: randomUUID(), type: 'product', name: 'Product ordered', profileId, sessionId: profileId, pageId: orderId,
            timestamp: orderedAt, data: { productId: product.id, price: product.price, quantity: 1 + Math.floor(random() * 2), orderId },
          });
        }
      }
    }
    for (let i = 0; i < events.length; i += 500) {
      const res = await app.inject({ method: 'POST', url: `${base}/sources/web/track`, headers: browser, payload: { batch: events.slice(i, i + 500) } });
      if (res.statusCode !== 200) throw new Error(`track: ${res.statusCode} ${res.body}`);
    }
    const res = await app.inject({ method: 'GET', url: `${base}/experiences/recommendations-holdout/results?apiKey=s${n}.k` });
    if (res.statusCode !== 200) throw new Error(`results: ${res.statusCode} ${res.body}`);
    const answer = res.json() as { units: number; metrics: MetricAnswer[] };
    out.units += answer.units;
    const revenue = answer.metrics.find((m) => m.name === 'recommendations-revenue');
    const [held, shown] = ['holdout', 'shown'].map((arm) => revenue?.variations.find((v) => v.name === arm));
    if ((shown?.mean ?? 0) > (held?.mean ?? 0)) out.rightSign++;
    if (shown?.significant === true) out.significant++;
  }
  out.seconds = (performance.now() - started) / 1000;
  return out;
}

/** Both scenarios on one service (a project per shop). */
export async function runHoldoutBench(options: HoldoutBenchOptions = {}): Promise<HoldoutScenario[]> {
  const {
    visitors = 1000, abShops = 20, aaShops = 100, scaleShops = 5, scaleVisitors = 20_000, effect = 0.3, baseOrderRate = 0.1, seed = 20261128,
  } = options;
  // [project, key number, holdout share] of each scenario's shops.
  let next = 0;
  const shops = (prefix: string, count: number, holdout: number): [string, number][] =>
    Array.from({ length: count }, (_, i): [string, number] => [`${prefix}${i}`, next++]).map(([p, n]) => {
      projects[p] = shop(n, holdout);
      return [p, n];
    });
  const projects: Record<string, ProjectConfig> = {};
  const ab10 = shops('ab10-', abShops, 10);
  const ab50 = shops('ab50-', abShops, 50);
  const aa = shops('aa-', aaShops, 50);
  const scale = shops('scale-', scaleShops, 10);
  const config: ServiceConfigFile = { organizations: { bench: { projects } } };
  const dir = mkdtempSync(join(tmpdir(), 'svc-holdout-bench-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
  const app = await buildApp({ config, storage, logger: false });
  try {
    return [
      await scenario(app, 'A/B: recommendations add orders', ab10, visitors, 10, effect, baseOrderRate, seed),
      await scenario(app, 'A/B: recommendations add orders', ab50, visitors, 50, effect, baseOrderRate, seed + 1),
      await scenario(app, 'A/A: recommendations change nothing', aa, visitors, 50, 0, baseOrderRate, seed + 2),
      await scenario(app, 'A/B at a shop\'s scale', scale, scaleVisitors, 10, effect, baseOrderRate, seed + 3),
    ];
  } finally {
    await app.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export function formatHoldoutBench(rows: HoldoutScenario[]): string {
  const pct = (k: number, n: number): string => `${((100 * k) / n).toFixed(1)} % ± ${((100 * Math.sqrt((k / n) * (1 - k / n))) / Math.sqrt(n)).toFixed(1)}`;
  const lines = [
    'Recommendations holdout: simulated shops through the service (feed → orders → results of recommendations-holdout)',
    '| scenario | shops × visitors | holdout | true effect on orders | shown ahead on revenue/visitor | significant (alpha 0.05, sequential) | units counted | products to held-out visitors | seconds |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows.filter((row) => row.shops > 0)) {
    lines.push(`| ${r.name} | ${r.shops} × ${r.visitors} | ${r.holdout} % | ${r.effect === 0 ? 'none' : `+${Math.round(r.effect * 100)} %`} | ${pct(r.rightSign, r.shops)} | ${pct(r.significant, r.shops)}${r.effect === 0 ? ` ${goalMark(r.significant / r.shops <= ALPHA, '≤ alpha')}` : ''} | ${r.units} of ${r.shops * r.visitors} | ${r.heldOutProducts} | ${r.seconds.toFixed(0)} |`);
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const env = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
  console.log(formatHoldoutBench(await runHoldoutBench({
    visitors: env('BENCH_HOLDOUT_VISITORS', 1000), abShops: env('BENCH_HOLDOUT_AB', 20), aaShops: env('BENCH_HOLDOUT_AA', 100),
    scaleShops: env('BENCH_HOLDOUT_SCALE', 5),
  })));
}
