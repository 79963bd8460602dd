// The bandit simulation's model and its runs (bench/bandit-simulation.ts prints them): simulated traffic, the service's
// estimator and Thompson weights on it hour by hour, and what each simulated experiment ends with.
import type { MetricResult, ResultsAnswer, ResultsAnalysis, VariationStats } from '../wire/results-answer.js';
import { BANDIT_DEFAULTS } from '../server/config/bandit-settings.js';
import { thompsonWeights } from '../server/bandits/thompson-weights.js';
import { armPosteriors } from '../server/results/bandit-arms.js';
import { stratifiedMetricResult } from '../server/results/bandit-report.js';
import { judge } from '../server/results/judge.js';
import { compare, type Moments } from '../server/results/statistics.js';
import { combinePairs, pairFromSums, type PairSummary } from '../server/results/unit-statistics.js';
import { variates, type Variates } from './random-variates.js';
export interface Scenario {
  name: string;
  metric: 'binomial' | 'revenue';
  /** Per arm: the share of units converting (buying). */
  rates: number[];
  /** Per arm, revenue: the order value's multiplier. */
  values: number[];
  /** The best arm's index, or null when all are equal. */
  best: number | null;
}

export const SCENARIOS: Scenario[] = [
  { name: 'binomial 5 % vs 5.5 %', metric: 'binomial', rates: [0.05, 0.05, 0.05, 0.055], values: [1, 1, 1, 1], best: 3 },
  { name: 'revenue, one arm +10 %', metric: 'revenue', rates: [0.05, 0.05, 0.05, 0.05], values: [1, 1, 1, 1.1], best: 3 },
  { name: 'A/A/A/A (binomial 5 %)', metric: 'binomial', rates: [0.05, 0.05, 0.05, 0.05], values: [1, 1, 1, 1], best: null },
];

export interface SimulationOptions {
  runs: number;
  unitsPerHour: number;
  days: number;
  draws: number;
  alpha: number;
}

const ARMS = ['control', 'b', 'c', 'd'];
export const EXPLORATION_HOURS = BANDIT_DEFAULTS.explorationHours;
export const MIN_SHARE = BANDIT_DEFAULTS.minShare;
const ORDER_MU = 3.5;
const ORDER_SIGMA = 1;

/** The hour's traffic: a daily cycle around the mean. */
function unitsAt(hour: number, perHour: number): number {
  return Math.round(perHour * (1 + 0.5 * Math.sin((2 * Math.PI * ((hour % 24) - 9)) / 24)));
}

/** The metric's level at an hour, for every arm alike: a daily cycle and a rise over the run. */
function levelAt(hour: number, hours: number): number {
  return (1 + 0.2 * Math.sin((2 * Math.PI * ((hour % 24) - 6)) / 24)) * (1 + (0.3 * hour) / (hours - 1));
}

/** The true mean of an arm's per-unit value at an hour. */
function trueMean(s: Scenario, arm: number, hour: number, hours: number): number {
  const rate = (s.rates[arm] as number) * levelAt(hour, hours);
  return s.metric === 'binomial' ? rate : rate * (s.values[arm] as number) * Math.exp(ORDER_MU + (ORDER_SIGMA * ORDER_SIGMA) / 2);
}

/** One hour's units of one arm: n, Σ value, Σ value². */
function draw(v: Variates, s: Scenario, arm: number, hour: number, hours: number, n: number): [number, number, number] {
  const converted = v.binomial(n, (s.rates[arm] as number) * levelAt(hour, hours));
  if (s.metric === 'binomial') return [n, converted, converted];
  let sum = 0;
  let squares = 0;
  for (let i = 0; i < converted; i++) {
    const value = v.lognormal(ORDER_MU, ORDER_SIGMA) * (s.values[arm] as number);
    sum += value;
    squares += value * value;
  }
  return [n, sum, squares];
}

/** What one simulated experiment ends with. */
export interface RunOutcome {
  finalShareBest: number;
  unitsShareBest: number;
  /** Per challenger: whether the 95 % interval of its relative effect covers the truth (null: no interval). */
  covers: (boolean | null)[];
  pooledCovers: (boolean | null)[];
  significant: boolean[];
  /** The same without a correction. */
  significantUncorrected: boolean[];
  uplifts: (number | null)[];
}

