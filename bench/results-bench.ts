// Experiment results at shop scale: 100,000 exposed units and 1,000,000 events (BENCH_RESULTS_SCALES lists the sizes, as shares of that).
// Measured in one run, in one process, on SQLite:
// - results: `GET …/experiences/hero/results` through the real route (app.inject: auth, query, reads, attribution,
//   statistics) for three metrics (a binomial, a sum, and the same sum with CUPED);
// - floor: the cheapest question over the same tables — one SQL aggregate that counts converted units per variation
//   (first exposure per profile from the exposure sets, joined with that profile's last order, read through the
//   events' (project, name, received_at) index). No identity graph, no windows, no statistics.
// Rounds alternate between the two; the ratio is results p50 / floor p50. Then hero gets a second phase (its traffic
// changed a week into its two weeks of exposures) and each phase's results are asked for with a breakdown by browser
// and the daily series, alternating with the floor again: the slower phase against the same floor.
//
// The data is generated here and stored through the service's own programs (ingestBatch for events, the Choose
// API's exposure insert for exposures); the HTTP paths that write them are what the ingest and Choose benches measure.
// The mix: 20 % of exposed units were identified, and one in five of those on a second device too (their events
// count for the person); 20,000 profiles that never saw the experiment send events as well. Events: page views
// (80 %), add-to-cart (12 %) and orders (8 %), over four weeks, the first two before the units' first exposures
// (what CUPED adjusts by).
//
// "Fifty experiments" (results-fifty-bench.ts): hero's results alone in its project and beside 49 others.
import { mkdtempSync, rmSync } from 'node:fs';
import { measureFifty, OTHERS, type FiftyExperimentsSize } from './results-fifty-bench.js';
import {
  BATCH, config, DAY, HERO_V1, indexExposures, median, PROJECT, results, START, timed, uuid,
} from './results-data.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { chooseStore } from '../server/choose/choose-store.js';
import type { ExposureSet } from '../server/choose/exposure-programs.js';
import { ingestBatch } from '../server/programs.js';
import { recordPhaseStep } from '../server/phases/phase-store.js';
import { op } from '../server/storage/sql-program.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../server/storage/storage.js';
import type { ServiceEvent } from '../wire/event.js';
import { seededRandom } from './seeded-random.js';
import { SCHEMA } from '../server/schema.js';
import { goalMark } from './goal-mark.js';

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
  /** The slower phase's p50 with a browser breakdown and the daily series, and its ratio to the floor. */
  phasedMs: number;
  phasedRatio: number;
  /** Units of phase 1 and phase 2 (their sum is the answer's units without phases). */
  phaseUnits: number[];
  /** Browser values and days the second phase's answer had: it did break down and draw the series. */
  breakdownValues: number;
  seriesDays: number;
}

/** The browser families exposures carry (what the Choose route records from the User-Agent). */
const BROWSERS = ['Chrome', 'Safari', 'Firefox', 'Edge', 'Samsung Internet'];

/** hero's second phase, recorded as a management write would record it, a week into its two weeks of exposures. */
async function recordSecondPhase(storage: Storage): Promise<void> {
  await storage.transaction(function* () {
    yield* recordPhaseStep({ project: PROJECT, name: 'hero', before: HERO_V1, beforeVersion: 1, after: { ...HERO_V1, traffic: 90 }, version: 2, at: START + 21 * DAY });
  });
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
    const context = JSON.stringify({ browser: BROWSERS[Math.floor(rand() * BROWSERS.length)], ...(rand() < 0.3 ? { utm_source: 'news' } : {}) });
    exposures.push({ project: PROJECT, profileId, sessionId: `s${u}`, device: rand() < 0.6 ? 'mobile' : 'desktop', time: first, context, choices });
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

/** What the phased measurement asks for besides the phase: a breakdown and the daily series. */
const SEGMENTED = '&dimension=browser&series=day';

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
      // The same experiment in two phases (its traffic changed a week in), each phase's results broken down by browser
      // with the daily series: the slower phase's p50 against the floor's.
      await recordSecondPhase(storage);
      const phased = [0, 0].map((): number[] => []);
      const [first] = await timed(() => results(app, `&phase=1${SEGMENTED}`));
      const [second] = await timed(() => results(app, SEGMENTED));
      for (let r = 0; r < rounds; r++) {
        phased[0]!.push((await timed(() => results(app, `&phase=1${SEGMENTED}`)))[1]);
        theirs.push((await timed(() => floor(storage)))[1]);
        phased[1]!.push((await timed(() => results(app, SEGMENTED)))[1]);
      }
      const phasedMs = Math.max(median(phased[0]!), median(phased[1]!));
      // Converted units by both: the floor ignores the identity graph, so a person's orders on a second device count
      // only in ours (a few per cent more).
      const purchase = answer.metrics.find((m) => m.name === 'purchase');
      const convertedOurs = purchase?.variations.reduce((a, v) => a + v.total, 0) ?? 0;
      const convertedFloor = [...converted.values()].reduce((a, b) => a + b, 0);
      const resultsMs = median(ours);
      const floorMs = median(theirs);
      return {
        units, events, setupSeconds, resultsMs, floorMs, ratio: resultsMs / floorMs, answerUnits: answer.units, convertedOurs, convertedFloor,
        phasedMs, phasedRatio: phasedMs / floorMs, phaseUnits: [first.units, second.units],
        breakdownValues: (second.dimensions ?? []).length, seriesDays: (second.series ?? []).length,
      };
    } finally {
      await app.close();
    }
  } finally {
    await storage.close();
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
    const goal = goalMark(s.ratio <= 3 && s.resultsMs < 1000, '≤ 3×, < 1 s');
    lines.push(`| ${n(s.units)} | ${n(s.events)} | ${s.resultsMs.toFixed(0)} ms | ${s.floorMs.toFixed(0)} ms | ${s.ratio.toFixed(2)}× | ${goal} | ${n(s.convertedOurs)} / ${n(s.convertedFloor)} of ${n(s.answerUnits)} |`);
  }
  lines.push('', '### The same, in two phases, each broken down by browser with the daily series (the slower phase)', '',
    '| units | events | results p50 | floor p50 | results / floor | goal | units per phase | browsers · days |', '|---:|---:|---:|---:|---:|---|---|---|');
  for (const s of sizes) {
    const goal = goalMark(s.phasedRatio <= 3 && s.phasedMs < 1000, '≤ 3×, < 1 s');
    lines.push(`| ${n(s.units)} | ${n(s.events)} | ${s.phasedMs.toFixed(0)} ms | ${s.floorMs.toFixed(0)} ms | ${s.phasedRatio.toFixed(2)}× | ${goal} | `
      + `${s.phaseUnits.map(n).join(' + ')} | ${s.breakdownValues} · ${s.seriesDays} |`);
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
