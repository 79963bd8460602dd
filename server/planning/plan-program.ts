import { phasesProgram } from '../phases/phase-store.js';
import { exposedUnitsProgram } from '../results/exposed-units.js';
import { phaseWindow } from '../results/results-service.js';
import { program } from '../storage/program.js';
import type { SqlProgram } from '../storage/sql-program.js';
import { baselineProgram, type BaselineFigures, type PlannedMetric } from './baseline-program.js';

/** What a plan reads: the metric's baseline at `now`, and for a running experiment its units so far. */
export interface PlanRead {
  planned: PlannedMetric;
  now: number;
  /** A running experiment: its units in the current phase are counted (as its results count them). */
  running?: { name: string; variations: string[] };
}

/** A running experiment's units in its current phase, and since when it has been taking them (null: nobody yet). */
export interface UnitsSoFar {
  units: number;
  since: number | null;
}

export interface PlanFacts {
  baseline: BaselineFigures;
  soFar?: UnitsSoFar;
}

/**
 * The baseline and, for a running experiment, its units so far: the people first exposed in its current phase (the
 * units its results answer), and when the phase began (its first exposure, for a first phase that was never changed).
 */
export function* planReadProgram(project: string, read: PlanRead): SqlProgram<PlanFacts> {
  const baseline = yield* baselineProgram(project, read.planned, read.now);
  if (read.running === undefined) return { baseline };
  const phases = yield* phasesProgram(project, read.running.name);
  const phase = phaseWindow(phases, undefined);
  const window = {
    ...(phase.from !== undefined ? { from: phase.from } : {}), ...(phase.to !== undefined ? { to: phase.to } : {}),
    ...(phase.since !== undefined ? { since: phase.since } : {}), ...(phase.until !== undefined ? { until: phase.until } : {}),
  };
  const { units } = yield* exposedUnitsProgram(project, read.running.name, read.running.variations, window);
  let first: number | null = null;
  for (const at of units.first) first = first === null ? at : Math.min(first, at);
  return { baseline, soFar: { units: units.variation.length, since: phase.from ?? first } };
}

/** A plan's reads: a long read, off the event loop that answers requests. */
export const PLAN_READ = program('planning.plan', 'report', planReadProgram);