const ANALYSIS = (alpha: number): ResultsAnalysis => ({ alpha, interval: 'fixed-horizon', correction: 'holm-bonferroni' });

/** Raw moments of each arm from its totals, as the results answer them. */
function momentsOf(s: Scenario, totals: readonly PairSummary[]): Moments[] {
  return totals.map((t) => {
    const n = t.x.n;
    if (n === 0) return { units: 0, total: 0, mean: null, stddev: null };
    const stddev = s.metric === 'binomial' ? Math.sqrt(t.x.mean * (1 - t.x.mean)) : n < 2 ? null : Math.sqrt(t.x.m2 / (n - 1));
    return { units: n, total: t.x.mean * n, mean: t.x.mean, stddev };
  });
}

function metricOf(s: Scenario, variations: VariationStats[]): MetricResult {
  return { name: s.metric, type: s.metric === 'binomial' ? 'binomial' : 'sum', role: 'goal', inverse: false, cupedApplied: false, variations };
}

/** An answer holding one metric, as armPosteriors reads one. */
function answerOf(metric: MetricResult, alpha: number): ResultsAnswer {
  const variations = metric.variations.map((v) => ({ name: v.name, weight: 0, units: v.units }));
  return {
    experience: 'simulated', control: ARMS[0] as string, phase: 1, phases: [], units: 0, multipleExposures: 0,
    srm: { pValue: null, mismatch: false }, analysis: ANALYSIS(alpha), variations, metrics: [metric],
  };
}

/** The bandit's analysis of its periods so far (stratified), as the results endpoint answers it. */
function banditMetric(s: Scenario, periods: readonly PairSummary[][], alpha: number): MetricResult {
  const totals = ARMS.map((_, k) => periods.reduce((sum, cells) => combinePairs(sum, cells[k] as PairSummary), pairFromSums(0, 0, 0, 0, 0, 0)));
  const raw = metricOf(s, momentsOf(s, totals).map((m, k) => ({ name: ARMS[k] as string, ...m })));
  return stratifiedMetricResult(raw, periods, { alpha });
}

/** The fixed-weight experiment's analysis (one period, Welch's t): what compare() answers. */
function fixedMetric(s: Scenario, totals: readonly PairSummary[], alpha: number): MetricResult {
  const moments = momentsOf(s, totals);
  const control = moments[0] as Moments;
  return metricOf(s, moments.map((m, k) => ({ name: ARMS[k] as string, ...m, ...(k === 0 ? {} : compare(control, m, { alpha })) })));
}

/** Judged as a bandit's goal: Holm across the challengers; and each on its own p-value. */
function judged(metric: MetricResult, alpha: number): { significant: boolean[]; uncorrected: boolean[] } {
  const uncorrected = metric.variations.slice(1).map((v) => typeof v.pValue === 'number' && v.pValue < alpha);
  judge(ANALYSIS(alpha), new Map([[metric.name, 'goal']]), [[metric]]);
  return { significant: metric.variations.slice(1).map((v) => v.significant === true), uncorrected };
}

function covering(ci: [number, number] | null | undefined, truth: number): boolean | null {
  return ci == null ? null : ci[0] <= truth && truth <= ci[1];
}

/**
 * One simulated experiment: a bandit, or the fixed-weight experiment, on scenario `s` with its own seed. `trace` is
 * told each hour's weights (percent, by arm).
 */
