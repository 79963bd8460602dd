// "Fifty experiments": the same experiment's results (hero, BENCH_RESULTS_FIFTY_UNITS units, 10 events each) in a
// project where it is alone, and in ones where 24 and 49 other experiments of the same size have their own units,
// exposures (a tenth reported when shown, as `Experiment Viewed` events, a tenth both), identity links and events
// (their own metric's event, page views), p50 against p50: what the others cost a read of hero (1 = nothing).
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ServiceConfigFile } from '../server/config/config-types.js';
import { buildApp } from '../server/app.js';
import { chooseStore } from '../server/choose/choose-store.js';
import type { ExposureSet } from '../server/choose/exposure-programs.js';
import { ingestBatch } from '../server/programs.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../server/storage/storage.js';
import type { ServiceEvent } from '../wire/event.js';
import { SCHEMA } from '../server/schema.js';
import { seededRandom } from './seeded-random.js';
import { BATCH, config, DAY, indexExposures, median, PROJECT, results, START, timed, uuid } from './results-data.js';

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

export const OTHERS = 49;
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

export async function measureFifty(unitsEach: number, rounds: number): Promise<FiftyExperimentsSize> {
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

