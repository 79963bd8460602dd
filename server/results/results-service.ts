import { program } from '../storage/program.js';
import type { Storage } from '../storage/storage.js';
import { experimentResultsProgram, type ExperimentConfig } from './experiment-results.js';
import type { ResultsQuery } from './results-query.js';
import type { ResultsReport } from './results-report.js';

/** One experiment's results: a long read (the storage runs it off the event loop that answers requests). */
export const EXPERIMENT_RESULTS = program('results.experiment', 'report', experimentResultsProgram);

/**
 * Computes experiment results as the storage places EXPERIMENT_RESULTS.
 * @example const results = new ResultsService(storage); await results.compute('acme/shop', hero, query);
 */
export class ResultsService {
  constructor(private readonly storage: Storage) {}

  compute(project: string, experience: ExperimentConfig, query: ResultsQuery): Promise<ResultsReport> {
    return this.storage.place(EXPERIMENT_RESULTS, project, experience, query);
  }
}
