import type { SqlProgram } from '../storage/sql-program.js';
import { exposedUnitsProgram } from './exposed-units.js';
import { metricValuesProgram } from './metric-values.js';
import type { ResultsQuery } from './results-query.js';
import { buildReport, type ExperimentConfig, type ResultsReport } from './results-report.js';

export type { ExperimentConfig };

/**
 * The results of one experiment as one read program, computed from what is stored now: the people exposed (exposures
 * joined with the identity graph), their metric values (events), and the statistics. Nothing is computed ahead but
 * what indexes keep: reads of the experiment's exposures, of its people's identity links, and of the events the
 * metrics name since its first exposure; none grows with the project's other experiments.
 * @example const report = await storage.run(() => experimentResultsProgram('acme/shop', hero, { metrics }));
 */
export function* experimentResultsProgram(
  project: string, experience: ExperimentConfig, query: ResultsQuery,
): SqlProgram<ResultsReport> {
  const variations = experience.variations.map((v) => v.name);
  const window = { ...(query.from !== undefined ? { from: query.from } : {}), ...(query.to !== undefined ? { to: query.to } : {}) };
  const { units, personOf } = yield* exposedUnitsProgram(project, experience.name, variations, window);
  const values = yield* metricValuesProgram(project, query.counted, units, personOf);
  return buildReport(experience, units, values, query.metrics, query.dimension);
}
