// Why sequential testing exists: simulated experiments read every day, as people read a live results page.
//
// Each simulated experiment has two variations of a binomial metric (a purchase, base rate 5 %); every simulated day
// 1,000 new units join each variation, for 28 days (28,000 per variation at the planned end: a shop with 2,000
// visitors a day in the experiment, and enough units for 80 % power on a +10 % lift with one look at the end). After each day the
// cumulative data is compared with the engine the results endpoint uses (`compare` from server/results/statistics.ts),
// once with fixed-horizon t-tests and once with sequential ones (tuning parameter 5,000), at alpha = 0.05.
// - A/A (no true effect): the share of experiments ever declared significant on some day. With fixed-horizon p-values
//   that share is several times alpha (the peeking problem); with sequential ones it stays at or below alpha.
// - A/B (a true +10 % relative effect): the share significant the right way at the planned end (day 28), the power a
//   team gives up for being allowed to look every day, and the share ever significant; sequential both with the
//   default tuning (5,000) and tuned to the planned 56,000 units, as GrowthBook advises.
// The Monte-Carlo error of a share p over N experiments is sqrt(p(1 − p)/N).
import { compare, moments, type Moments } from '../server/results/statistics.js';
import { goalMark } from './goal-mark.js';
import { seededRandom } from './seeded-random.js';

export interface PeekingOptions {
  experiments?: number;
  days?: number;
  unitsPerDay?: number;
  baseRate?: number;
  /** Relative effect of the treatment; 0 for A/A. */
  effect?: number;
  alpha?: number;
  tuning?: number;
  seed?: number;
}

export interface PeekingResult {
  experiments: number;
  days: number;
  unitsPerDay: number;
  effect: number;
  alpha: number;
  tuning: number;
  /** Comparisons computed (experiments × days × 2 tests): proof the engine ran. */
  comparisons: number;
  /**
   * Shares of experiments declared significant on some day (`ever`) and at the planned end (`atEnd`); with a true effect,
   * declared the right way only (the power), without one, either way (false positives).
   */
  fixed: { ever: number; atEnd: number };
  sequential: { ever: number; atEnd: number };
  /** The guardrail test of harm (the treatment lowers the rate), one-sided sequential, on the same comparisons. */
  harm: { ever: number; atEnd: number };
}

/** Moments of a binomial variation from its counts (what moments('binomial', values) gives for those values). */
function binomialMoments(units: number, converted: number): Moments {
  const mean = converted / units;
  return { units, total: converted, mean, stddev: Math.sqrt(mean * (1 - mean)) };
}

/**
 * Runs the simulation; each experiment's data are drawn unit by unit from a seeded generator, so a run is the same
 * every time for the same options.
 * @example simulatePeeking({ experiments: 2000 }) // A/A: fixed.ever ≈ 0.2, sequential.ever ≤ 0.05
 */
export function simulatePeeking(options: PeekingOptions = {}): PeekingResult {
  const {
    experiments = 2000, days = 28, unitsPerDay = 1000, baseRate = 0.05, effect = 0, alpha = 0.05, tuning = 5000, seed = 20261126,
  } = options;
  const random = seededRandom(seed);
  const rates = [baseRate, baseRate * (1 + effect)];
  const result: PeekingResult = {
    experiments, days, unitsPerDay, effect, alpha, tuning, comparisons: 0, fixed: { ever: 0, atEnd: 0 }, sequential: { ever: 0, atEnd: 0 },
    harm: { ever: 0, atEnd: 0 },
  };
  // The engine is checked against moments() of real values once, so the shortcut above is the same arithmetic.
  const check = binomialMoments(4, 1);
  const real = moments('binomial', [1, 0, 0, 0]);
  if (check.mean !== real.mean || check.stddev !== real.stddev) throw new Error('peeking bench: binomial moments disagree');
  for (let e = 0; e < experiments; e++) {
    const converted = [0, 0];
    let everFixed = false;
    let everSequential = false;
    let everHarm = false;
    for (let day = 1; day <= days; day++) {
      for (let arm = 0; arm < 2; arm++) {
        for (let u = 0; u < unitsPerDay; u++) if (random() < (rates[arm] as number)) (converted[arm] as number)++;
      }
      const units = day * unitsPerDay;
      const a = binomialMoments(units, converted[0] as number);
      const b = binomialMoments(units, converted[1] as number);
      const fixed = compare(a, b, { alpha });
      const sequential = compare(a, b, { alpha, sequential: true, sequentialTuning: tuning, guardrail: true });
      result.comparisons += 2;
      // With a true effect, only a declaration the right way finds it; without one, any declaration is a false one.
      const rightWay = (c: { uplift: number | null }): boolean => effect === 0 || Math.sign(c.uplift ?? 0) === Math.sign(effect);
      const fixedHit = fixed.pValue !== null && fixed.pValue < alpha && rightWay(fixed);
      const sequentialHit = sequential.pValue !== null && sequential.pValue < alpha && rightWay(sequential);
      everFixed ||= fixedHit;
      everSequential ||= sequentialHit;
      everHarm ||= sequential.harm?.harmed === true;
      if (day === days) {
        if (fixedHit) result.fixed.atEnd++;
        if (sequentialHit) result.sequential.atEnd++;
        if (sequential.harm?.harmed === true) result.harm.atEnd++;
      }
    }
    if (everFixed) result.fixed.ever++;
    if (everSequential) result.sequential.ever++;
    if (everHarm) result.harm.ever++;
  }
  for (const test of [result.fixed, result.sequential, result.harm]) {
    test.ever /= experiments;
    test.atEnd /= experiments;
  }
  return result;
}

