// Experiment results at shop scale: 100,000 exposed units and 1,000,000 events (BENCH_RESULTS_SCALES lists the sizes, as shares of that).
// Measured in one run, in one process, on SQLite:
// - results: `GET …/experiences/hero/results` through the real route (app.inject: auth, query, reads, attribution,
//   statistics) for three metrics (a binomial, a sum, and the same sum with CUPED);
// - floor: the cheapest question over the same tables — one SQL aggregate that counts converted units per variation
//   (first exposure per profile from the exposure sets, joined with that profile's last order, read through the
//   events' (project, name, received_at) index). No identity graph, no windows, no statistics.
// Rounds alternate between the two; the ratio is results p50 / floor p50.
//
// The data is generated here and stored through the service's own programs (ingestBatch for events, the Choose
// API's exposure insert for exposures); the HTTP paths that write them are what the ingest and Choose benches measure.
// The mix: 20 % of exposed units were identified, and one in five of those on a second device too (their events
// count for the person); 20,000 profiles that never saw the experiment send events as well. Events: page views
// (80 %), add-to-cart (12 %) and orders (8 %), over four weeks, the first two before the units' first exposures
// (what CUPED adjusts by).
//
// "Fifty experiments": the same experiment's results (hero, BENCH_RESULTS_FIFTY_UNITS units, 10 events each) in a
// project where it is alone, and in ones where 24 and 49 other experiments of the same size have their own units,
// exposures (a tenth reported when shown, as `Experiment Viewed` events, a tenth both), identity links and events
// (their own metric's event, page views), p50 against p50: what the others cost a read of hero (1 = nothing).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../server/app.js';
import type { ServiceConfigFile } from '../server/config/config-types.js';
import { chooseStore } from '../server/choose/choose-store.js';
import { INDEX_EXPOSURES } from '../server/results/exposure-indexer.js';
import type { ExposureSet } from '../server/choose/exposure-programs.js';
import { ingestBatch } from '../server/programs.js';
import { op } from '../server/storage/sql-program.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../server/storage/storage.js';
import type { ServiceEvent } from '../wire/event.js';
import { seededRandom } from './seeded-random.js';
import { SCHEMA } from '../server/schema.js';

export interface ResultsBenchOptions {
  /** 1 = 100,000 units and 1,000,000 events. */
  scales?: number[];
  rounds?: number;
  /** Units of each experiment in "fifty experiments" (0: not measured). */
  fiftyUnits?: number;
}

/** Both sections: the shop-scale sizes, and "fifty experiments". */
export interface ResultsBench {
  sizes: ResultsBenchSize[];
  fifty: FiftyExperimentsSize | null;
}

/** Hero's results alone in its project, and beside 24 and 49 other experiments of the same size. */
export interface FiftyExperimentsSize {
  unitsEach: number;
  eventsEach: number;
  setupSeconds: number;
  aloneMs: number;
  halfMs: number;
  fiftyMs: number;
  /** Beside 49 others / alone. */
  ratio: number;
  /** Units the three answers counted, and the units exposed to hero (each is one person). */
  answerUnits: number[];
  exposedUnits: number;
  /** Whether the three answers are the same (they should be: the others share no person and no metric's event). */
  sameAnswers: boolean;
}

export interface ResultsBenchSize {
  units: number;
  events: number;
  setupSeconds: number;
  resultsMs: number;
  floorMs: number;
  ratio: number;
  /** Units the answer counted. */
  answerUnits: number;
  /** Converted units (the binomial metric's total) by the answer and by the floor's aggregate. */
  convertedOurs: number;
  convertedFloor: number;
}

const PROJECT = 'acme/shop';
const DAY = 86_400_000;
const BATCH = 20_000;
const START = Date.parse('2026-10-01T00:00:00.000Z');

function config(): ServiceConfigFile {
  return {
    organizations: { acme: { projects: { shop: {
      apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
      experiences: [
        { name: 'hero', variations: [
          { name: 'control', weight: 50, body: { title: 'Welcome' } },
          { name: 'bold', weight: 50, body: { title: 'Big sale' } },
        ] },
        { name: 'footer', variations: [
          { name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} },
        ] },
      ],
      metrics: [
        { name: 'purchase', event: 'Product ordered', type: 'binomial' },
        { name: 'revenue', event: 'Product ordered', type: 'sum', value: 'price' },
        { name: 'revenue-cuped', event: 'Product ordered', type: 'sum', value: 'price', cuped: true },
      ],
    } } } },
  };
}

