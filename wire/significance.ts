// Whether a variation did significantly better or worse than the control, in words: the one decision the results
// table, its chart, the console's headline, the list's badge and its Ship dialog all read, so that no screen calls
// significant what another calls not. Pure, and it imports nothing but the answer's shape.
import type { ResultsAnalysis, VariationStats } from './results-answer.js';

/** Where a variation stands against the control: significantly better, significantly worse, or neither. */
export type Verdict = 'positive' | 'negative' | 'neutral';

/** `relative`: (mean − control mean) / |control mean|; `absolute`: mean − control mean. */
export type Difference = 'relative' | 'absolute';

/** A verdict in words (colour is never the only sign). */
export const VERDICT_WORDS: Record<Verdict, string> = {
  positive: 'Significantly better',
  negative: 'Significantly worse',
  neutral: 'Not significant',
};

const numberOr = (n: number | null | undefined): number | null => (typeof n === 'number' ? n : null);

/**
 * The service's `significant` for the difference shown (p, or the corrected p, below alpha, by the experiment's own
 * test: fixed-horizon or sequential; the relative and the absolute comparisons are judged apart) in the direction
 * that is better for the metric (lower for an `inverse` one). An older answer without `significant` is read from its
 * interval: one that excludes zero is significant at the same level.
 */
export function verdictOf(v: VariationStats, inverse: boolean, difference: Difference = 'relative'): Verdict {
  const absolute = difference === 'absolute';
  const ci = absolute ? v.absolute?.ci ?? null : v.ci ?? v.absolute?.ci ?? null;
  const given = absolute ? v.absolute?.significant : v.significant;
  const significant = typeof given === 'boolean' ? given : ci !== null && (ci[0] > 0 || ci[1] < 0);
  if (!significant) return 'neutral';
  // The relative and the absolute effect share their sign; the absolute one exists when the control mean is 0.
  const effect = (absolute ? null : numberOr(v.uplift)) ?? numberOr(v.absolute?.effect) ?? (ci ? ci[0] + ci[1] : null);
  if (!effect) return 'neutral';
  return effect > 0 !== inverse ? 'positive' : 'negative';
}

/** A challenger's significance: its verdict and the words every screen writes it in. */
export interface Significance {
  verdict: Verdict;
  words: string;
}

/**
 * `v`'s significance against the control, or undefined when the service could not test it (no `significant` and no
 * interval: too few units, a control mean of 0 for the relative difference).
 * @example significanceOf({ name: 'bold', units: 60, …, significant: false }, false) // { verdict: 'neutral', words: 'Not significant' }
 */
export function significanceOf(v: VariationStats, inverse: boolean, difference: Difference = 'relative'): Significance | undefined {
  const test = difference === 'absolute' ? v.absolute : v;
  const ci = difference === 'absolute' ? v.absolute?.ci ?? null : v.ci ?? null;
  if (typeof test?.significant !== 'boolean' && ci === null) return undefined;
  const verdict = verdictOf(v, inverse, difference);
  return { verdict, words: VERDICT_WORDS[verdict] };
}

/**
 * Whether the experiment is decided by a Bayesian test, so that its chance to win and risk are the figures to read.
 * Only then does a screen show them: beside a frequentist verdict, a 98% chance to win reads as a win the experiment's
 * own test does not find. The answer and its CSV carry them either way.
 * @example decidedByChanceToWin({ alpha: 0.05, interval: 'sequential', correction: 'none' }) // false
 */
export function decidedByChanceToWin(analysis: Pick<ResultsAnalysis, 'engine'> | undefined): boolean {
  return analysis?.engine === 'bayesian';
}
