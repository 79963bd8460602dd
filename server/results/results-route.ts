import { ResultsAnswer, ResultsQuery } from '../../wire/api/results-schema.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import type { ResultsService } from './results-service.js';
import { parseResultsQuery } from './results-query.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

export const RESULTS_PATH = '/v1/:org/projects/:project/experiences/:name/results';

/** What the results route uses of the service. */
export interface ResultsRouteDeps {
  metrics: ServiceMetrics;
}

/**
 * `GET /v1/{org}/projects/{project}/experiences/{name}/results?apiKey=…`: an experiment's units, metrics and
 * statistics. The project's apiKey or its organization's admin key, as `?apiKey=` or `Authorization: Bearer` (a
 * writeKey is public: 401 `invalid_credentials`); an unknown experience, or one
 * without variations, is 404 `experience_not_found`; a bad query is 400 `invalid_request`. A read changes nothing: an
 * experiment its answer shows harmed is stopped by the guardrail watch's own next look, not by the read.
 */
export function resultsRoute(ctx: ResultsRouteDeps, results: ResultsService): ApiRoute {
  return apiRoute<{ Params: ProjectParams & { name: string }; Querystring: Record<string, unknown> }>({
    method: 'GET',
    path: RESULTS_PATH,
    tag: 'Results',
    summary: 'An experiment\'s results',
    description: 'Units, the sample-ratio test, and each metric\'s figures per variation with their statistics (the experiment\'s '
      + 'analysis settings), for its current phase, one phase, or all phases pooled; optionally by a dimension or day by day.',
    access: { kind: 'project', keys: ['apiKey', 'adminKey'] },
    request: { query: ResultsQuery, params: { name: { description: 'The experiment\'s name.' } } },
    answers: { 200: { description: 'The results.', json: ResultsAnswer } },
    errors: ['invalid_request', 'experience_not_found'],
    handler: async (request) => {
      const auth = request.auth;
      if (auth === undefined || auth.kind === 'writeKey') {
        throw new ServiceError('invalid_credentials', 'Results need an apiKey or an admin key; a writeKey cannot read them.');
      }
      const { config, key: project } = auth.project;
      const experience = config.experiences?.find((e) => e.name === request.params.name);
      if (!experience) throw new ServiceError('experience_not_found', `There is no experience ${quoted(request.params.name)} in this project.`);
      if (!experience.variations) {
        throw new ServiceError('experience_not_found', `The experience ${quoted(experience.name)} is not an experiment: it has no variations.`);
      }
      const query = parseResultsQuery(request.query, config.metrics ?? [], experience);
      const started = process.hrtime.bigint();
      const report = await results.compute(project, { ...experience, variations: experience.variations }, query);
      ctx.metrics.resultsDuration.observe(Number(process.hrtime.bigint() - started) / 1e9);
      if (report.srm.mismatch) ctx.metrics.srmMismatches.inc({ project, experience: experience.name });
      return report;
    },
  });
}
