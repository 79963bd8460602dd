import { PlanAnswer, PlanQuery } from '../../wire/api/results-schema.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import type { PlanService } from './plan-service.js';
import { parsePlanQuery } from './plan-query.js';

export const PLAN_PATH = '/v1/:org/projects/:project/experiences/:name/plan';

/**
 * `GET /v1/{org}/projects/{project}/experiences/{name}/plan?metric=&mde=`: the units and days an experiment needs to
 * detect a relative change of `mde` on a metric with 80 % power, fixed-horizon and sequential, from the project's
 * recent events (docs/planning.md). Read as results are: the project's apiKey, or an admin key or console session of
 * the viewer role or above (a writeKey is public: 401 `invalid_credentials`). An unknown experience, or one without
 * variations, is 404 `experience_not_found`; a bad query is 400 `invalid_request` naming the parameter.
 */
export function planRoute(plans: PlanService): ApiRoute {
  return apiRoute<{ Params: ProjectParams & { name: string }; Querystring: Record<string, unknown> }>({
    method: 'GET',
    path: PLAN_PATH,
    tag: 'Results',
    summary: 'Plan an experiment',
    description: 'The units and days an experiment needs to detect a relative change of `mde` on a metric with 80 % power, '
      + 'fixed-horizon and sequential, from the project\'s recent events.',
    access: { kind: 'project', keys: ['apiKey', 'adminKey'], role: 'viewer' },
    request: { query: PlanQuery, params: { name: { description: 'The experiment\'s name.' } } },
    answers: { 200: { description: 'The plan.', json: PlanAnswer } },
    errors: ['invalid_request', 'experience_not_found'],
    handler: async (request) => {
      const auth = request.auth;
      if (auth === undefined || auth.kind === 'writeKey') {
        throw new ServiceError('invalid_credentials', 'Plans need an apiKey or an admin key; a writeKey cannot read them.');
      }
      const { config, key: project } = auth.project;
      const experience = config.experiences?.find((e) => e.name === request.params.name);
      if (!experience) throw new ServiceError('experience_not_found', `There is no experience ${quoted(request.params.name)} in this project.`);
      if (!experience.variations) {
        throw new ServiceError('experience_not_found', `The experience ${quoted(experience.name)} is not an experiment: it has no variations.`);
      }
      const metrics = config.metrics ?? [];
      const query = parsePlanQuery(request.query, metrics, experience);
      return plans.plan(project, { ...experience, variations: experience.variations }, query, metrics);
    },
  });
}
