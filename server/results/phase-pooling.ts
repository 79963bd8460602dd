import type {
  AbsoluteDifference, DimensionResult, MetricResult, MetricRole, ResultsAnalysis, VariationStats, VariationUnits,
} from '../../wire/results-answer.js';
import { bayesian, twoSidedFixed, twoSidedSequential, type Estimate, type Frequentist } from './inference.js';
import { markHarmFamily } from './harm-family.js';
import { judge } from './judge.js';
import { withSequentialReach, type ResultsReport } from './results-report.js';
import { deltaMethodVariance, guardrailHarm, sampleRatioMismatch, type CompareOptions } from './statistics.js';
import type { UnitStatistic } from './unit-statistics.js';

// The whole experiment over all its phases (`?phase=all`), stratified by phase: a phase's units are those first
// exposed in it, and its split has its own weights, so units of different phases are not pooled as one sample (a
// weight change moves the mix of early and late units between variations: Simpson's paradox). Each phase's effect is
// estimated on its own and the estimates are combined with inverse-variance weights (the fixed-effect meta-analysis
// of Borenstein et al., "Introduction to Meta-Analysis", 2009, ch. 11): point = Σ wₖ pointₖ / Σ wₖ with
// wₖ = 1 / varianceₖ, variance = 1 / Σ wₖ. The combined estimate is tested as one: fixed-horizon with the normal
// distribution (strata have no single Welch df), sequential over the units of every phase. Pure: no I/O.

/** A combined estimate is tested with the normal: a df past inference.ts' NORMAL_DF selects it. */
const NORMAL = Number.MAX_VALUE;

/** Per-phase estimates of one effect combined with inverse-variance weights; null when no phase has one. */
export function inverseVarianceCombined(estimates: readonly Estimate[]): Estimate | null {
  const usable = estimates.filter((e) => Number.isFinite(e.point) && e.variance > 0 && Number.isFinite(e.variance));
  if (!usable.length) return null;
  const weight = usable.reduce((sum, e) => sum + 1 / e.variance, 0);
  const point = usable.reduce((sum, e) => sum + e.point / e.variance, 0) / weight;
  return { point, variance: 1 / weight, dof: NORMAL, units: estimates.reduce((sum, e) => sum + e.units, 0) };
}

/**
 * One answer for every phase, from the answers of each phase (oldest first, none empty of phases): units summed,
 * means over all units, comparisons combined per phase, the split tested against what each phase's weights expect,
 * then judged (and corrected) as one phase's answer is, the guardrails' harm tests with the stop's family of the
 * experiment's `guardrails`. CUPED is not applied: the raw comparisons are combined.
 */
export function poolPhases(
  reports: readonly ResultsReport[], roles: ReadonlyMap<string, MetricRole>, guardrails: readonly string[],
): ResultsReport {
  const last = reports[reports.length - 1] as ResultsReport;
  const { analysis } = last;
  const variations = last.variations.map((v) => ({ ...v, units: sumOf(reports.map((r) => unitsOf(r.variations, v.name))) }));
  // What each phase's weights expect of its units (a bandit's phase: its periods'), summed: the split's test across phases.
  const expected = last.variations.map((v) => sumOf(reports.map((r) => {
    if (r.bandit !== undefined) return r.bandit.expectedUnits[v.name] ?? 0;
    const total = sumOf(r.variations.map((x) => x.weight));
    return total > 0 ? (r.units * (r.variations.find((x) => x.name === v.name)?.weight ?? 0)) / total : 0;
  })));
  const metrics = last.metrics.map((m) => pooledMetric(m.name, reports.map((r) => r.metrics), last.control, analysis));
  const pooled: ResultsReport = {
    ...last,
    allPhases: { phases: reports.length, method: 'inverse-variance' },
    units: sumOf(variations.map((v) => v.units)),
    multipleExposures: sumOf(reports.map((r) => r.multipleExposures)),
    srm: sampleRatioMismatch(variations.map((v) => v.units), expected),
    analysis: withSequentialReach(analysis, variations),
    variations,
    metrics,
  };
  delete pooled.series;
  delete pooled.bandit;
  if (reports.some((r) => r.reweights !== undefined)) pooled.reweights = reports.flatMap((r) => r.reweights ?? []);
  judge(analysis, roles, [pooled.metrics]);
  markHarmFamily(guardrails, pooled);
  if (last.dimensions) {
    const keys = [...new Set(reports.flatMap((r) => (r.dimensions ?? []).map((d) => d.value)))].sort();
    pooled.dimensions = keys.map((value): DimensionResult => {
      const sections = reports.map((r) => r.dimensions?.find((d) => d.value === value)).filter((d): d is DimensionResult => d !== undefined);
      const units: VariationUnits[] = last.variations.map((v) => ({ ...v, units: sumOf(sections.map((s) => unitsOf(s.variations, v.name))) }));
      return {
        name: (last.dimensions as DimensionResult[])[0]?.name ?? (sections[0] as DimensionResult).name, value,
        units: sumOf(units.map((u) => u.units)), variations: units,
        metrics: last.metrics.map((m) => pooledMetric(m.name, sections.map((s) => s.metrics), last.control, analysis)),
      };
    });
    judge(analysis, roles, pooled.dimensions.map((d) => d.metrics));
  }
  return pooled;
}

function sumOf(values: readonly number[]): number {
  return values.reduce((sum, v) => sum + v, 0);
}