function uuid(rand: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(rand() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20)}`;
}

async function generate(storage: Storage, units: number, events: number): Promise<void> {
  const rand = seededRandom(units);
  const exposures: ExposureSet[] = [];
  const profiles: string[] = [];
  for (let u = 0; u < units; u++) {
    const profileId = `u${u}`;
    profiles.push(profileId);
    const variation = rand() < 0.5 ? 'control' : 'bold';
    const first = START + 14 * DAY + Math.floor(rand() * 14 * DAY);
    const choices = [{ name: 'hero', variation }, { name: 'footer', variation: rand() < 0.5 ? 'a' : 'b' }];
    exposures.push({ project: PROJECT, profileId, sessionId: `s${u}`, device: rand() < 0.6 ? 'mobile' : 'desktop', time: first, choices });
    // A third come back in a later session and are exposed again.
    if (rand() < 0.33) exposures.push({ project: PROJECT, profileId, sessionId: `s${u}b`, device: null, time: first + DAY, choices });
  }
  const store = chooseStore(storage);
  for (let i = 0; i < exposures.length; i += 500) await store.recordExposures(exposures.slice(i, i + 500));
  await indexExposures(storage);

  const batch: ServiceEvent[] = [];
  const flush = async (receivedAt: number): Promise<void> => {
    if (batch.length === 0) return;
    await ingestBatch(storage, PROJECT, 'web', batch.splice(0), { receivedAt });
  };
  // Identified people: a fifth of the units, one in five of them on a second device as well.
  for (let u = 0; u < units; u += 5) {
    const at = new Date(START + 14 * DAY).toISOString();
    const userId = `user${u}`;
    batch.push({ eventId: uuid(rand), type: 'identify', name: 'Identify', profileId: `u${u}`, sessionId: `s${u}`, pageId: 'p', timestamp: at, userId });
    if (u % 25 === 0) {
      const second = `u${u}-2`;
      profiles.push(second);
      batch.push({ eventId: uuid(rand), type: 'identify', name: 'Identify', profileId: second, sessionId: `s${u}-2`, pageId: 'p', timestamp: at, userId });
    }
    if (batch.length >= BATCH) await flush(START + 14 * DAY);
  }
  await flush(START + 14 * DAY);
  const strangers = Math.round(units / 5);
  for (let s = 0; s < strangers; s++) profiles.push(`x${s}`);
  // Events in time order over four weeks (received as they happen, in batches), each by a random profile.
  const span = 28 * DAY;
  for (let e = 0; e < events; e++) {
    const at = START + Math.floor((e / events) * span);
    const profileId = profiles[Math.floor(rand() * profiles.length)] as string;
    const roll = rand();
    const base = { eventId: uuid(rand), profileId, sessionId: 's', pageId: 'p', timestamp: new Date(at).toISOString() };
    if (roll < 0.8) batch.push({ ...base, type: 'page', name: 'View Page', data: { path: '/' } });
    else if (roll < 0.92) batch.push({ ...base, type: 'track', name: 'Added to cart', data: { sku: 'p1' } });
    else batch.push({ ...base, type: 'track', name: 'Product ordered', data: { orderId: `o${e}`, price: Math.round(5 + rand() * 95) } });
    if (batch.length >= BATCH) await flush(at);
  }
  await flush(START + span);
}

/**
 * Converted units per variation: the floor's one aggregate (SQLite's JSON functions over the exposure sets; each
 * profile's last order from the events' (project, name, received_at) index, joined by an automatic index).
 */
const FLOOR_SQL = `
SELECT x.variation AS variation, COUNT(*) AS converted FROM (
  SELECT ex.profile_id AS profile_id, json_extract(j.value, '$[1]') AS variation, MIN(ex.ts) AS first
  FROM exposures ex, json_each(ex.choices) j
  WHERE ex.project = ? AND json_extract(j.value, '$[0]') = ?
  GROUP BY ex.profile_id, variation
) x JOIN (
  SELECT profile_id, MAX(ts) AS last FROM events WHERE project = ? AND name = 'Product ordered' GROUP BY profile_id
) o ON o.profile_id = x.profile_id AND o.last >= x.first
GROUP BY x.variation ORDER BY x.variation`;

async function floor(storage: Storage): Promise<Map<string, number>> {
  const rows = await storage.run(function* () {
    return (yield op(FLOOR_SQL, PROJECT, 'hero', PROJECT)).rows;
  });
  return new Map(rows.map((r) => [String(r.variation), Number(r.converted)]));
}

interface Answer {
  units: number;
  metrics: { name: string; variations: { name: string; total: number }[] }[];
}

async function results(app: FastifyInstance, query = ''): Promise<Answer> {
  const res = await app.inject({ method: 'GET', url: `/v1/acme/projects/shop/experiences/hero/results?apiKey=srv1.s3cret${query}` });
  if (res.statusCode !== 200) throw new Error(`results answered ${res.statusCode}: ${res.body}`);
  return res.json() as Answer;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = process.hrtime.bigint();
  const value = await work();
  return [value, Number(process.hrtime.bigint() - started) / 1e6];
}

async function measure(scale: number, rounds: number): Promise<ResultsBenchSize> {
  const units = Math.round(100_000 * scale);
  const events = Math.round(1_000_000 * scale);
  const dir = mkdtempSync(join(tmpdir(), 'svc-results-bench-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
  try {
    const setupStarted = Date.now();
    await generate(storage, units, events);
    const setupSeconds = (Date.now() - setupStarted) / 1000;
    const app = await buildApp({ config: config(), storage });
    try {
      // One of each first: statements prepared, pages cached, JIT warm.
      const [answer] = await timed(() => results(app));
      const [converted] = await timed(() => floor(storage));
      const ours: number[] = [];
      const theirs: number[] = [];
      for (let r = 0; r < rounds; r++) {
        ours.push((await timed(() => results(app)))[1]);
        theirs.push((await timed(() => floor(storage)))[1]);
      }
      // Converted units by both: the floor ignores the identity graph, so a person's orders on a second device count
      // only in ours (a few per cent more).
      const purchase = answer.metrics.find((m) => m.name === 'purchase');
      const convertedOurs = purchase?.variations.reduce((a, v) => a + v.total, 0) ?? 0;
      const convertedFloor = [...converted.values()].reduce((a, b) => a + b, 0);
      const resultsMs = median(ours);
      const floorMs = median(theirs);
      return { units, events, setupSeconds, resultsMs, floorMs, ratio: resultsMs / floorMs, answerUnits: answer.units, convertedOurs, convertedFloor };
    } finally {
      await app.close();
    }
  } finally {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const OTHERS = 49;
/** The others in the middle project: the time beside 24 and beside 49 others shows whether it grows with them. */
const HALF = 24;
const experimentName = (k: number): string => (k === 0 ? 'hero' : `exp${String(k).padStart(2, '0')}`);
/** Hero's metrics: those of the main sections, asked for by name (the project also has the others' goals). */
const HERO_METRICS = '&metrics=purchase,revenue,revenue-cuped';

function fiftyConfig(): ServiceConfigFile {
  const file = config();
  const shop = file.organizations.acme!.projects.shop!;
  const variations = [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }];
  shop.experiences = Array.from({ length: OTHERS + 1 }, (_, k) => ({ name: experimentName(k), variations }));
  for (let k = 1; k <= OTHERS; k++) shop.metrics!.push({ name: `goal-${k}`, event: `Goal ${k}`, type: 'binomial' });
  return file;
}

/**
 * Experiment `k` (0: hero) at its own seed, so hero's rows are the same in both projects: its units (profiles of
 * its own; a fifth identified, one in five of those on a second device too), each exposed by its Choose answer
 * (beside a personalization), reported when shown, or both; then `events` over four weeks by its profiles.
 */
async function generateExperiment(storage: Storage, k: number, units: number, events: number): Promise<void> {
  const rand = seededRandom(1000 + k);
  const name = experimentName(k);
  const exposures: ExposureSet[] = [];
  const batch: ServiceEvent[] = [];
  const profiles: string[] = [];
  const done = START + 28 * DAY;
  for (let u = 0; u < units; u++) {
    const profileId = `e${k}u${u}`;
    profiles.push(profileId);
    const variation = rand() < 0.5 ? 'control' : 'bold';
    const first = START + 14 * DAY + Math.floor(rand() * 14 * DAY);
    const roll = rand();
    const base = { profileId, sessionId: `s${profileId}`, pageId: 'p' };
    if (roll >= 0.1) exposures.push({ ...base, project: PROJECT, device: 'mobile', time: first, choices: [{ name, variation }, { name: 'banner' }] });
    if (roll < 0.2) {
      const data = { experience: name, variation, device: 'desktop' };
      batch.push({ ...base, eventId: uuid(rand), type: 'track', name: 'Experiment Viewed', timestamp: new Date(first + 1000).toISOString(), data });
    }
    if (u % 5 === 0) {
      const identify: ServiceEvent = { ...base, eventId: uuid(rand), type: 'identify', name: 'Identify', timestamp: new Date(START).toISOString(), userId: `e${k}user${u}` };
      batch.push(identify);
      if (u % 25 === 0) {
        profiles.push(`${profileId}-2`);
        batch.push({ ...identify, eventId: uuid(rand), profileId: `${profileId}-2` });
      }
    }
  }
  await chooseStore(storage).recordExposures(exposures);
  await indexExposures(storage);
  await ingestBatch(storage, PROJECT, 'web', batch.splice(0), { receivedAt: done });
  for (let e = 0; e < events; e++) {
    const at = START + Math.floor((e / events) * 28 * DAY);
    const base = { eventId: uuid(rand), profileId: profiles[Math.floor(rand() * profiles.length)] as string, sessionId: 's', pageId: 'p', timestamp: new Date(at).toISOString() };
    const roll = rand();
    if (roll < 0.8) batch.push({ ...base, type: 'page', name: 'View Page', data: { path: '/' } });
    else if (k > 0) batch.push({ ...base, type: 'track', name: `Goal ${k}` });
    else if (roll < 0.92) batch.push({ ...base, type: 'track', name: 'Added to cart', data: { sku: 'p1' } });
    else batch.push({ ...base, type: 'track', name: 'Product ordered', data: { orderId: `o${e}`, price: Math.round(5 + rand() * 95) } });
    if (batch.length >= BATCH || e === events - 1) await ingestBatch(storage, PROJECT, 'web', batch.splice(0), { receivedAt: at });
  }
}

/**
 * What a running service's indexer does within a second of the writes (results/exposure-indexer.ts): the exposures
 * measured are in results' index, as they are a moment after they were written.
 */
async function indexExposures(storage: Storage): Promise<void> {
  while ((await storage.place(INDEX_EXPOSURES, 5000)).more);
}

async function measureFifty(unitsEach: number, rounds: number): Promise<FiftyExperimentsSize> {
  const eventsEach = unitsEach * 10;
  const dir = mkdtempSync(join(tmpdir(), 'svc-results-fifty-'));
  const setupStarted = Date.now();
  // Hero alone; hero and 24 others; the same file copied, and 25 more.
  for (const [file, from, to] of [['alone.db', 0, 1], ['half.db', 0, HALF + 1], ['fifty.db', HALF + 1, OTHERS + 1]] as const) {
    if (from > 0) copyFileSync(join(dir, 'half.db'), join(dir, file));
    const storage = await openSqliteStorage(join(dir, file), SCHEMA);
    for (let k = from; k < to; k++) await generateExperiment(storage, k, unitsEach, eventsEach);
    // Closed before it is read: every file checkpointed, so none is read through a long WAL.
    await storage.close();
  }
  const setupSeconds = (Date.now() - setupStarted) / 1000;
  const storages = [
    await openSqliteStorage(join(dir, 'alone.db'), SCHEMA), await openSqliteStorage(join(dir, 'half.db'), SCHEMA), await openSqliteStorage(join(dir, 'fifty.db'), SCHEMA),
  ];
  try {
    const apps = await Promise.all(storages.map((storage) => buildApp({ config: fiftyConfig(), storage })));
    try {
      const answers = await Promise.all(apps.map((app) => results(app, HERO_METRICS)));
      const times: number[][] = [[], [], []];
      for (let r = 0; r < rounds; r++) {
        for (const [side, app] of apps.entries()) times[side]!.push((await timed(() => results(app, HERO_METRICS)))[1]);
      }
      const [aloneMs, halfMs, fiftyMs] = times.map(median) as [number, number, number];
      // Every unit was exposed (by its Choose answer, its report, or both, in one variation): each is counted once.
      return {
        unitsEach, eventsEach, setupSeconds, aloneMs, halfMs, fiftyMs, ratio: fiftyMs / aloneMs, exposedUnits: unitsEach,
        answerUnits: answers.map((a) => a.units), sameAnswers: answers.every((a) => JSON.stringify(a) === JSON.stringify(answers[0])),
      };
    } finally {
      await Promise.all(apps.map((app) => app.close()));
    }
  } finally {
    await Promise.all(storages.map((storage) => storage.close()));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runResultsBench(options: ResultsBenchOptions = {}): Promise<ResultsBench> {
  const sizes: ResultsBenchSize[] = [];
  for (const scale of options.scales ?? [0.25, 1]) sizes.push(await measure(scale, options.rounds ?? 5));
  const fiftyUnits = options.fiftyUnits ?? Number(process.env.BENCH_RESULTS_FIFTY_UNITS ?? 2000);
  const fifty = fiftyUnits > 0 ? await measureFifty(fiftyUnits, Math.max(9, options.rounds ?? 5)) : null;
  return { sizes, fifty };
}

export function formatResultsBench({ sizes, fifty }: ResultsBench): string {
  const n = (x: number) => x.toLocaleString('en-US');
  const lines = [
    '## Experiment results (SQLite): GET …/results for 3 metrics vs one SQL aggregate counting conversions per variation',
    '',
    '| units | events | results p50 | floor p50 | results / floor | goal | converted units: results / floor |',
    '|---:|---:|---:|---:|---:|---|---|',
  ];
  for (const s of sizes) {
    const goal = s.ratio <= 3 && s.resultsMs < 1000 ? 'met (≤ 3×, < 1 s)' : 'missed (≤ 3×, < 1 s)';
    lines.push(`| ${n(s.units)} | ${n(s.events)} | ${s.resultsMs.toFixed(0)} ms | ${s.floorMs.toFixed(0)} ms | ${s.ratio.toFixed(2)}× | ${goal} | ${n(s.convertedOurs)} / ${n(s.convertedFloor)} of ${n(s.answerUnits)} |`);
  }
  lines.push('', 'Data stored through the service\'s own programs (setup: '
    + sizes.map((s) => `${s.setupSeconds.toFixed(0)} s for ${n(s.events)} events`).join(', ') + '); nothing precomputed for results.');
  if (fifty !== null) {
    const f = fifty;
    lines.push(
      '', `### Fifty experiments: hero's results (3 metrics) alone in its project, beside 24 and beside 49 experiments of its size`, '',
      '| units each | events each | results p50: alone | beside 24 others | beside 49 others | 49 others / alone | 49 / 24 | units counted / exposed |',
      '|---:|---:|---:|---:|---:|---:|---:|---|',
      `| ${n(f.unitsEach)} | ${n(f.eventsEach)} | ${f.aloneMs.toFixed(1)} ms | ${f.halfMs.toFixed(1)} ms | ${f.fiftyMs.toFixed(1)} ms | `
        + `${f.ratio.toFixed(2)}× | ${(f.fiftyMs / f.halfMs).toFixed(2)}× | ${f.answerUnits.map(n).join(', ')} / ${n(f.exposedUnits)}`
        + `${f.sameAnswers ? ' (same answers)' : ' (answers DIFFER)'} |`,
      '', `Setup: ${f.setupSeconds.toFixed(0)} s for ${n((OTHERS + 2) * f.eventsEach)} events.`,
    );
  }
  return lines.join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatResultsBench(await runResultsBench({
    scales: (process.env.BENCH_RESULTS_SCALES ?? '0.25,1').split(',').filter((x) => x !== '').map(Number),
    rounds: Number(process.env.BENCH_RESULTS_ROUNDS ?? 5),
  })));
}
