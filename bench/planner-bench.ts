// The planner against arithmetic and simulation: `node --import tsx bench/planner-bench.ts`.
//
// A real service (buildApp, SQLite in a temp dir) is given a project's last two weeks: 20,000 people who each viewed a
// page, about 5 % of whom ordered, each order's price drawn from a lognormal (median 40, σ 1: a few big baskets carry
// much of the revenue). Its plan endpoint then answers for two 50/50 draft experiments, one judged on `purchase`
// (binomial) and one on `revenue` (sum of prices), and the bench checks:
// (a) binomial: the planner's fixed-horizon units agree to 1 % with the two-sample closed form written here for the
//     test results run on the relative uplift (on the absolute scale), printed beside Fleiss' figure for the
//     difference of two rates, which is smaller for a rise: the relative test's yardstick carries (1 + mde)² on the
//     control's term;
// (b) revenue (skewed): experiments drawn from the project's own people (each unit a person picked at random, the
//     treatment's spend × (1 + mde)) are significant at the planner's fixed-horizon units in 80 % ± 3 points of them;
// (c) the same for the sequential figure, read once at its planned units (and, for information, at 10 looks).
// The binomial case is simulated too, at the planner's and at Fleiss' units. The Monte-Carlo error of a share is
// printed; with 2,000 experiments it is about 0.9 points at 80 %, so ± 3 points is more than 3 of them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import jStatModule from 'jstat';
import { buildApp } from '../server/app.js';
import type { ServiceConfigFile } from '../server/config/config-types.js';
import { SCHEMA } from '../server/schema.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../wire/event.js';
import type { PlanAnswer } from '../wire/plan-answer.js';
import { monteCarloError, simulatePower } from './power-simulation.js';
import { seededRandom } from './seeded-random.js';
import { goalMark } from './goal-mark.js';

const { jStat } = jStatModule;
const PEOPLE = 20_000;
const BUY_RATE = 0.05;
const ALPHA = 0.05;
const TOLERANCE = 0.03;
const EXPERIMENTS = Number(process.env.BENCH_PLANNER_EXPERIMENTS ?? 2000);
const MDE = { purchase: 0.1, revenue: 0.2 };

const arms = [{ name: 'control', weight: 50, body: {} }, { name: 'treatment', weight: 50, body: {} }];
const config: ServiceConfigFile = {
  organizations: {
    acme: {
      adminKeys: ['adm1.s3cret'],
      projects: {
        shop: {
          apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], limits: { writeKeyPerSecond: 1_000_000 },
          metrics: [
            { name: 'purchase', event: 'Product ordered', type: 'binomial' },
            { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
          ],
          experiences: [
            { name: 'checkout', variations: arms, goals: ['purchase'], status: 'draft' },
            { name: 'basket', variations: arms, goals: ['revenue'], status: 'draft' },
          ],
        },
      },
    },
  },
};

/** The project's people: each one's revenue over the window (0 for most), as the service will count it. */
function population(random: () => number): Float64Array {
  const values = new Float64Array(PEOPLE);
  for (let i = 0; i < PEOPLE; i++) {
    if (random() >= BUY_RATE) continue;
    // Box–Muller: a standard normal from two uniforms; the price is a lognormal, median 40, in cents.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    values[i] = Math.round(40 * Math.exp(normal) * 100) / 100;
  }
  return values;
}

function eventsOf(values: Float64Array, now: number): ServiceEvent[] {
  const events: ServiceEvent[] = [];
  values.forEach((price, i) => {
    const base = { profileId: `person-${i}`, sessionId: `s-${i}`, pageId: randomUUID(), timestamp: new Date(now - 1000).toISOString() };
    events.push({ ...base, eventId: randomUUID(), type: 'page', name: 'View Page', data: {} });
    if (price > 0) events.push({ ...base, eventId: randomUUID(), type: 'product', name: 'Product ordered', data: { productId: 'p1', price } });
  });
  return events;
}

