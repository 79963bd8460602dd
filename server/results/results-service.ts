import { ServiceError } from '../errors/service-error.js';
import { readPhases, type StoredPhase } from '../phases/phase-store.js';
import { program } from '../storage/program.js';
import type { Storage } from '../storage/storage.js';
import { experimentResultsProgram, type ExperimentConfig, type PhaseWindow } from './experiment-results.js';
import { poolPhases } from './phase-pooling.js';
import type { ResultsQuery } from './results-query.js';
import type { ResultsReport } from './results-report.js';

/** One experiment's results: a long read (the storage runs it off the event loop that answers requests). */
export const EXPERIMENT_RESULTS = program('results.experiment', 'report', experimentResultsProgram);

/**
 * The phase a query asks for (default: the last), as the window of first exposures it covers and the weights its
 * split is tested against. An experiment without recorded phases has one, since its first exposure.
 * @throws ServiceError `invalid_request` for a phase the experiment does not have.
 */
export function phaseWindow(phases: readonly StoredPhase[], asked: number | undefined): PhaseWindow {
  const count = Math.max(phases.length, 1);
  const phase = asked ?? count;
  if (phase > count) {
    throw new ServiceError('invalid_request', `phase: the experiment has ${count === 1 ? 'one phase (1)' : `phases 1 to ${count}`}, not ${phase}`);
  }
  const stored = phases[phase - 1];
  // The phases of one randomisation share their people; a re-randomisation begins another set of them.
  const randomization = stored?.randomization ?? 0;
  const since = randomization > 0 ? phases.find((p) => p.randomization === randomization)?.startedAt : undefined;
  const until = phases.find((p) => p.phase > phase && p.randomization !== randomization)?.startedAt;
  return {
    phase,
    phases: [...phases],
    ...(stored?.startedAt != null ? { from: stored.startedAt } : {}),
    ...(stored?.endedAt != null ? { to: stored.endedAt } : {}),
    ...(stored !== undefined ? { weights: stored.weights } : {}),
    ...(since != null ? { since } : {}),
    ...(until != null ? { until } : {}),
  };
}

/**
 * Computes experiment results as the storage places EXPERIMENT_RESULTS, for the phase the query asks for.
 * @example const results = new ResultsService(storage); await results.compute('acme/shop', hero, query);
 */
export class ResultsService {
  constructor(private readonly storage: Storage) {}

  async compute(project: string, experience: ExperimentConfig, query: ResultsQuery): Promise<ResultsReport> {
    const phases = await readPhases(this.storage, project, experience.name);
    if (query.phase !== 'all') return this.storage.place(EXPERIMENT_RESULTS, project, experience, query, phaseWindow(phases, query.phase));
    // Every phase, each over its own units, then combined stratified by phase (no daily series across phases).
    const { series: _series, ...each } = query;
    const reports: ResultsReport[] = [];
    for (let phase = 1; phase <= Math.max(phases.length, 1); phase++) {
      reports.push(await this.storage.place(EXPERIMENT_RESULTS, project, experience, { ...each, phase }, phaseWindow(phases, phase)));
    }
    return poolPhases(reports, query.roles, experience.guardrails ?? []);
  }
}
