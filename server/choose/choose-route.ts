import { ChooseAnswer, ChooseBody } from '../../wire/api/choose-schema.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import type { ChooseService } from './choose-service.js';
import { exposureContext } from './exposure-context.js';
import { validateChooseRequest } from './validate-choose-request.js';

export const CHOOSE_PATH = '/v1/:org/projects/:project/optimization/choose-api';

/**
 * `POST /v1/{org}/projects/{project}/optimization/choose-api`: authentication before the body is read (the route's
 * access), then the whole body is validated (400, no lookup yet), then the ChooseService answers
 * `{choices:[{name, group?, variation?, body}]}`.
 */
export function chooseRoute(choose: ChooseService): ApiRoute {
  return apiRoute<{ Params: ProjectParams }>({
    method: 'POST',
    path: CHOOSE_PATH,
    tag: 'Choose',
    summary: 'Choose experiences for a visitor',
    description: 'The variation (or content) of each experience asked for, by name or by group. The first answer for a profile '
      + 'is its sticky assignment; an exposure is recorded unless `deferExposure` (the caller then reports `Experiment Viewed`).',
    access: { kind: 'project', keys: ['writeKey', 'apiKey'] },
    request: { json: ChooseBody },
    answers: { 200: { description: 'The choices, in the order asked.', json: ChooseAnswer } },
    errors: ['invalid_request', 'unknown_user', 'names_or_groups_required', 'session_id_required', 'identification_not_allowed', 'source_not_allowed'],
    handler: (request, reply) => {
      const auth = request.auth;
      if (!auth) throw new ServiceError('missing_credentials', 'Send an apiKey query parameter or HTTP Basic credentials with a writeKey.');
      const body = validateChooseRequest(request.body);
      const context = exposureContext(request.headers['user-agent'], body.url);
      if (context !== null) body.context = context;
      const json = choose.answer(auth, body);
      // Fastify sends a string with a JSON content type as it is: at once, or once the promise resolved. Sent at once,
      // nothing is returned: a returned reply is a thenable Fastify would wait on for the response to finish.
      reply.type('application/json; charset=utf-8');
      if (typeof json !== 'string') return json;
      reply.send(json);
      return undefined;
    },
  });
}
