import type { ExperienceConfig, MetricConfig, VariationConfig } from '../config/config-types.js';
import type {
  CupedFigures, MetricCap, MetricResult, MetricRole, ResultsAnalysis, ResultsAnswer, ResultsPhase,
  SequentialReach, SeriesPoint, VariationStats, VariationUnits,
} from '../../wire/results-answer.js';
import { banditParts, type BanditPeriods } from './bandit-periods.js';
import { banditMetricResult } from './bandit-report.js';
import { capAt, capValueOf } from './capping.js';
import { markHarmFamily } from './harm-family.js';
import { judge } from './judge.js';
import type { ExposedUnits } from './exposed-units.js';
import { DEFAULT_SEQUENTIAL_TUNING, sequentialWidthRatio } from './inference.js';
import type { MetricValues } from './metric-values.js';
import { compare, compareStatistics, DEFAULT_ALPHA, moments, noComparison, sampleRatioMismatch, type CompareOptions } from './statistics.js';
import { ratioPartKey, type ResultsQuery } from './results-query.js';
import {
  cupedComparison, cupedRelativeVariance, ratioCupedComparison, ratioCupedRelativeVariance, ratioStatistic,
  summarizePairs, summarizeQuad, type CupedStatistic, type PairSummary, type QuadSummary, type RatioCupedStatistic,
  type UnitKind,
} from './unit-statistics.js';

/** An experiment as results need it: its name and variations (plain values: the storage may post them elsewhere). */
export type ExperimentConfig = ExperienceConfig & { variations: VariationConfig[] };

// The answer of the results endpoint, built from units and their metric values. Numbers are exact (never rounded);
// a statistic that is undefined is null.

/** The answer of the results endpoint. */
export type ResultsReport = ResultsAnswer;

/** What every section of one report shares: the metrics asked for, their values and caps, the tests' settings. */
interface ReportContext {
  variations: readonly VariationConfig[];
  /** The phase's weight of each variation (0 for one it did not have). */
  weights: readonly number[];
  roles: ReadonlyMap<string, MetricRole>;
  units: ExposedUnits;
  metrics: readonly MetricConfig[];
  /** Values per unit of every metric that counts events (those asked for and the parts of ratios), capped. */
  values: ReadonlyMap<string, CappedValues>;
  analysis: ResultsAnalysis;
  /** A bandit's periods: its comparisons are stratified by them (bandit-report.ts). */
  periods?: BanditPeriods;
}

interface CappedValues {
  metric: MetricConfig;
  post: Float64Array;
  pre: Float64Array | null;
  cap?: MetricCap;
  /** The values as read, before any cap: a day of the series caps them anew. */
  read: MetricValues;
}

/** The phase a report answers: its number, every phase of the experiment, and its weights by variation name. */
export interface ReportPhase {
  phase: number;
  phases: ResultsPhase[];
  weights: Readonly<Record<string, number>>;
  /** A bandit's: the periods between its reweights during the phase (then `weights` are its current ones). */
  bandit?: BanditPeriods;
}

/**
 * The report of one experiment's phase: units per variation with the sample-ratio test against the phase's weights,
 * and per metric (in the order of `query.metrics`, each with the part it plays; ratios read their parts from
 * `values`) each variation's moments, the non-control ones compared with the control (the first variation) by the
 * experiment's analysis settings, guardrails also tested for harm (overall, each with the stop's verdict on it:
 * harm-family.ts). `dimension: 'device'` adds the same per device of the units' first exposure. A correction for many
 * comparisons applies across the goal metrics × challengers (every metric when the experiment names no goals), overall
 * and across every dimension section's together. A bandit's comparisons are stratified by the periods between its
 * reweights, its split tested per period.
 */