function unitsOf(variations: readonly VariationUnits[], name: string): number {
  return variations.find((v) => v.name === name)?.units ?? 0;
}

/** One metric over every phase's `sections` (each a phase's metrics). */
function pooledMetric(name: string, sections: readonly MetricResult[][], control: string, analysis: ResultsAnalysis): MetricResult {
  const phases = sections.map((metrics) => metrics.find((m) => m.name === name)).filter((m): m is MetricResult => m !== undefined);
  const first = phases[phases.length - 1] as MetricResult;
  // The harm test takes the experiment's tuning under fixed-horizon intervals too.
  const tuning = analysis.harmTest?.tuning ?? analysis.sequentialTuning;
  const options: CompareOptions = {
    alpha: analysis.alpha, sequential: analysis.interval === 'sequential', inverse: first.inverse,
    guardrail: first.role === 'guardrail', ...(tuning !== undefined ? { sequentialTuning: tuning } : {}),
  };
  const statsOf = (m: MetricResult, v: string): VariationStats | undefined => m.variations.find((x) => x.name === v);
  const variations = first.variations.map((v): VariationStats => {
    const own = phases.map((m) => statsOf(m, v.name)).filter((s): s is VariationStats => s !== undefined);
    const entry = pooledMoments(first, v.name, own);
    if (v.name === control) return entry;
    const pairs = phases.flatMap((m) => {
      const a = statisticOf(statsOf(m, control));
      const b = statisticOf(statsOf(m, v.name));
      return a && b ? [{ a, b }] : [];
    });
    const absolute = inverseVarianceCombined(pairs.map(({ a, b }) => ({
      point: b.mean - a.mean, variance: b.variance / b.n + a.variance / a.n, dof: NORMAL, units: a.n + b.n,
    })));
    const relative = inverseVarianceCombined(pairs.filter(({ a }) => a.mean !== 0).map(({ a, b }) => ({
      point: (b.mean - a.mean) / Math.abs(a.mean), variance: deltaMethodVariance(a, b), dof: NORMAL, units: a.n + b.n,
    })));
    const abs: AbsoluteDifference = absolute === null
      ? { effect: null, ci: null, pValue: null }
      : { effect: absolute.point, ...tested(absolute, options) };
    const harm = options.guardrail && absolute !== null ? { harm: guardrailHarm(absolute, options, false) } : {};
    if (relative === null) {
      return { ...entry, uplift: null, ci: null, pValue: null, chanceToWin: null, risk: null, credibleInterval: null, absolute: abs, ...harm };
    }
    const { chanceToWin, risk, credibleInterval } = bayesian(relative, analysis.alpha, first.inverse);
    return { ...entry, uplift: relative.point, ...tested(relative, options), chanceToWin, risk, credibleInterval, absolute: abs, ...harm };
  });
  const { cupedApplied: _cuped, ...header } = first;
  return { ...header, cupedApplied: false, variations };
}

function tested(e: Estimate, options: CompareOptions): Frequentist {
  const alpha = options.alpha as number;
  return options.sequential ? twoSidedSequential(e, alpha, options.sequentialTuning) : twoSidedFixed(e, alpha);
}

/**
 * A phase's side of a comparison, from its answer's moments (null without units or a stddev); a bandit's phase, from
 * its stratified mean and standard error (as the unit variance n·se² that gives back se²/n).
 */
function statisticOf(v: VariationStats | undefined): UnitStatistic | null {
  if (!v || !(v.units > 0)) return null;
  if (v.stratified !== undefined) {
    const { mean, standardError } = v.stratified;
    if (mean === null || standardError === null) return null;
    return { n: v.units, mean, variance: standardError * standardError * v.units, unadjustedMean: mean };
  }
  if (typeof v.mean !== 'number' || typeof v.stddev !== 'number') return null;
  return { n: v.units, mean: v.mean, variance: v.stddev * v.stddev, unadjustedMean: v.mean };
}

/**
 * A variation's moments over every phase: units and totals summed, the mean over all units (a ratio's: its sums
 * divided), the stddev of all units from each phase's (n − 1 within, plus the spread of the phases' means).
 */
function pooledMoments(m: MetricResult, name: string, own: readonly VariationStats[]): VariationStats {
  const units = sumOf(own.map((s) => s.units));
  const total = sumOf(own.map((s) => s.total));
  const denominator = m.type === 'ratio' ? sumOf(own.map((s) => s.denominator ?? 0)) : undefined;
  const base = { name, units, total, ...(denominator !== undefined ? { denominator } : {}) };
  const mean = units === 0 ? null : denominator !== undefined ? (denominator === 0 ? null : total / denominator) : total / units;
  if (mean === null) return { ...base, mean: null, stddev: null };
  if (m.type === 'binomial') return { ...base, mean, stddev: Math.sqrt(mean * (1 - mean)) };
  const known = own.filter((s) => typeof s.mean === 'number' && typeof s.stddev === 'number');
  if (units < 2 || known.length !== own.filter((s) => s.units > 0).length) return { ...base, mean, stddev: null };
  const within = sumOf(known.map((s) => (s.units - 1) * (s.stddev as number) ** 2));
  const between = sumOf(known.map((s) => s.units * ((s.mean as number) - mean) ** 2));
  return { ...base, mean, stddev: Math.sqrt((within + between) / (units - 1)) };
}
