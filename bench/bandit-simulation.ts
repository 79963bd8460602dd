// Does the service's bandit do what it promises? Simulated bandits run as the service runs one, beside the fixed-weight
// experiment on the same kind of traffic. `node --import tsx bench/bandit-simulation.ts [runs]` (default 500 per row).
//
// Each simulated experiment has 4 arms (the control first) and runs 14 days. Units arrive every hour (BENCH_BANDIT_UNITS
// an hour on average, with a daily cycle of ±50 %), each once, and keep the arm they were given (sticky: checked against
// the real assignment rule below). The metric moves with time for every arm alike: ±20 % over the day and +30 % from
// the first day to the last (a season building up), so an arm that gets more traffic later looks better by the
// calendar while its true relative effect is constant. The bandit explores with equal weights for its first 24 hours
// (one period), then reweights every hour: each arm's posterior from the service's own estimator (the results'
// stratified means, server/results/bandit-report.ts, read through armPosteriors) on the data so far, weights from
// thompsonWeights (server/bandits/) with a floor of 1 % (BENCH_BANDIT_DRAWS posterior draws, default 1,000 rather than
// the service's 10,000: the weights' Monte-Carlo error is then ±1.6 points, and the bench runs in minutes). At the
// end the experiment is analysed as the results endpoint analyses it: fixed-horizon, α = 0.05, Holm across the 3
// challengers (a bandit's default); the fixed-weight experiment (25/25/25/25) by compare() with the same correction.
// - binomial: conversion 5 % (arms 1–3) and 5.5 % (arm 4, the best: +10 %).
// - revenue: 5 % of units buy, each order lognormal (σ = 1, mean ≈ 55); arm 4's orders are 10 % larger.
// - A/A/A/A: every arm converts at 5 %.
// Columns: the best arm's share of the traffic at the end (its weight in the last hour) and over the whole run; how
// often the 95 % interval of the best arm's relative effect (A/A: every challenger's) covers the true one, with the
// same from the pooled, calendar-blind analysis of the bandit's units for contrast; how often the best arm is declared
// significant (power) and how often any arm is (in A/A/A/A the false-positive rate, to hold at α). Monte-Carlo error of
// a share p over N runs: sqrt(p(1 − p)/N), about ±1 point at 95 % over 500.
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import {
  EXPLORATION_HOURS, MIN_SHARE, SCENARIOS, simulateRun, summarize, type Row, type RunOutcome, type Scenario, type SimulationOptions,
} from './bandit-sim.js';
import { checkStickiness, type StickinessCheck } from './bandit-stickiness.js';
import { goalMark } from './goal-mark.js';

const percent = (x: number): string => (Number.isNaN(x) ? '–' : `${(100 * x).toFixed(1)} %`);

/**
 * A row's goals, each marked: a bandit gives the best arm ≥ 70 % of the traffic by the end; every design's interval covers
 * the true effect ≥ 93 % of the time; with no best arm, any significant (Holm) ≤ α, within the Monte-Carlo error.
 */
function rowGoals(r: Row, o: SimulationOptions): string {
  const noBest = SCENARIOS.find((s) => s.name === r.scenario)?.best === null;
  const alphaBound = o.alpha + 2 * Math.sqrt((o.alpha * (1 - o.alpha)) / r.runs);
  return [
    ...(r.design === 'bandit' && !noBest ? [goalMark(r.finalShareBest >= 0.7, 'weight ≥ 70 %')] : []),
    goalMark(r.coverage >= 0.93, 'covers ≥ 93 %'),
    ...(noBest ? [goalMark(r.anySignificant <= alphaBound, `any ≤ ${percent(o.alpha)}`)] : []),
  ].join('; ');
}

