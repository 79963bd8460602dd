import type { BanditArm, ResultsAnswer } from '../../wire/results-answer.js';

// Each arm's posterior on a bandit's decision metric, read from the current phase's results: the variation's mean and
// the standard error of that mean (normal, as gbstats' bandits have it).

/**
 * The arms of a bandit as the answer has them on `metric`, in the answer's order of variations (`probabilityBest` is
 * 0 until Thompson draws fill it in). An arm without units has neither mean nor spread.
 * @example armPosteriors(report, 'purchase') // → [{ name: 'feed-1', units: 120, mean: 0.05, stddev: 0.02, probabilityBest: 0 }, …]
 */
export function armPosteriors(answer: ResultsAnswer, metric: string): BanditArm[] {
  const result = answer.metrics.find((m) => m.name === metric);
  return answer.variations.map((variation) => {
    const stats = result?.variations.find((v) => v.name === variation.name);
    const units = stats?.units ?? 0;
    const known = stats !== undefined && units > 0 && stats.mean !== null && stats.stddev !== null;
    return {
      name: variation.name,
      units,
      mean: known ? stats.mean : null,
      stddev: known ? (stats.stddev as number) / Math.sqrt(units) : null,
      probabilityBest: 0,
    };
  });
}