/** The Monte-Carlo standard error of a share over n experiments. */
export function monteCarloError(share: number, n: number): number {
  return Math.sqrt((share * (1 - share)) / n);
}

export function formatPeekingBench(aa: PeekingResult, ab: PeekingResult, abTuned: PeekingResult): string {
  const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
  const err = (x: number, n: number): string => `± ${(100 * monteCarloError(x, n)).toFixed(1)}`;
  const n = aa.experiments;
  const tuning = (r: PeekingResult): string => r.tuning.toLocaleString('en-US');
  const lift = `+${Math.round(ab.effect * 100)} %`;
  const bound = aa.alpha + 2 * monteCarloError(aa.alpha, n);
  const lines = [
    `## Peeking: ${n} simulated experiments per row, read every day for ${aa.days} days ` +
      `(${aa.unitsPerDay.toLocaleString('en-US')} new units per variation a day, purchase rate 5 %, alpha ${aa.alpha})`,
    '',
    '| experiments | test | ever significant (any day) | significant at day 28 | goal |',
    '|---|---|---|---|---|',
    `| A/A (no effect) | fixed-horizon t-test | ${pct(aa.fixed.ever)} ${err(aa.fixed.ever, n)} | ${pct(aa.fixed.atEnd)} | — (the peeking problem) |`,
    `| A/A (no effect) | sequential (tuning ${tuning(aa)}) | ${pct(aa.sequential.ever)} ${err(aa.sequential.ever, n)} | ${pct(aa.sequential.atEnd)} | ${goalMark(aa.sequential.ever <= bound, `≤ ${pct(aa.alpha)}`)} |`,
    `| A/B (${lift}) | fixed-horizon t-test | ${pct(ab.fixed.ever)} | ${pct(ab.fixed.atEnd)} (power) | — |`,
    `| A/B (${lift}) | sequential (tuning ${tuning(ab)}) | ${pct(ab.sequential.ever)} | ${pct(ab.sequential.atEnd)} (power) | — |`,
    `| A/B (${lift}) | sequential (tuning ${tuning(abTuned)}) | ${pct(abTuned.sequential.ever)} | ${pct(abTuned.sequential.atEnd)} (power) | — |`,
    '',
    `Peeking daily at fixed-horizon p-values declares ${(aa.fixed.ever / aa.alpha).toFixed(1)}× alpha of A/A experiments significant; ` +
      `sequential keeps it at ${(aa.sequential.ever / aa.alpha).toFixed(2)}× alpha. At the planned end sequential keeps ` +
      `${(ab.sequential.atEnd / ab.fixed.atEnd).toFixed(2)} of the fixed-horizon power (${(abTuned.sequential.atEnd / ab.fixed.atEnd).toFixed(2)} ` +
      `tuned to the planned units) and is allowed to stop early (${aa.comparisons + ab.comparisons + abTuned.comparisons} comparisons computed).`,
  ];
  return lines.join('\n');
}

/** The three rows' simulations: A/A, and A/B with the default tuning and with the planned sample size. */
export function runPeekingBench(experiments = 2000): [PeekingResult, PeekingResult, PeekingResult] {
  const planned = 2 * 28 * 1000;
  return [
    simulatePeeking({ experiments }),
    simulatePeeking({ experiments, effect: 0.1, seed: 20261127 }),
    simulatePeeking({ experiments, effect: 0.1, seed: 20261127, tuning: planned }),
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const experiments = Number(process.env.BENCH_PEEKING_EXPERIMENTS ?? 2000);
  console.log(formatPeekingBench(...runPeekingBench(experiments)));
}