export function buildReport(
  experience: ExperimentConfig, units: ExposedUnits, values: readonly MetricValues[],
  query: Pick<ResultsQuery, 'metrics' | 'roles' | 'series'>, phase: ReportPhase,
  dimension?: { name: string; values: readonly string[] },
): ResultsReport {
  const { variations } = experience;
  const weights = variations.map((v) => phase.weights[v.name] ?? 0);
  const ctx: ReportContext = {
    variations, weights, roles: query.roles, units, metrics: query.metrics, values: capped(values), analysis: analysisOf(experience),
    ...(phase.bandit !== undefined ? { periods: phase.bandit } : {}),
  };
  const all = Int32Array.from(units.variation.keys());
  const overall = section(ctx, all);
  const report: ResultsReport = {
    experience: experience.name,
    control: (variations[0] as VariationConfig).name,
    phase: phase.phase,
    phases: phase.phases,
    units: all.length,
    multipleExposures: units.multipleExposures,
    srm: sampleRatioMismatch(overall.variations.map((v) => v.units), weights),
    analysis: withSequentialReach(ctx.analysis, overall.variations),
    variations: overall.variations,
    metrics: overall.metrics,
  };
  if (phase.bandit !== undefined) {
    Object.assign(report, banditParts(phase.bandit, variations.map((v) => v.name), all, units.variation, overall.variations.map((v) => v.units)));
  }
  judge(ctx.analysis, ctx.roles, [overall.metrics]);
  markHarmFamily(experience.guardrails ?? [], report);
  if (dimension !== undefined) {
    const byValue = new Map<string, number[]>();
    dimension.values.forEach((value, unit) => {
      const list = byValue.get(value);
      if (list) list.push(unit);
      else byValue.set(value, [unit]);
    });
    report.dimensions = [...byValue.keys()].sort().map((value) => {
      const members = Int32Array.from(byValue.get(value) as number[]);
      return { name: dimension.name, value, units: members.length, ...section(ctx, members) };
    });
    judge(ctx.analysis, ctx.roles, report.dimensions.map((d) => d.metrics));
  }
  if (query.series === 'day') report.series = dailySeries(ctx, all);
  return report;
}

const DAY_MS = 86_400_000;

/**
 * The report's sections as they stood at the end of each UTC day, from the day of the first exposure to that of the
 * last: over the units first exposed before the day's end (cumulative), each day judged on its own, and a percentile
 * cap computed over those units only (a day's point never sees units that came later).
 */
function dailySeries(ctx: ReportContext, all: Int32Array): SeriesPoint[] {
  const read = [...ctx.values.values()].map((v) => v.read);
  const byUnits = read.some((v) => v.metric.cap?.type === 'percentile');
  const order = Array.from(all).sort((a, b) => (ctx.units.first[a] as number) - (ctx.units.first[b] as number));
  if (order.length === 0) return [];
  const firstDay = Math.floor((ctx.units.first[order[0] as number] as number) / DAY_MS);
  const lastDay = Math.floor((ctx.units.first[order[order.length - 1] as number] as number) / DAY_MS);
  const points: SeriesPoint[] = [];
  let taken = 0;
  for (let day = firstDay; day <= lastDay; day++) {
    const end = (day + 1) * DAY_MS;
    while (taken < order.length && (ctx.units.first[order[taken] as number] as number) < end) taken++;
    const members = Int32Array.from(order.slice(0, taken));
    const known = byUnits ? { ...ctx, values: capped(read, members) } : ctx;
    const point = section(known, members);
    judge(ctx.analysis, ctx.roles, [point.metrics]);
    points.push({ date: new Date(day * DAY_MS).toISOString().slice(0, 10), units: members.length, ...point });
  }
  return points;
}

