// How the results' numbers read: Intl.NumberFormat in the page's language, and the words for a number that is missing.
import type { MetricCap, MetricResult, MetricType, PValueCorrection, VariationStats } from './results-answer.js';

/** The formatters of one locale. Every function takes a number that is present; absent ones are `missing()`. */
export interface ResultsFormat {
  locale: string | undefined;
  /** Unit counts, with grouping: 12,345. */
  units(n: number): string;
  /** A variation's configured weight, as given (up to 2 decimals): 90.5. */
  weight(n: number): string;
  /**
   * A metric's mean: a conversion rate (binomial) as a percent with 2 decimals, a count or sum per unit with
   * `digits` decimals (one number of decimals per table keeps a column aligned: `meanDigits`).
   */
  mean(type: MetricType, n: number, digits: number): string;
  /** A relative uplift, signed: +30.8%. */
  uplift(n: number): string;
  /** An interval of the uplift: −1.4% to +62.9%. */
  interval(ci: [number, number]): string;
  /** A signed number with `digits` decimals: +3.07, −0.4 (an absolute difference, already in its unit). */
  signed(n: number, digits: number): string;
  /** An amount as given, up to 2 decimals, with grouping: 1,234.5 (a cap, a ratio's sums). */
  amount(n: number): string;
  /** Chance to win as a percent: 97.0%; within 0.05% of certainty, `> 99.9%` or `< 0.1%`. */
  chance(n: number): string;
  /** Risk, the expected relative loss, as a percent with 2 decimals; below 0.01% it reads `< 0.01%`. */
  risk(n: number): string;
  /** The confidence level of a significance level, 1 − alpha: 95%, 97.5%. */
  level(alpha: number): string;
  /** A number with up to 3 significant digits: 0.05, 0.432, 1.27 (a significance level, CUPED's θ). */
  figure(n: number): string;
  /** How many times as large, with 1 decimal: 2.7 (a width ratio; the caller writes the ×). */
  times(n: number): string;
  /** A p-value with 4 decimals (a column of them stays aligned); below 0.0001 it reads `< 0.0001`. */
  pValue(n: number): string;
  /** A p-value after its letter, in a sentence: `p = 0.0340`, `p < 0.0001` (never `p = < 0.0001`). */
  p(n: number): string;
  /** A variation's weight (a percent as configured) as a share: 20%, 4.75%. */
  share(weight: number): string;
  /** A date or an ISO 8601 time as its UTC day, the day the service counts in: 26 Nov 2026 (in the locale's order). */
  date(iso: string): string;
  /** An ISO 8601 time as the reader's date and time to the minute, in their time zone: 26 Nov 2026, 10:15. */
  dateTime(iso: string): string;
  /** A `YYYY-MM-DD` day without its year, for a date axis: 26 Nov. */
  day(date: string): string;
  /** An axis tick of the interval chart, `digits` decimals of the percent. */
  tick(n: number, digits: number): string;
}

/** The language the numbers are written in: the closest `lang` around the element, else the browser's. */
export function localeOf(el: Element): string | undefined {
  const lang = el.closest('[lang]')?.getAttribute('lang') || document.documentElement.lang;
  if (!lang) return undefined;
  try {
    // An invalid tag (lang="english") would make every formatter throw: the browser's default instead.
    return Intl.NumberFormat.supportedLocalesOf(lang).length ? lang : undefined;
  } catch {
    return undefined;
  }
}

