import type { ExperienceConfig, VariationConfig } from '../config/config-types.js';
import type { Storage } from '../storage/storage.js';
import { exposedUnitsProgram } from './exposed-units.js';
import { metricValuesProgram } from './metric-values.js';
import { personGraphProgram } from './person-graph.js';
import type { ResultsQuery } from './results-query.js';
import { buildReport, type ResultsReport } from './results-report.js';

/**
 * The results of one experiment, computed from what is stored now: the people exposed (exposures joined with the
 * identity graph), their metric values (events), and the statistics. Nothing is precomputed: one read of the
 * project's identity links, of the exposures naming the experiment and of the events the metrics name.
 * @example const report = await experimentResults(storage, 'acme/shop', hero, { metrics });
 */
export function experimentResults(
  storage: Storage, project: string, experience: ExperienceConfig & { variations: VariationConfig[] }, query: ResultsQuery,
): Promise<ResultsReport> {
  const variations = experience.variations.map((v) => v.name);
  return storage.run(function* () {
    const personOf = yield* personGraphProgram(project);
    const window = { ...(query.from !== undefined ? { from: query.from } : {}), ...(query.to !== undefined ? { to: query.to } : {}) };
    const units = yield* exposedUnitsProgram(storage.dialect, project, experience.name, variations, personOf, window);
    const values = yield* metricValuesProgram(storage.dialect, project, query.metrics, units, personOf);
    return buildReport(experience.name, experience.variations, units, values, query.dimension);
  });
}
