import type { BanditArm, ResultsAnswer, VariationStats } from '../../wire/results-answer.js';

// What a bandit learns from its results: each arm's posterior on the decision metric, as Thompson sampling draws from
// it (server/bandits/thompson-weights.ts). Pure.

/**
 * Each arm's posterior on `metric` from a results answer, in the answer's order: normal, with the arm's stratified
 * mean and its standard error for a bandit's answer (`stratified`: the periods between reweights kept apart), or its
 * raw mean and stddev/√units otherwise (one period: the same). Null mean and stddev without units; `probabilityBest`
 * is 0, for the caller to fill from the draws.
 * @throws RangeError when the answer has no results for `metric` (the caller asks for the decision metric).
 * @example armPosteriors(answer, 'purchase') // → [{ name: 'control', units: 4100, mean: 0.0501, stddev: 0.0034, probabilityBest: 0 }, …]
 */
export function armPosteriors(answer: ResultsAnswer, metric: string): BanditArm[] {
  const result = answer.metrics.find((m) => m.name === metric);
  if (result === undefined) throw new RangeError(`armPosteriors: the answer has no results for metric "${metric}"`);
  return result.variations.map((v) => ({ name: v.name, units: v.units, ...posterior(v), probabilityBest: 0 }));
}

function posterior(v: VariationStats): { mean: number | null; stddev: number | null } {
  if (!(v.units > 0)) return { mean: null, stddev: null };
  if (v.stratified !== undefined) return { mean: v.stratified.mean, stddev: v.stratified.standardError };
  return { mean: v.mean, stddev: v.stddev === null ? null : v.stddev / Math.sqrt(v.units) };
}