/** The formatters for `locale` (undefined: the browser's default). */
export function resultsFormat(locale: string | undefined): ResultsFormat {
  const nf = (options: Intl.NumberFormatOptions): Intl.NumberFormat => new Intl.NumberFormat(locale, options);
  const units = nf({ maximumFractionDigits: 0 });
  const weight = nf({ maximumFractionDigits: 2 });
  const rate = nf({ style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const perUnit = new Map<number, Intl.NumberFormat>();
  const signed = nf({ style: 'percent', signDisplay: 'exceptZero', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const chance = nf({ style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const risk = nf({ style: 'percent', minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const level = nf({ style: 'percent', maximumFractionDigits: 2 });
  const amount = nf({ maximumFractionDigits: 2 });
  const figure = nf({ maximumSignificantDigits: 3 });
  const signedBy = new Map<number, Intl.NumberFormat>();
  const p = nf({ minimumFractionDigits: 4, maximumFractionDigits: 4 });
  const times = nf({ minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const ticks = new Map<number, Intl.NumberFormat>();
  const share = nf({ style: 'percent', maximumFractionDigits: 2 });
  // UTC: the service's days (phases, a series' points) are UTC days, so a date here is the same wherever it is read.
  const date = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
  const day = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  // The reader's own zone: a phase began at a moment, which they read on their clock.
  const dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' });
  const when = (iso: string, f: Intl.DateTimeFormat): string => {
    const time = Date.parse(iso);
    return Number.isNaN(time) ? iso : f.format(time);
  };
  return {
    locale,
    units: (n) => units.format(n),
    weight: (n) => weight.format(n),
    mean: (type, n, digits) => {
      if (type === 'binomial') return rate.format(n);
      let f = perUnit.get(digits);
      if (!f) perUnit.set(digits, (f = nf({ minimumFractionDigits: digits, maximumFractionDigits: digits })));
      return f.format(n);
    },
    uplift: (n) => signed.format(n),
    interval: ([low, high]) => `${signed.format(low)} to ${signed.format(high)}`,
    signed: (n, digits) => {
      let f = signedBy.get(digits);
      if (!f) signedBy.set(digits, (f = nf({ signDisplay: 'exceptZero', minimumFractionDigits: digits, maximumFractionDigits: digits })));
      return f.format(n);
    },
    amount: (n) => amount.format(n),
    // Never a certainty the statistics do not claim: 0.9996 reads "> 99.9%", not "100.0%".
    chance: (n) => (n >= 0.9995 && n < 1 ? `> ${chance.format(0.999)}` : n > 0 && n < 0.0005 ? `< ${chance.format(0.001)}` : chance.format(n)),
    risk: (n) => (n > 0 && n < 0.0001 ? `< ${risk.format(0.0001)}` : risk.format(n)),
    // 1 − 0.05 in floating point is 0.95 exactly, but 1 − 0.1 is 0.9 and 1 − 0.025 is 0.975: rounding to 4 decimals
    // keeps 97.5% from reading 97.49999%.
    level: (alpha) => level.format(Math.round((1 - alpha) * 1e4) / 1e4),
    figure: (n) => figure.format(n),
    times: (n) => times.format(n),
    pValue: (n) => (n < 0.0001 ? `< ${p.format(0.0001)}` : p.format(n)),
    p: (n) => (n < 0.0001 ? `p < ${p.format(0.0001)}` : `p = ${p.format(n)}`),
    // 4.75 / 100 is 0.0475 exactly enough for 2 decimals of a percent.
    share: (weight) => share.format(weight / 100),
    date: (iso) => when(iso, date),
    dateTime: (iso) => when(iso, dateTime),
    day: (d) => when(d, day),
    tick: (n, digits) => {
      let f = ticks.get(digits);
      if (!f) ticks.set(digits, (f = nf({ style: 'percent', signDisplay: 'exceptZero', minimumFractionDigits: digits, maximumFractionDigits: digits })));
      return f.format(n);
    },
  };
}

/** Decimals that show the largest of `means` with 3 significant digits (0 to 4): 5.06, 0.130, 123. */
export function meanDigits(means: number[]): number {
  const largest = Math.max(0, ...means.map(Math.abs));
  if (!(largest > 0) || !Number.isFinite(largest)) return 2;
  return Math.min(4, Math.max(0, 2 - Math.floor(Math.log10(largest))));
}

/** What a metric's mean is called in a column header. */
export function meanLabel(type: MetricType): string {
  return type === 'binomial' ? 'Conversion rate' : type === 'count' ? 'Count per unit' : type === 'ratio' ? 'Ratio' : 'Sum per unit';
}

/** A metric's kind, in words, for its table caption: `ratio: revenue / orders` names what a ratio divides. */
export function typeLabel(m: Pick<MetricResult, 'type' | 'numerator' | 'denominator'>): string {
  if (m.type === 'ratio') return m.numerator && m.denominator ? `ratio: ${m.numerator} / ${m.denominator}` : 'ratio';
  return m.type === 'binomial' ? 'conversion' : m.type === 'count' ? 'count per unit' : 'sum per unit';
}

/** A cap in words: `capped at 500`, `capped at the 99th percentile (412.5)`. */
export function capLabel(cap: MetricCap, f: ResultsFormat): string {
  if (cap.type === 'absolute') return `capped at ${f.amount(cap.capValue ?? cap.value)}`;
  const percentile = `the ${ordinal(Math.round(cap.value * 1e4) / 100)} percentile`;
  return typeof cap.capValue === 'number' ? `capped at ${percentile} (${f.amount(cap.capValue)})` : `capped at ${percentile}`;
}

/** An English ordinal of a percentile: 99th, 95th, 1st, 99.5th. */
function ordinal(n: number): string {
  if (!Number.isInteger(n)) return `${n}th`;
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : ['th', 'st', 'nd', 'rd'][n % 10] ?? 'th';
  return `${n}${suffix}`;
}

/** A correction's name as the literature writes it. */
export function correctionName(c: PValueCorrection): string {
  return c === 'holm-bonferroni' ? 'Holm–Bonferroni' : c === 'benjamini-hochberg' ? 'Benjamini–Hochberg' : 'none';
}

/**
 * Why a statistic of a non-control variation is `null`, as a screen reader and a tooltip say it. The service
 * answers null without a reason; these are the cases in which it does (a control mean of 0 only leaves the relative
 * figures undefined, so `relative` says which are asked about).
 */
export function missingReason(variation: VariationStats, control: VariationStats | undefined, relative = true): string {
  if (!variation.units) return 'Not available: no units in this variation yet.';
  if (control && !control.units) return 'Not available: no units in the control yet.';
  if (relative && control && control.mean === 0) return 'Not available: the control mean is 0, so a relative uplift is undefined.';
  return 'Not available: too few units to estimate.';
}

/** For the control row's comparison cells: the control is what the others are compared with. */
export const BASELINE_REASON = 'Not applicable: the control is the baseline the other variations are compared with.';
