// What a metric's effect column and chart show: the relative uplift (a percent of the control's mean) or the absolute
// difference of the means in the metric's own units (percentage points for a conversion rate, plain numbers for a
// count, a sum or a ratio), and whether a variation did significantly better or worse than the control.
import type { MetricResult, VariationStats } from './results-answer.js';
import { meanDigits, type ResultsFormat } from './results-format.js';

/** `relative`: (mean − control mean) / |control mean|; `absolute`: mean − control mean. */
export type ResultsDifference = 'relative' | 'absolute';

/** One comparison's effect in the mode shown, each part `null` when the service could not compute it. */
export interface Effect {
  value: number | null;
  /** The interval as shown: a relative one cut at −100% where the means cannot be negative (`cut`). */
  ci: [number, number] | null;
  pValue: number | null;
  /** The relative interval reached below −100% and is shown cut there. */
  cut: boolean;
}

const numberOr = (n: number | null | undefined): number | null => (typeof n === 'number' ? n : null);

/**
 * `v`'s effect against `control` (its stats, when known) in the mode shown. A relative interval is symmetric (a
 * normal approximation, as gbstats computes it) so it may reach below −100%; but when both means are ≥ 0 (a rate, a
 * count, an amount) the variation's mean cannot fall by more than all of the control's: the interval is shown cut at
 * −100%. The answer's numbers are left as they are.
 */
export function effectOf(v: VariationStats, difference: ResultsDifference, control?: VariationStats): Effect {
  if (difference === 'absolute') {
    return { value: numberOr(v.absolute?.effect), ci: v.absolute?.ci ?? null, pValue: numberOr(v.absolute?.pValue), cut: false };
  }
  const ci = v.ci ?? null;
  const bounded = ci !== null && ci[0] < -1 && isNonNegative(v.mean) && isNonNegative(control?.mean);
  return {
    value: numberOr(v.uplift),
    ci: bounded ? [-1, Math.max(-1, ci[1])] : ci,
    pValue: numberOr(v.pValue),
    cut: bounded,
  };
}

/** Said under a table or a date graph whose intervals were cut. */
export const CUT_NOTE = 'Intervals are cut at −100 %: a mean that cannot be negative cannot fall by more than all of it.';

const isNonNegative = (n: number | null | undefined): boolean => typeof n === 'number' && n >= 0;

/** The control's stats among a metric's variations. */
export function controlOf(m: MetricResult, control: string): VariationStats | undefined {
  return m.variations.find((v) => v.name === control);
}

/** How one metric's effects are written in one mode. */
export interface EffectScale {
  difference: ResultsDifference;
  /** The column's and chart's word: `Uplift` (relative) or `Difference` (absolute). */
  name: string;
  /** What a number written is multiplied by: 100 for a percent or percentage points, else 1. */
  factor: number;
  /** The unit after an absolute number: `pp` (percentage points) for a conversion rate, else none. */
  unit: '' | 'pp';
  /** An effect, signed, with its unit: +30.8%, +3.07 pp, −0.42. */
  value(n: number): string;
  /** An interval of effects: −1.4% to +62.9%, −0.20 pp to +6.40 pp. */
  interval(ci: [number, number]): string;
  /** An axis tick with `digits` decimals of the number written. */
  tick(n: number, digits: number): string;
}

/**
 * The scale of `metric`'s effects: relative ones as percents with one decimal; absolute ones with the decimals that
 * show the largest effect or interval bound of the metric with 3 significant digits (one number of decimals per
 * table keeps a column aligned).
 */
export function effectScale(metric: MetricResult, control: string, difference: ResultsDifference, f: ResultsFormat): EffectScale {
  if (difference === 'relative') {
    return { difference, name: 'Uplift', factor: 100, unit: '', value: f.uplift, interval: f.interval, tick: f.tick };
  }
  const points = metric.type === 'binomial';
  const factor = points ? 100 : 1;
  const unit = points ? 'pp' : '';
  const values = metric.variations.filter((v) => v.name !== control).flatMap((v) => {
    const e = effectOf(v, 'absolute');
    return [...(e.value === null ? [] : [e.value]), ...(e.ci ?? [])];
  });
  const digits = meanDigits(values.map((n) => n * factor));
  const write = (n: number, d: number): string => `${f.signed(n * factor, d)}${unit ? ` ${unit}` : ''}`;
  return {
    difference, name: 'Difference', factor, unit,
    value: (n) => write(n, digits),
    interval: ([low, high]) => `${write(low, digits)} to ${write(high, digits)}`,
    tick: write,
  };
}

export { VERDICT_WORDS, verdictOf, significanceOf, type Significance, type Verdict } from '../../wire/significance.js';