export function simulateRun(
  s: Scenario, design: 'bandit' | 'fixed', run: number, o: SimulationOptions, trace?: (hour: number, weights: readonly number[]) => void,
): RunOutcome {
  const hours = o.days * 24;
  const v = variates(1_000_003 * (SCENARIOS.indexOf(s) + 1) + 7919 * run + (design === 'bandit' ? 0 : 500_009));
  const periods: PairSummary[][] = [];
  const totals = ARMS.map(() => pairFromSums(0, 0, 0, 0, 0, 0));
  let weights = ARMS.map(() => 100 / ARMS.length);
  const units = ARMS.map(() => 0);
  for (let hour = 0; hour < hours; hour++) {
    if (design === 'bandit' && hour >= EXPLORATION_HOURS) {
      const arms = armPosteriors(answerOf(banditMetric(s, periods, o.alpha), o.alpha), s.metric);
      const drawn = thompsonWeights(arms, { minShare: MIN_SHARE, draws: o.draws, seed: `${s.name}/${run}/${hour}` });
      weights = ARMS.map((name) => drawn.weights[name] as number);
    }
    trace?.(hour, weights);
    const split = v.multinomial(unitsAt(hour, o.unitsPerHour), weights.map((w) => w / 100));
    const cells = split.map((n, k) => {
      units[k] = (units[k] as number) + n;
      const [count, sum, squares] = draw(v, s, k, hour, hours, n);
      return pairFromSums(count, sum, squares, 0, 0, 0);
    });
    cells.forEach((cell, k) => { totals[k] = combinePairs(totals[k] as PairSummary, cell); });
    // Exploration is one period (its weights never move); then each hour is the period between two reweights.
    const exploring = design === 'fixed' || hour < EXPLORATION_HOURS;
    if (exploring && periods.length > 0) periods[0] = (periods[0] as PairSummary[]).map((c, k) => combinePairs(c, cells[k] as PairSummary));
    else periods.push(cells);
  }
  const metric = design === 'bandit' ? banditMetric(s, periods, o.alpha) : fixedMetric(s, totals, o.alpha);
  const pooled = fixedMetric(s, totals, o.alpha);
  const truth = ARMS.map((_, k) => {
    let a = 0;
    let b = 0;
    for (let hour = 0; hour < hours; hour++) {
      a += unitsAt(hour, o.unitsPerHour) * trueMean(s, 0, hour, hours);
      b += unitsAt(hour, o.unitsPerHour) * trueMean(s, k, hour, hours);
    }
    return b / a - 1;
  });
  const { significant, uncorrected } = judged(metric, o.alpha);
  const all = units.reduce((x, y) => x + y, 0);
  return {
    finalShareBest: s.best === null ? NaN : (weights[s.best] as number) / 100,
    unitsShareBest: s.best === null ? NaN : (units[s.best] as number) / all,
    covers: metric.variations.slice(1).map((x, i) => covering(x.ci, truth[i + 1] as number)),
    pooledCovers: pooled.variations.slice(1).map((x, i) => covering(x.ci, truth[i + 1] as number)),
    significant,
    significantUncorrected: uncorrected,
    uplifts: metric.variations.slice(1).map((x) => x.uplift ?? null),
  };
}

/** One row of the table: a scenario and a design over all its runs. */
export interface Row {
  scenario: string;
  design: 'bandit' | 'fixed 25/25/25/25';
  runs: number;
  finalShareBest: number;
  unitsShareBest: number;
  coverage: number;
  pooledCoverage: number;
  noInterval: number;
  meanUplift: number;
  power: number;
  anySignificant: number;
  anyUncorrected: number;
}

export function summarize(s: Scenario, design: 'bandit' | 'fixed', outcomes: readonly RunOutcome[]): Row {
  const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  // The best arm's interval; with no best arm, every challenger's.
  const pick = <T>(xs: readonly T[]): T[] => (s.best === null ? [...xs] : [xs[s.best - 1] as T]);
  const covers = outcomes.flatMap((r) => pick(r.covers));
  const pooled = outcomes.flatMap((r) => pick(r.pooledCovers));
  return {
    scenario: s.name, design: design === 'bandit' ? 'bandit' : 'fixed 25/25/25/25', runs: outcomes.length,
    finalShareBest: mean(outcomes.map((r) => r.finalShareBest)),
    unitsShareBest: mean(outcomes.map((r) => r.unitsShareBest)),
    coverage: mean(covers.map((c) => (c === true ? 1 : 0))),
    pooledCoverage: mean(pooled.map((c) => (c === true ? 1 : 0))),
    noInterval: covers.filter((c) => c === null).length,
    meanUplift: s.best === null ? NaN : mean(outcomes.map((r) => r.uplifts[(s.best as number) - 1] ?? NaN)),
    power: s.best === null ? NaN : mean(outcomes.map((r) => (r.significant[(s.best as number) - 1] ? 1 : 0))),
    anySignificant: mean(outcomes.map((r) => (r.significant.some(Boolean) ? 1 : 0))),
    anyUncorrected: mean(outcomes.map((r) => (r.significantUncorrected.some(Boolean) ? 1 : 0))),
  };
}

