// The one line of results the experience list shows per experiment, and what the Ship dialog says before the click:
// for the primary goal (the experiment's first goal, else the first metric of the answer), the non-control variation
// that does best by the experiment's own test (fixed-horizon or sequential), with its relative uplift and whether it is
// significant, in the words of the results table ("green +327.6% · Not significant"). The service's chance to win is
// a Bayesian figure, and no experiment is judged by a Bayesian test: it is not written here, where it would contradict
// the table. For a lower-is-better metric the better way is down, which the list says with the metric.
import type { MetricResult, ResultsAnswer, VariationStats } from '../wire/results-answer.js';
import { harmStanding, harmWords } from '../wire/harm-standing.js';
import { significanceOf, type Significance } from '../wire/significance.js';

export type Headline =
  | { kind: 'no-data' }
  /** Units were exposed, but each saw more than one variation (results leave them out): none remains. */
  | { kind: 'all-mixed'; units: number }
  | { kind: 'no-metrics' }
  | { kind: 'best'; metric: string; inverse: boolean; variation: string; uplift: number | null; significance: Significance | undefined };

const RANK = { positive: 2, neutral: 1, negative: 0 } as const;

/** The primary goal's results: the first goal, else the answer's first metric. */
function primaryOf(answer: ResultsAnswer): MetricResult | undefined {
  return answer.metrics.find((m) => m.role === 'goal') ?? answer.metrics[0];
}

export function headlineOf(answer: ResultsAnswer): Headline {
  if (!(answer.units > 0)) return answer.multipleExposures > 0 ? { kind: 'all-mixed', units: answer.multipleExposures } : { kind: 'no-data' };
  const metric = primaryOf(answer);
  if (!metric) return { kind: 'no-metrics' };
  const challengers = metric.variations.filter((v) => v.name !== answer.control);
  if (!challengers.length) return { kind: 'no-data' };
  // Significantly better first, significantly worse last; between equals, the larger effect the better way. An uplift
  // that could not be computed ranks below every number; ties keep the configured order.
  const good = (v: VariationStats): number => (typeof v.uplift === 'number' ? (metric.inverse ? -v.uplift : v.uplift) : -Infinity);
  const rank = (v: VariationStats): number => RANK[significanceOf(v, metric.inverse)?.verdict ?? 'neutral'];
  const best = challengers.reduce((a, b) => (rank(b) > rank(a) || (rank(b) === rank(a) && good(b) > good(a)) ? b : a));
  return {
    kind: 'best', metric: metric.name, inverse: metric.inverse === true, variation: best.name,
    uplift: typeof best.uplift === 'number' ? best.uplift : null,
    significance: significanceOf(best, metric.inverse),
  };
}

/**
 * The variation "Ship a winner" offers first: the best challenger when its effect goes the better way, else the
 * control; undefined without an uplift. It is offered whether or not it is significant: the dialog says which.
 */
export function leaderOf(answer: ResultsAnswer, h: Headline = headlineOf(answer)): string | undefined {
  if (h.kind !== 'best' || h.uplift === null) return undefined;
  return (h.inverse ? h.uplift < 0 : h.uplift > 0) ? h.variation : answer.control;
}

/** The headline in words, numbers in `locale` (undefined: the browser's). */
export function headlineText(h: Headline, locale?: string): string {
  if (h.kind === 'no-data') return 'no data yet';
  if (h.kind === 'all-mixed') return `no data: ${h.units === 1 ? 'the unit' : `all ${h.units} units`} exposed saw two variations`;
  if (h.kind === 'no-metrics') return 'no metrics defined';
  if (h.uplift === null) return `${h.variation}: not enough data`;
  const uplift = upliftText(h.uplift, locale);
  return h.significance ? `${h.variation} ${uplift} · ${h.significance.words}` : `${h.variation} ${uplift} · not enough data to test`;
}

function upliftText(uplift: number, locale: string | undefined): string {
  return new Intl.NumberFormat(locale, {
    style: 'percent', signDisplay: 'exceptZero', minimumFractionDigits: 1, maximumFractionDigits: 1,
  }).format(uplift);
}

/**
 * What shipping `choice` means by the results, said in the Ship dialog before the click: on the primary goal, its
 * uplift against the control and whether that is significant (the table's words); on each guardrail, whether it harms
 * it (the service's one-sided test) and whether that stops the experiment, or does significantly worse. Empty without
 * results or for the control.
 */
export function shipFacts(answer: ResultsAnswer | undefined, choice: string | undefined, locale?: string): string[] {
  if (!answer || !choice || choice === answer.control || !(answer.units > 0)) return [];
  const facts: string[] = [];
  const primary = primaryOf(answer);
  const stats = primary?.variations.find((v) => v.name === choice);
  if (primary && stats) {
    const significance = significanceOf(stats, primary.inverse);
    const uplift = typeof stats.uplift === 'number' ? `${upliftText(stats.uplift, locale)} against '${answer.control}'` : 'no uplift yet';
    const words = significance ? significance.words : 'not enough data to test';
    const role = primary.role === 'goal' ? ' (primary goal)' : '';
    facts.push(`On ${primary.name}${role}, '${choice}' is ${uplift}: ${words}.`);
  }
  for (const m of answer.metrics.filter((x) => x.role === 'guardrail')) {
    const v = m.variations.find((x) => x.name === choice);
    if (!v) continue;
    const p = typeof v.harm?.pValue === 'number' ? ` (p = ${v.harm.pValue.toFixed(4)})` : '';
    const standing = harmStanding(v.harm);
    const words = harmWords(standing, answer.analysis);
    if (standing === 'signal') facts.push(`Guardrail ${m.name}: '${choice}'${p}: ${words}.`);
    else if (standing !== 'none') facts.push(`Guardrail ${m.name}: '${choice}' harms it${p}${words ? `: ${words}` : ''}.`);
    else if (significanceOf(v, m.inverse)?.verdict === 'negative') facts.push(`Guardrail ${m.name}: '${choice}' is significantly worse.`);
  }
  return facts;
}
