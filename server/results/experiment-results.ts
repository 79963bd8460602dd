import type { SqlProgram } from '../storage/sql-program.js';
import { resolveBandit } from '../config/bandit-settings.js';
import { answeredPhases, type StoredPhase } from '../phases/phase-store.js';
import { reweightsProgram, type StoredReweight } from '../phases/reweight-store.js';
import { banditPeriods, currentWeights } from './bandit-periods.js';
import { exposedUnitsProgram } from './exposed-units.js';
import { metricValuesProgram } from './metric-values.js';
import { dimensionValuesProgram } from './unit-dimensions.js';
import type { ResultsQuery } from './results-query.js';
import { buildReport, type ExperimentConfig, type ResultsReport } from './results-report.js';

export type { ExperimentConfig };

/** The phase results answer: its number, the first exposures it covers, the weights of its split. */
export interface PhaseWindow {
  phase: number;
  /** Every stored phase of the experiment (none: it has one, since its first exposure, with its current weights). */
  phases: StoredPhase[];
  /** Units first exposed at or after this time (epoch ms)… */
  from?: number;
  /** …and before this one. */
  to?: number;
  /** The phase's weights; absent: the experiment's current ones. */
  weights?: Record<string, number>;
  /** The exposures that count at all: those of the phase's randomisation (exposed-units.ts, UnitWindow). */
  since?: number;
  until?: number;
}

/**
 * The results of one experiment as one read program, computed from what is stored now: the people exposed (exposures
 * joined with the identity graph), their metric values (events), and the statistics, for the units first exposed in
 * the phase (and within the query's `from`/`to`). Nothing is computed ahead but what indexes keep: reads of the
 * experiment's exposures, of its people's identity links, and of the events the metrics name since its first
 * exposure; none grows with the project's other experiments.
 * @example const report = await storage.run(() => experimentResultsProgram('acme/shop', hero, { metrics }, { phase: 1, phases: [] }));
 */
export function* experimentResultsProgram(
  project: string, experience: ExperimentConfig, query: ResultsQuery, phase: PhaseWindow,
): SqlProgram<ResultsReport> {
  const variations = experience.variations.map((v) => v.name);
  const later = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.max(a, b));
  const earlier = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? b : b === undefined ? a : Math.min(a, b));
  const from = later(query.from, phase.from);
  const to = earlier(query.to, phase.to);
  const window = {
    ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}),
    ...(phase.since !== undefined ? { since: phase.since } : {}), ...(phase.until !== undefined ? { until: phase.until } : {}),
  };
  const { units, personOf } = yield* exposedUnitsProgram(project, experience.name, variations, window);
  const values = yield* metricValuesProgram(project, query.counted, units, personOf);
  const dimension = query.dimension === undefined
    ? undefined
    : { name: query.dimension, values: yield* dimensionValuesProgram(project, query.dimension, units) };
  const weights = phase.weights ?? Object.fromEntries(experience.variations.map((v) => [v.name, v.weight]));
  const bandit = resolveBandit(experience);
  const periods = bandit === null
    ? undefined
    : banditPeriods(bandit.metric, units.first, variations, weights, yield* phaseReweights(project, experience.name, phase));
  return buildReport(experience, units, values, query, {
    phase: phase.phase, phases: answeredPhases(phase.phases, experience, units.earliest),
    ...(periods === undefined ? { weights } : { weights: currentWeights(periods, variations), bandit: periods }),
  }, dimension);
}

/** A bandit's reweights during the phase (those of the phase's start up to its end), oldest first. */
function* phaseReweights(project: string, experience: string, phase: PhaseWindow): SqlProgram<StoredReweight[]> {
  const reweights = yield* reweightsProgram(project, experience, phase.from ?? null);
  return phase.to === undefined ? reweights : reweights.filter((r) => r.at < (phase.to as number));
}