/** The experiment's analysis settings; with guardrails, their harm test (sequential, so tuned, either way) and family. */
function analysisOf(experience: ExperimentConfig): ResultsAnalysis {
  const sequential = experience.sequential === true;
  const tuning = experience.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING;
  const family = (experience.guardrails ?? []).length * Math.max(0, experience.variations.length - 1);
  return {
    alpha: experience.alpha ?? DEFAULT_ALPHA,
    interval: sequential ? 'sequential' : 'fixed-horizon',
    ...(sequential ? { sequentialTuning: tuning } : {}),
    // A bandit compares every arm with the control, and its reader acts on any winner: Holm keeps a false one within α.
    correction: experience.correction ?? (experience.allocation === 'bandit' ? 'holm-bonferroni' : 'none'),
    ...(family > 0 ? { harmTest: { test: 'sequential-one-sided', tuning, correction: 'holm-bonferroni', family } } : {}),
  };
}

/**
 * The analysis with, for sequential intervals, what their tuning costs at these units: the width ratio at the units
 * of the control and its challenger (the one with the fewest, so the note never understates the cost; challengers
 * without units are left out). `variations` are the answer's, control first.
 */
export function withSequentialReach(analysis: ResultsAnalysis, variations: readonly VariationUnits[]): ResultsAnalysis {
  const { sequential: _previous, ...settings } = analysis;
  if (settings.interval !== 'sequential') return settings;
  const [control, ...challengers] = variations;
  const seen = challengers.filter((v) => v.units > 0);
  const units = seen.length === 0
    ? sumUnits(variations)
    : Math.min(...seen.map((v) => (control?.units ?? 0) + v.units));
  const tuning = settings.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING;
  const reach: SequentialReach = { tuning, units, widthRatio: sequentialWidthRatio(units, settings.alpha, tuning) };
  return { ...settings, sequential: reach };
}

function sumUnits(variations: readonly VariationUnits[]): number {
  return variations.reduce((total, v) => total + v.units, 0);
}

/** Each metric's values capped as it says, a percentile over the units `over` (default: all the experiment's). */
function capped(values: readonly MetricValues[], over?: Int32Array): Map<string, CappedValues> {
  return new Map(values.map((v) => {
    const { metric } = v;
    if (metric.cap === undefined) return [metric.name, { metric, post: v.post, pre: v.pre, read: v }];
    const at = capValueOf(metric.cap, over === undefined ? v.post : pick(v.post, over));
    const cap: MetricCap = { type: metric.cap.type, value: metric.cap.value, capValue: at };
    if (at === null) return [metric.name, { metric, post: v.post, pre: v.pre, cap, read: v }];
    return [metric.name, { metric, post: capAt(v.post, at), pre: v.pre === null ? null : capAt(v.pre, at), cap, read: v }];
  }));
}

/** Units per variation and metric results over the units `members`. */
function section(ctx: ReportContext, members: Int32Array): { variations: VariationUnits[]; metrics: MetricResult[] } {
  const groups = ctx.variations.map(() => [] as number[]);
  for (const unit of members) (groups[ctx.units.variation[unit] as number] as number[]).push(unit);
  const byVariation = groups.map((g) => Int32Array.from(g));
  return {
    variations: ctx.variations.map((v, i) => ({ name: v.name, weight: ctx.weights[i] as number, units: (byVariation[i] as Int32Array).length })),
    metrics: ctx.metrics.map((m) => {
      const result = m.type === 'ratio' ? ratioResult(ctx, m, byVariation) : metricResult(ctx, m, byVariation);
      if (ctx.periods === undefined) return result;
      return banditMetricResult(result, m, ctx.periods, byVariation, (name) => valuesOf(ctx, name).post, optionsOf(ctx, m));
    }),
  };
}

function sum(values: Float64Array): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

function pick(values: Float64Array, members: Int32Array): Float64Array {
  const out = new Float64Array(members.length);
  for (let i = 0; i < members.length; i++) out[i] = values[members[i] as number] as number;
  return out;
}

