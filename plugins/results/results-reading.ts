// How to read an answer: the level and kind of its intervals and what *significant* means in it, from its `analysis`.
import { html, nothing, type TemplateResult } from 'lit';
import type { ResultsAnalysis, SequentialReach } from './results-answer.js';
import { decidedByChanceToWin } from '../../wire/significance.js';
import { correctionName, type ResultsFormat } from './results-format.js';

/** What the answer's intervals and p-values are, in the words the header, the tables and the charts use. */
export interface Reading {
  /** The confidence level: `95%`. */
  level: string;
  /** `sequential confidence intervals`, `fixed-horizon confidence intervals`, or `confidence intervals`. */
  intervals: string;
  /** A correction was asked for: the tables carry the adjusted p-value, named `correction`. */
  corrected: boolean;
  correction: string;
  /** The experiment is decided by a Bayesian test: the tables show chance to win and risk. */
  bayesian: boolean;
  note: TemplateResult;
}

/**
 * How to read the answer. An answer from before `analysis` existed was fixed-horizon at 95% with no correction, but
 * it did not say so: its note claims only the level.
 */
export function readingOf(a: ResultsAnalysis | undefined, f: ResultsFormat): Reading {
  const alpha = typeof a?.alpha === 'number' ? a.alpha : 0.05;
  const level = f.level(alpha);
  const kind = a?.interval === 'sequential' ? 'sequential ' : a?.interval === 'fixed-horizon' ? 'fixed-horizon ' : '';
  const intervals = `${kind}confidence intervals`;
  const corrected = a?.correction === 'holm-bonferroni' || a?.correction === 'benjamini-hochberg';
  const correction = corrected ? correctionName(a.correction) : '';
  const when = a?.interval === 'sequential'
    ? ' — safe to check daily, and to stop as soon as a result is significant.'
    : a?.interval === 'fixed-horizon'
      ? ' — read them once, at the planned end: checking early and stopping at the first significant result inflates false positives.'
      : '.';
  const adjusted = corrected ? ` adjusted for the metrics and variations compared (${correction})` : '';
  const cost = a?.interval === 'sequential' ? sequentialCost(a.sequential, f) : nothing;
  // "p-value" never splits at its hyphen.
  const note = html`${level} ${intervals}${when}${cost} Significant: the <span class="nowrap">p-value</span>${adjusted} is below ${f.figure(alpha)}.`;
  return { level, intervals, corrected, correction, bayesian: decidedByChanceToWin(a), note };
}

/**
 * What checking daily costs at the answer's units, with the service's own numbers: `Intervals are tuned for 5,000
 * units; at 181 units they are 2.7× as wide as a fixed-horizon test's.` Nothing when the service did not say (an
 * older one) or has no units yet.
 */
function sequentialCost(reach: SequentialReach | undefined, f: ResultsFormat): TemplateResult | typeof nothing {
  if (!reach || typeof reach.widthRatio !== 'number' || !(reach.units > 0)) return nothing;
  const unitsWord = (n: number): string => `${f.units(n)} ${n === 1 ? 'unit' : 'units'}`;
  return html` Intervals are tuned for ${unitsWord(reach.tuning)}; at ${unitsWord(reach.units)} they are
    ${f.times(reach.widthRatio)}<span aria-hidden="true">×</span><span class="sr-only"> times</span> as wide as a
    fixed-horizon test's.`;
}
