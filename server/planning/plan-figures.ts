import type { ExperienceConfig } from '../config/config-types.js';
import { DEFAULT_SEQUENTIAL_TUNING } from '../results/inference.js';
import { DEFAULT_ALPHA } from '../results/statistics.js';
import type {
  PlanAnalysis, PlanAnswer, PlanBaseline, PlanDetectable, PlanFigure, PlanGap, PlanInterval,
} from '../../wire/plan-answer.js';
import type { BaselineFigures } from './baseline-program.js';
import type { PlanFacts } from './plan-program.js';
import type { PlanQuery } from './plan-query.js';
import {
  detectableEffect, fixedHorizonUnits, sequentialUnits, type ArmShares, type PlannedTest, type TestSettings, type UnitBaseline,
} from './power.js';

// A plan's figures from what was read: units per variation and in all for each test, the days they take, and what a
// run can detect by its end. Pure: no I/O, no module state.

const DAY_MS = 86_400_000;
/** The power every plan is for. */
export const PLANNED_POWER = 0.8;

/** A variation as the plan splits traffic: its name and weight (a bandit's arms: equal, as its exploration starts). */
interface Arm {
  name: string;
  weight: number;
}

/** What a plan needs of the experiment, the request and the project. */
export interface PlanInput {
  experience: ExperienceConfig & { variations: NonNullable<ExperienceConfig['variations']> };
  query: PlanQuery;
  facts: PlanFacts;
  now: number;
  /** How many metrics the project has: the family a correction spans when the experiment names no goals. */
  projectMetrics: number;
}

function armsOf(experience: PlanInput['experience']): Arm[] {
  const bandit = experience.allocation === 'bandit';
  return experience.variations.map((v) => ({ name: v.name, weight: bandit ? 100 / experience.variations.length : v.weight }));
}

/** The share of the project's people the experiment enrols: traffic × its namespace's range. */
export function trafficShare(experience: ExperienceConfig): number {
  const namespace = experience.namespace ? experience.namespace[2] - experience.namespace[1] : 1;
  return ((experience.traffic ?? 100) / 100) * namespace;
}

/** The control against each challenger that takes traffic, as shares of the experiment's units. */
function comparisons(arms: readonly Arm[]): ArmShares[] {
  const total = arms.reduce((sum, a) => sum + a.weight, 0);
  const [control, ...challengers] = arms;
  if (control === undefined || !(control.weight > 0)) return [];
  return challengers.filter((a) => a.weight > 0).map((a) => ({ control: control.weight / total, treatment: a.weight / total }));
}

/** Why the baseline gives no figure, if it does not. */
function gapOf(b: BaselineFigures): PlanGap | undefined {
  if (b.units === 0) return 'no-traffic';
  if (b.mean === null || b.mean === 0) return 'zero-mean';
  return b.variance === null || !(b.variance > 0) ? 'no-variance' : undefined;
}

/** The analysis settings, the alpha of each comparison corrected (Bonferroni) across the family results correct. */
export function analysisOf(experience: ExperienceConfig, challengers: number, projectMetrics: number): PlanAnalysis {
  const alpha = experience.alpha ?? DEFAULT_ALPHA;
  const correction = experience.correction ?? 'none';
  const family = correction === 'none' ? 1 : Math.max(1, challengers) * Math.max(1, experience.goals?.length ?? projectMetrics);
  return {
    alpha, power: PLANNED_POWER, correction, comparisons: family, alphaPerComparison: alpha / family,
    sequentialTuning: experience.sequentialTuning ?? DEFAULT_SEQUENTIAL_TUNING,
  };
}

/** One test's figure: the units the comparison with the smallest challenger needs, split by weight, and their days. */
function figureOf(arms: readonly Arm[], needs: (shares: ArmShares) => number, perDay: number): PlanFigure {
  const pairs = comparisons(arms);
  const all = pairs.length === 0 ? Number.NaN : Math.max(...pairs.map(needs));
  if (!Number.isFinite(all) || !(all > 0)) return { units: null, variations: arms.map((a) => ({ ...a, units: null })), days: null };
  const total = arms.reduce((sum, a) => sum + a.weight, 0);
  const variations = arms.map((a) => ({ ...a, units: Math.ceil((all * a.weight) / total) }));
  const units = variations.reduce((sum, v) => sum + v.units, 0);
  return { units, variations, days: perDay > 0 ? Math.ceil(units / perDay) : null };
}