function optionsOf(ctx: ReportContext, metric: MetricConfig): CompareOptions {
  const { alpha, interval, harmTest } = ctx.analysis;
  // The harm test is sequential under fixed-horizon intervals too: it takes the experiment's tuning either way.
  const sequentialTuning = harmTest?.tuning ?? ctx.analysis.sequentialTuning;
  return {
    alpha, sequential: interval === 'sequential', ...(sequentialTuning !== undefined ? { sequentialTuning } : {}),
    inverse: metric.inverse === true, guardrail: ctx.roles.get(metric.name) === 'guardrail',
  };
}

function kindOf(metric: MetricConfig): UnitKind {
  return metric.type === 'binomial' ? 'proportion' : 'mean';
}

function valuesOf(ctx: ReportContext, name: string): CappedValues {
  const values = ctx.values.get(name);
  if (values === undefined) throw new Error(`results: no values were read for metric ${name}`);
  return values;
}

function header(ctx: ReportContext, metric: MetricConfig, cap: MetricCap | undefined): Omit<MetricResult, 'cupedApplied' | 'variations'> {
  const role = ctx.roles.get(metric.name);
  return { name: metric.name, type: metric.type, ...(role ? { role } : {}), inverse: metric.inverse === true, ...(cap ? { cap } : {}) };
}

/**
 * A metric that counts events: raw moments per variation; each challenger compared with the control, through
 * gbstats' regression adjustment (θ from the two variations compared) when the metric asks for CUPED and there is
 * behaviour before exposure to adjust by.
 */
function metricResult(ctx: ReportContext, metric: MetricConfig, byVariation: Int32Array[]): MetricResult {
  const values = valuesOf(ctx, metric.name);
  const type = metric.type as 'binomial' | 'count' | 'sum';
  const post = byVariation.map((members) => pick(values.post, members));
  const pre = values.pre === null ? null : byVariation.map((members) => pick(values.pre as Float64Array, members));
  const raw = post.map((v) => moments(type, v));
  // Each variation's (post, pre) pairs, summarized once: the control's serve every comparison.
  const pairs = pre === null ? null : post.map((v, i) => summarizePairs(v, pre[i] as Float64Array));
  const options = optionsOf(ctx, metric);
  let cupedApplied = false;
  const variations = ctx.variations.map((v, i): VariationStats => {
    const own = raw[i] as (typeof raw)[number];
    const entry: VariationStats = { name: v.name, ...own };
    if (i === 0) return entry;
    const control = raw[0] as (typeof raw)[number];
    if (pairs !== null && control.stddev !== null && own.stddev !== null && control.units > 0 && own.units > 0) {
      const c = cupedComparison(kindOf(metric), pairs[0] as PairSummary, pairs[i] as PairSummary);
      // gbstats gives no result when an adjusted variance is 0: the comparison is then the raw one.
      if (c.theta !== 0 && c.control.variance > 0 && c.treatment.variance > 0) {
        cupedApplied = true;
        const side = (a: CupedStatistic): Adjusted => ({ raw: a.unadjustedMean, pre: a.pre, variance: a.variance, n: a.n });
        return {
          ...entry,
          ...compareStatistics(c.control, c.treatment, options, cupedRelativeVariance(c)),
          cuped: cupedFigures(c.theta, c.pooledPre, side(c.control), side(c.treatment)),
        };
      }
    }
    return { ...entry, ...compare(control, own, options) };
  });
  return { ...header(ctx, metric, values.cap), cupedApplied, variations };
}

/**
 * A ratio metric: per variation Σ numerator / Σ denominator over its units (each part capped as its own metric says),
 * the stddev gbstats reports for it (the delta-method unit variance), and the comparison of the ratios; with CUPED,
 * gbstats' regression adjustment of ratios (θ per comparison) by the parts' values before exposure.
 */
