// How to read an answer: the level and kind of its intervals and what *significant* means in it, from its `analysis`.
import { html, type TemplateResult } from 'lit';
import type { ResultsAnalysis } from './results-answer.js';
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
  // "p-value" never splits at its hyphen.
  const note = html`${level} ${intervals}${when} Significant: the <span class="nowrap">p-value</span>${adjusted} is below ${f.figure(alpha)}.`;
  return { level, intervals, corrected, correction, note };
}