export function formatTable(rows: readonly Row[], o: SimulationOptions, stickiness: StickinessCheck, seconds: number): string {
  const head = ['scenario', 'design', 'runs', 'best: weight at end', 'best: units', 'CI covers', 'pooled CI covers',
    'mean uplift (true 0.10)', 'best significant', 'any significant (Holm)', 'any (uncorrected)', 'goals'];
  const body = rows.map((r) => [r.scenario, r.design, String(r.runs), percent(r.finalShareBest), percent(r.unitsShareBest),
    `${percent(r.coverage)}${r.noInterval > 0 ? ` (${r.noInterval} without)` : ''}`, percent(r.pooledCoverage),
    Number.isNaN(r.meanUplift) ? '–' : r.meanUplift.toFixed(4), percent(r.power), percent(r.anySignificant), percent(r.anyUncorrected),
    rowGoals(r, o)]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => (b[i] as string).length)));
  const line = (cells: readonly string[]): string => `| ${cells.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [
    `Bandit simulation: 4 arms, ${o.days} days, ${o.unitsPerHour} units an hour on average, exploration ${EXPLORATION_HOURS} h, hourly`
      + ` Thompson reweights (${o.draws} draws), floor ${MIN_SHARE} %, α = ${o.alpha}, ${o.runs} runs per row (${seconds.toFixed(0)} s)`,
    line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line),
    `Goals: best's weight at the end ≥ 70 %; CI covers ≥ 93 %; A/A/A/A any significant (Holm) ≤ ${percent(o.alpha)} (within the`
      + ' Monte-Carlo error, 2 × sqrt(α(1 − α)/runs)).',
    `Sticky assignment (the choose engine with insert-if-absent first assignments, one bandit's reweights): ${stickiness.checks}`
      + ` checks of ${stickiness.units} units over ${stickiness.reweights} weight changes, ${stickiness.moved} moved; without the`
      + ` stored assignments the hash would have moved ${stickiness.wouldMove} of them.`,
  ].join('\n');
}

/** The options from the command line and the environment. */
export function optionsFromEnvironment(): SimulationOptions {
  return {
    runs: Number(process.argv[2] ?? process.env.BENCH_BANDIT_RUNS ?? 500),
    unitsPerHour: Number(process.env.BENCH_BANDIT_UNITS ?? 2000),
    days: Number(process.env.BENCH_BANDIT_DAYS ?? 14),
    draws: Number(process.env.BENCH_BANDIT_DRAWS ?? 1000),
    alpha: 0.05,
  };
}

interface Job {
  scenario: number;
  design: 'bandit' | 'fixed';
}

interface Slice {
  jobs: Job[];
  runs: number[];
  options: SimulationOptions;
}

/**
 * Every job's runs on worker threads (one per core, at most 4), each thread a slice of the runs of every job (seeds are
 * per run, so the slicing changes nothing); answers each job's outcomes in run order.
 */
async function inWorkers(jobs: readonly Job[], options: SimulationOptions): Promise<RunOutcome[][]> {
  const threads = Math.max(1, Math.min(availableParallelism(), 4));
  const runs = Array.from({ length: options.runs }, (_, i) => i);
  const slices = await Promise.all(Array.from({ length: threads }, (_, t) => new Promise<RunOutcome[][]>((resolve, reject) => {
    const slice: Slice = { jobs: [...jobs], runs: runs.filter((i) => i % threads === t), options };
    // A worker does not inherit tsx's loader: it registers it, then loads this file.
    const load = `import('tsx/esm/api').then(({ register }) => { register(); return import(${JSON.stringify(import.meta.url)}); })`;
    const worker = new Worker(load, { eval: true, workerData: slice });
    worker.once('message', resolve);
    worker.once('error', reject);
  })));
  return jobs.map((_, j) => runs.map((i) => (slices[i % threads] as RunOutcome[][])[j]![Math.floor(i / threads)]!));
}

if (!isMainThread) {
  const { jobs, runs, options } = workerData as Slice;
  parentPort?.postMessage(jobs.map((job) => runs.map((run) => simulateRun(SCENARIOS[job.scenario] as Scenario, job.design, run, options))));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const options = optionsFromEnvironment();
  const started = performance.now();
  const jobs: Job[] = SCENARIOS.flatMap((_, scenario) => (['bandit', 'fixed'] as const).map((design) => ({ scenario, design })));
  const outcomes = await inWorkers(jobs, options);
  const rows: Row[] = jobs.map((job, j) => summarize(SCENARIOS[job.scenario] as Scenario, job.design, outcomes[j] as RunOutcome[]));
  const stickiness = await checkStickiness(options);
  console.log(formatTable(rows, options, stickiness, (performance.now() - started) / 1000));
}
