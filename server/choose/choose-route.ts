import type { FastifyInstance } from 'fastify';
import type { ConfigStore } from '../config/config-store.js';
import { ServiceError } from '../errors/service-error.js';
import { projectEndpoint, type ProjectParams } from '../http/project-endpoint.js';
import type { ChooseService } from './choose-service.js';
import { exposureContext } from './exposure-context.js';
import { validateChooseRequest } from './validate-choose-request.js';

export const CHOOSE_PATH = '/v1/:org/projects/:project/optimization/choose-api';

/**
 * `POST /v1/{org}/projects/{project}/optimization/choose-api`: authentication before the body is read
 * (projectEndpoint), then the whole body is validated (400, no lookup yet), then the ChooseService answers
 * `{choices:[{name, group?, variation?, body}]}`.
 */
export function chooseRoute(app: FastifyInstance, config: ConfigStore, choose: ChooseService): void {
  app.post<{ Params: ProjectParams }>(
    CHOOSE_PATH,
    { onRequest: projectEndpoint(app, config, { allowApiKey: true }) },
    (request, reply) => {
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
  );
}
