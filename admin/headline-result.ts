// The one line of results the experience list shows per experiment: for the primary goal (the experiment's first goal,
// else the first metric of the answer), the non-control variation
// most likely to win, with its relative uplift and that chance ("bold +12.4% · 91% to win"). For a lower-is-better
// metric the service's chance to win is already the chance of a drop, so the most likely winner is found the same way;
// its uplift is then negative, which the list says with the metric ("on bounce · lower is better").
import type { ResultsAnswer } from '../wire/results-answer.js';

export type Headline =
  | { kind: 'no-data' }
  /** Units were exposed, but each saw more than one variation (results leave them out): none remains. */
  | { kind: 'all-mixed'; units: number }
  | { kind: 'no-metrics' }
  | { kind: 'best'; metric: string; inverse: boolean; variation: string; uplift: number | null; chanceToWin: number | null };

export function headlineOf(answer: ResultsAnswer): Headline {
  if (!(answer.units > 0)) return answer.multipleExposures > 0 ? { kind: 'all-mixed', units: answer.multipleExposures } : { kind: 'no-data' };
  const metric = answer.metrics.find((m) => m.role === 'goal') ?? answer.metrics[0];
  if (!metric) return { kind: 'no-metrics' };
  const challengers = metric.variations.filter((v) => v.name !== answer.control);
  if (!challengers.length) return { kind: 'no-data' };
  // A chance that could not be computed (null) ranks below every number; ties keep the configured order.
  const chance = (c: number | null | undefined): number => (typeof c === 'number' ? c : -1);
  const best = challengers.reduce((a, b) => (chance(b.chanceToWin) > chance(a.chanceToWin) ? b : a));
  return {
    kind: 'best', metric: metric.name, inverse: metric.inverse === true, variation: best.name,
    uplift: typeof best.uplift === 'number' ? best.uplift : null,
    chanceToWin: typeof best.chanceToWin === 'number' ? best.chanceToWin : null,
  };
}

/**
 * The variation the primary goal's results favour: the best challenger when it more likely beats the control than
 * not, else the control; undefined without a chance to win.
 */
export function leaderOf(answer: ResultsAnswer, h: Headline = headlineOf(answer)): string | undefined {
  if (h.kind !== 'best' || h.chanceToWin === null) return undefined;
  return h.chanceToWin > 0.5 ? h.variation : answer.control;
}

/** The headline in words, numbers in `locale` (undefined: the browser's). */
export function headlineText(h: Headline, locale?: string): string {
  if (h.kind === 'no-data') return 'no data yet';
  if (h.kind === 'all-mixed') return `no data: ${h.units === 1 ? 'the unit' : `all ${h.units} units`} exposed saw two variations`;
  if (h.kind === 'no-metrics') return 'no metrics defined';
  if (h.uplift === null) return `${h.variation}: not enough data`;
  const uplift = new Intl.NumberFormat(locale, {
    style: 'percent', signDisplay: 'exceptZero', minimumFractionDigits: 1, maximumFractionDigits: 1,
  }).format(h.uplift);
  if (h.chanceToWin === null) return `${h.variation} ${uplift}`;
  // Whole percents, but never a certainty the statistics do not claim: 99.6% reads "> 99%", not "100%".
  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const chance = h.chanceToWin >= 0.995 ? `> ${percent.format(0.99)}` : h.chanceToWin < 0.005 ? `< ${percent.format(0.01)}` : percent.format(h.chanceToWin);
  return `${h.variation} ${uplift} · ${chance} to win`;
}
