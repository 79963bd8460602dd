import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OfrepBulkFailure, OfrepEvaluationFailure } from '../../wire/api/ofrep-schema.js';
import type { ChooseService } from '../choose/choose-service.js';
import type { ConfigStore } from '../config/config-store.js';
import type { ServiceError } from '../errors/service-error.js';
import { toServiceError } from '../http/error-handler.js';
import { entityTag, notModified } from './entity-tag.js';
import { FlagEvaluator } from './flag-evaluator.js';
import { OFREP_CONFIGURATION } from './ofrep-configuration.js';
import { ofrepEndpoint } from './ofrep-endpoint.js';
import { OfrepError } from './ofrep-error.js';
import { validateEvaluationRequest } from './validate-evaluation-request.js';

export const OFREP_FLAG_PATH = '/ofrep/v1/evaluate/flags/:key';
export const OFREP_FLAGS_PATH = '/ofrep/v1/evaluate/flags';
export const OFREP_CONFIGURATION_PATH = '/ofrep/v1/configuration';

const JSON_TYPE = 'application/json; charset=utf-8';
const CONFIGURATION_JSON = JSON.stringify(OFREP_CONFIGURATION);

/**
 * A failure the protocol names, or null for one the service answers in its own shape (keys 401/403, 413, 415, 429,
 * 503). A body that is not JSON is the protocol's `PARSE_ERROR`, in the words the service uses for it elsewhere.
 */
function protocolError(error: FastifyError | ServiceError | Error, request: FastifyRequest): OfrepError | null {
  if (error instanceof OfrepError) return error;
  const known = toServiceError(error, request);
  return known?.code === 'invalid_json' ? new OfrepError('PARSE_ERROR', known.message) : null;
}

/**
 * The OFREP routes' error handler: the protocol's body for its own failures, `{key, errorCode, errorDetails}` (without
 * `key` for a bulk request refused whole); anything else goes on to the service's handler (error-handler.ts).
 */
function ofrepErrorHandler(error: FastifyError | ServiceError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const failure = protocolError(error, request);
  if (failure === null) throw error;
  const key = (request.params as { key?: string }).key;
  const body: OfrepEvaluationFailure | OfrepBulkFailure = key === undefined
    ? { errorCode: failure.errorCode, errorDetails: failure.message }
    : { key, errorCode: failure.errorCode, errorDetails: failure.message };
  return reply.code(failure.statusCode).type(JSON_TYPE).send(body);
}

/**
 * Sends `json` with the entity tag of `tagText` (default: `json` itself), or 304 without a body when the client's
 * `If-None-Match` names that tag.
 */
function sendTagged(request: FastifyRequest, reply: FastifyReply, json: string, tagText = json): FastifyReply {
  const tag = entityTag(tagText);
  reply.header('etag', tag);
  if (notModified(request.headers['if-none-match'], tag)) return reply.code(304).send();
  return reply.type(JSON_TYPE).send(json);
}

/**
 * The OpenFeature Remote Evaluation Protocol (OFREP, the protocol's OpenAPI description 0.3), for OpenFeature's OFREP
 * providers: `POST /ofrep/v1/evaluate/flags/{key}` (one flag; server providers), `POST /ofrep/v1/evaluate/flags` (every
 * flag of the key's project, with `ETag` and 304 for a matching `If-None-Match`; web providers), and
 * `GET /ofrep/v1/configuration`. A flag is an experience, evaluated by the Choose API itself (FlagEvaluator). Keys as
 * for the Choose API; the project is the key's (ofrepEndpoint).
 */
export function ofrepRoutes(app: FastifyInstance, config: ConfigStore, choose: ChooseService): void {
  const onRequest = ofrepEndpoint(app, config);
  const evaluator = new FlagEvaluator(choose);
  const options = { onRequest, errorHandler: ofrepErrorHandler };

  app.post<{ Params: { key: string } }>(OFREP_FLAG_PATH, options, async (request, reply) => {
    const input = validateEvaluationRequest(request.body);
    const evaluation = await evaluator.one(request.auth!, request.params.key, input, { userAgent: request.headers['user-agent'] });
    return reply.type(JSON_TYPE).send(JSON.stringify(evaluation));
  });

  app.post(OFREP_FLAGS_PATH, options, async (request, reply) => {
    const input = validateEvaluationRequest(request.body);
    const { answer, tagText } = await evaluator.all(request.auth!, input, { userAgent: request.headers['user-agent'] });
    // Evaluated before it is compared: an evaluation stores first assignments, and the client's copy may be of
    // another configuration.
    return sendTagged(request, reply, JSON.stringify(answer), tagText);
  });

  app.get(OFREP_CONFIGURATION_PATH, { onRequest }, (request, reply) => {
    sendTagged(request, reply, CONFIGURATION_JSON);
  });
}