/** Asks the real service for the two plans, after sending it the project's events. */
async function plansFromService(values: Float64Array): Promise<{ purchase: PlanAnswer; revenue: PlanAnswer }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-planner-bench-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
  const app = await buildApp({ config, storage });
  try {
    const events = eventsOf(values, Date.now());
    const auth = `Basic ${Buffer.from('web1:p4ss').toString('base64')}`;
    for (let i = 0; i < events.length; i += 500) {
      const res = await app.inject({ method: 'POST', url: '/v1/acme/projects/shop/sources/web/track', headers: { authorization: auth }, payload: { batch: events.slice(i, i + 500) } });
      if (res.statusCode !== 200) throw new Error(`track: ${res.statusCode} ${res.body}`);
    }
    const plan = async (name: string, mde: number): Promise<PlanAnswer> => {
      const res = await app.inject({ method: 'GET', url: `/v1/acme/projects/shop/experiences/${name}/plan?mde=${mde}`, headers: { authorization: 'Bearer adm1.s3cret' } });
      if (res.statusCode !== 200) throw new Error(`plan: ${res.statusCode} ${res.body}`);
      return res.json() as PlanAnswer;
    };
    return { purchase: await plan('checkout', MDE.purchase), revenue: await plan('basket', MDE.revenue) };
  } finally {
    await app.close();
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const z = (p: number): number => jStat.normal.inv(p, 0, 1);
/**
 * Per variation, equal arms, results' relative test: the uplift is significant when q̂ − p̂ passes
 * z(1 − α/2)·sqrt((q(1 − q) + (q/p)² p(1 − p)) / n) (its delta-method standard error times p), and q̂ − p̂ varies by
 * sqrt((q(1 − q) + p(1 − p)) / n): n = (z(1 − α/2)·sqrt(q(1 − q) + (q/p)² p(1 − p)) + z(0.8)·sqrt(q(1 − q) + p(1 − p)))² / (q − p)².
 */
function relativeTestPerArm(p: number, q: number): number {
  const root = z(1 - ALPHA / 2) * Math.sqrt(q * (1 - q) + (q / p) ** 2 * p * (1 - p)) + z(0.8) * Math.sqrt(q * (1 - q) + p * (1 - p));
  return (root / (q - p)) ** 2;
}
/** Fleiss (without continuity correction): the difference of two rates, pooled under the null, per variation. */
function fleissPerArm(p: number, q: number): number {
  const pooled = (p + q) / 2;
  const root = z(1 - ALPHA / 2) * Math.sqrt(2 * pooled * (1 - pooled)) + z(0.8) * Math.sqrt(p * (1 - p) + q * (1 - q));
  return (root / (q - p)) ** 2;
}

const n = (x: number): string => Math.round(x).toLocaleString('en-US');
const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;

async function main(): Promise<void> {
  const random = seededRandom(20261201);
  const values = population(random);
  const { purchase, revenue } = await plansFromService(values);
  let failed = false;
  /** `✓ goal` or `✗ goal`, remembering a miss. */
  const check = (ok: boolean, goal: string): string => {
    failed ||= !ok;
    return goalMark(ok, goal);
  };

  // The service read what it was sent: its baseline is the population's.
  const buyers = values.reduce((c, v) => c + (v > 0 ? 1 : 0), 0);
  const p = buyers / PEOPLE;
  const mean = values.reduce((s, v) => s + v, 0) / PEOPLE;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (PEOPLE - 1));
  const read = purchase.baseline.units === PEOPLE && Math.abs(purchase.baseline.mean! - p) < 1e-12
    && Math.abs(revenue.baseline.mean! / mean - 1) < 1e-9 && Math.abs(revenue.baseline.stddev! / sd - 1) < 1e-9;

  const q = p * (1 + MDE.purchase);
  const planned = purchase.fixedHorizon.variations[0]!.units!;
  const closed = relativeTestPerArm(p, q);
  const fleiss = fleissPerArm(p, q);
  console.log(`## Planner: baseline from the service (${n(PEOPLE)} people, ${pct(p)} bought, revenue per person mean ${mean.toFixed(2)}, sd ${sd.toFixed(2)}) ${check(read, 'read as sent')}`);
  console.log('');
  console.log(`### (a) binomial ${pct(p)} → ${pct(q)} (+${MDE.purchase * 100} %), 50/50, α ${ALPHA}, 80 % power: units per variation`);
  console.log('');
  console.log('| figure | units per variation | planner / it | goal |');
  console.log('|---|---|---|---|');
  console.log(`| planner, fixed-horizon (service) | ${n(planned)} | — | — |`);
  console.log(`| closed form of results' relative test | ${n(closed)} | ${(planned / closed).toFixed(4)} | ${check(Math.abs(planned / closed - 1) <= 0.01, 'within 1 %')} |`);
  console.log(`| Fleiss, absolute difference | ${n(fleiss)} | ${(planned / fleiss).toFixed(4)} | — (another test: results' yardstick has (1 + mde)² on the control) |`);
  console.log(`| planner, sequential (service) | ${n(purchase.sequential.variations[0]!.units!)} | — | — |`);
  console.log('');

  const started = Date.now();
  const binomial = simulatePower({
    experiments: EXPERIMENTS, type: 'binomial', alpha: ALPHA, tuning: 5000, looks: 10,
    draw: (arm) => (random() < (arm === 0 ? p : q) ? 1 : 0),
    fixedAt: [planned, Math.ceil(fleiss)], sequentialAt: purchase.sequential.variations[0]!.units!,
  });
  const sampled = (mde: number) => (arm: 0 | 1): number => (values[Math.floor(random() * PEOPLE)] as number) * (arm === 0 ? 1 : 1 + mde);
  const money = simulatePower({
    experiments: EXPERIMENTS, type: 'sum', alpha: ALPHA, tuning: 5000, looks: 10, draw: sampled(MDE.revenue),
    fixedAt: [revenue.fixedHorizon.variations[0]!.units!], sequentialAt: revenue.sequential.variations[0]!.units!,
  });
  const seconds = (Date.now() - started) / 1000;
  const within = (x: number): boolean => Math.abs(x - 0.8) <= TOLERANCE;
  const err = (x: number): string => `± ${(100 * monteCarloError(x, EXPERIMENTS)).toFixed(1)}`;
  console.log(`### (b), (c) empirical power: ${n(EXPERIMENTS)} simulated experiments per row, true effect = the mde, results' own tests`);
  console.log('');
  console.log('| metric | figure | units per variation | significant (the right way) | goal |');
  console.log('|---|---|---|---|---|');
  console.log(`| purchase +${MDE.purchase * 100} % | planner, fixed-horizon | ${n(planned)} | ${pct(binomial.fixed[0]!)} ${err(binomial.fixed[0]!)} | ${check(within(binomial.fixed[0]!), '80 % ± 3')} |`);
  console.log(`| purchase +${MDE.purchase * 100} % | Fleiss' units, fixed-horizon | ${n(fleiss)} | ${pct(binomial.fixed[1]!)} ${err(binomial.fixed[1]!)} | — (short of 80 %) |`);
  console.log(`| purchase +${MDE.purchase * 100} % | planner, sequential, read at the end | ${n(purchase.sequential.variations[0]!.units!)} | ${pct(binomial.sequentialAtEnd)} ${err(binomial.sequentialAtEnd)} | ${check(within(binomial.sequentialAtEnd), '80 % ± 3')} |`);
  console.log(`| purchase +${MDE.purchase * 100} % | planner, sequential, any of 10 looks | ${n(purchase.sequential.variations[0]!.units!)} | ${pct(binomial.sequentialEver)} | — (≥ the end's) |`);
  console.log(`| revenue +${MDE.revenue * 100} % (skewed) | planner, fixed-horizon | ${n(revenue.fixedHorizon.variations[0]!.units!)} | ${pct(money.fixed[0]!)} ${err(money.fixed[0]!)} | ${check(within(money.fixed[0]!), '80 % ± 3')} |`);
  console.log(`| revenue +${MDE.revenue * 100} % (skewed) | planner, sequential, read at the end | ${n(revenue.sequential.variations[0]!.units!)} | ${pct(money.sequentialAtEnd)} ${err(money.sequentialAtEnd)} | ${check(within(money.sequentialAtEnd), '80 % ± 3')} |`);
  console.log(`| revenue +${MDE.revenue * 100} % (skewed) | planner, sequential, any of 10 looks | ${n(revenue.sequential.variations[0]!.units!)} | ${pct(money.sequentialEver)} | — (≥ the end's) |`);
  console.log('');
  console.log(`${n(binomial.comparisons + money.comparisons)} comparisons computed by results' engine in ${seconds.toFixed(1)} s.`);
  if (failed) {
    console.log('A check failed (✗).');
    process.exitCode = 1;
  }
}

await main();