/**
 * A running experiment's (or a planned run's) minimum detectable effect by its end: the end asked for (`endAt`, or
 * `days` from the current phase's start; a draft starts now), else the plan's own end; its units are those so far plus
 * a daily rate for the days left (the experiment's own over its phase once it has run a day, else the project's).
 */
function detectableOf(input: PlanInput, arms: readonly Arm[], b: UnitBaseline | null, test: TestSettings, plannedDays: number | null, perDay: number): PlanDetectable | undefined {
  const { query, facts, now } = input;
  const running = facts.soFar;
  if (running === undefined && query.days === undefined && query.endAt === undefined) return undefined;
  const start = running?.since ?? now;
  const days = query.days ?? plannedDays;
  const end = query.endAt ?? (days === null ? null : start + days * DAY_MS);
  if (end === null) return undefined;
  const soFar = running?.units ?? 0;
  const elapsed = running?.since != null ? (now - running.since) / DAY_MS : 0;
  const rate = elapsed >= 1 ? soFar / elapsed : perDay;
  const units = Math.floor(soFar + (rate * Math.max(0, end - now)) / DAY_MS);
  const sign = input.query.metric.inverse ? -1 : 1;
  const mdeOf = (kind: PlannedTest): number | null => {
    const pairs = comparisons(arms);
    if (b === null || pairs.length === 0) return null;
    const each = pairs.map((shares) => detectableEffect(kind, b, sign, shares, units, test));
    return each.some((e) => e === null) ? null : Math.max(...(each as number[]));
  };
  const fixedHorizonMde = mdeOf('fixed-horizon');
  const sequentialMde = mdeOf('sequential');
  return {
    byDate: new Date(end).toISOString(), units, unitsSoFar: soFar, unitsPerDay: rate,
    mde: input.experience.sequential ? sequentialMde : fixedHorizonMde, fixedHorizonMde, sequentialMde,
  };
}

/**
 * The plan: for the fixed-horizon and the sequential test of the experiment's settings, the units for 80 % power on a
 * relative change of `query.mde` in the metric's good direction, and the days the project's recent traffic takes to
 * bring them (its people per day × the experiment's traffic share).
 */
export function buildPlan(input: PlanInput): PlanAnswer {
  const { experience, query, facts } = input;
  const arms = armsOf(experience);
  const analysis = analysisOf(experience, comparisons(arms).length, input.projectMetrics);
  const test: TestSettings = { alpha: analysis.alphaPerComparison, power: analysis.power, tuning: analysis.sequentialTuning };
  const figures = facts.baseline;
  const gap = gapOf(figures);
  const b: UnitBaseline | null = gap === undefined
    ? { mean: figures.mean as number, variance: figures.variance as number, binomial: query.metric.type === 'binomial' }
    : null;
  const share = trafficShare(experience);
  const unitsPerDay = figures.units / figures.days;
  const effect = (query.metric.inverse ? -1 : 1) * query.mde;
  const needs = (units: (base: UnitBaseline, e: number, s: ArmShares, t: TestSettings) => number) =>
    (shares: ArmShares): number => (b === null ? Number.NaN : units(b, effect, shares, test));
  const fixedHorizon = figureOf(arms, needs(fixedHorizonUnits), unitsPerDay * share);
  const sequential = figureOf(arms, needs(sequentialUnits), unitsPerDay * share);
  const interval: PlanInterval = experience.sequential ? 'sequential' : 'fixed-horizon';
  const own = interval === 'sequential' ? sequential : fixedHorizon;
  const baseline: PlanBaseline = {
    from: new Date(figures.from).toISOString(), to: new Date(figures.to).toISOString(), days: figures.days, units: figures.units,
    unitsPerDay, mean: figures.mean, stddev: figures.variance === null ? null : Math.sqrt(figures.variance),
  };
  const detectable = detectableOf(input, arms, b, test, own.days, unitsPerDay * share);
  return {
    experience: experience.name, metric: query.metric.name, metricType: query.metric.type, mde: query.mde, interval,
    units: own.units, days: own.days, variations: own.variations, fixedHorizon, sequential,
    ...(gap !== undefined ? { gap } : {}),
    analysis, baseline, trafficShare: share,
    ...(detectable !== undefined ? { detectable } : {}),
  };
}