function ratioResult(ctx: ReportContext, metric: MetricConfig, byVariation: Int32Array[]): MetricResult {
  const cupedAsked = metric.cuped === true;
  const numerator = valuesOf(ctx, cupedAsked ? ratioPartKey(metric.name, 'numerator') : metric.numerator as string);
  const denominator = valuesOf(ctx, cupedAsked ? ratioPartKey(metric.name, 'denominator') : metric.denominator as string);
  const kinds: [UnitKind, UnitKind] = [kindOf(numerator.metric), kindOf(denominator.metric)];
  const sides = byVariation.map((members) => {
    const m = pick(numerator.post, members);
    const d = pick(denominator.post, members);
    const pair = summarizePairs(m, d);
    const n = pair.x.n;
    const defined = n > 0 && pair.y.mean !== 0;
    const statistic = ratioStatistic(kinds, pair);
    // Only a ratio that asks for CUPED is adjusted, even when both of its parts (read by their own names) do.
    const quad = cupedAsked && numerator.pre !== null && denominator.pre !== null
      ? summarizeQuad([m, d, pick(numerator.pre, members), pick(denominator.pre, members)])
      : null;
    return {
      n, statistic, quad, comparable: defined && n >= 2,
      moments: {
        units: n, total: sum(m), denominator: sum(d),
        mean: defined ? statistic.mean : null, stddev: defined && n >= 2 ? Math.sqrt(Math.max(0, statistic.variance)) : null,
      },
    };
  });
  const options = optionsOf(ctx, metric);
  const control = sides[0] as (typeof sides)[number];
  let cupedApplied = false;
  const variations = ctx.variations.map((v, i): VariationStats => {
    const side = sides[i] as (typeof sides)[number];
    const entry: VariationStats = { name: v.name, ...side.moments };
    if (i === 0) return entry;
    if (!(control.comparable && side.comparable)) return { ...entry, ...noComparison() };
    if (control.quad !== null && side.quad !== null) {
      const c = ratioCupedComparison(kinds, control.quad, side.quad);
      const [a, b] = [control.quad, side.quad];
      // The pooled pre-period ratio of the two variations, around which the adjusted ratios are centred (denominators
      // of a sum may cancel to 0 across the two: then no centre, and no CUPED for this comparison).
      const pooledPre = (a.means[2] * a.n + b.means[2] * b.n) / (a.means[3] * a.n + b.means[3] * b.n);
      if (c.theta !== 0 && c.control.variance > 0 && c.treatment.variance > 0 && Number.isFinite(pooledPre)) {
        cupedApplied = true;
        const side = (q: QuadSummary, r: RatioCupedStatistic): Adjusted => ({ raw: r.unadjustedMean, pre: q.means[2] / q.means[3], variance: r.variance, n: r.n });
        return {
          ...entry,
          ...compareStatistics(c.control, c.treatment, options, ratioCupedRelativeVariance(c)),
          cuped: cupedFigures(c.theta, pooledPre, side(a, c.control), side(b, c.treatment)),
        };
      }
    }
    return { ...entry, ...compareStatistics(control.statistic, side.statistic, options) };
  });
  return {
    ...header(ctx, metric, undefined), numerator: metric.numerator as string, denominator: metric.denominator as string,
    cupedApplied, variations,
  };
}

/** One side of a CUPED comparison as the answer shows it: its raw mean and pre mean, its adjusted variance. */
interface Adjusted {
  raw: number;
  pre: number;
  variance: number;
  n: number;
}

/**
 * CUPED's figures of one comparison: each side's raw mean moved by θ × (its pre mean − the two sides' pooled pre
 * mean `centre`), so that they read as means of the metric, and its adjusted stddev (null below 2 units).
 */
function cupedFigures(theta: number, centre: number, control: Adjusted, treatment: Adjusted): CupedFigures {
  const mean = (s: Adjusted): number => s.raw - theta * (s.pre - centre);
  const stddev = (s: Adjusted): number | null => (s.n < 2 ? null : Math.sqrt(Math.max(0, s.variance)));
  return { theta, mean: mean(treatment), stddev: stddev(treatment), controlMean: mean(control), controlStddev: stddev(control) };
}
