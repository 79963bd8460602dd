import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  OfrepBulkAnswer, OfrepBulkFailure, OfrepConfiguration, OfrepEvaluationFailure, OfrepEvaluationRequest, OfrepEvaluationSuccess,
} from '../../wire/api/ofrep-schema.js';
import type { ChooseService } from '../choose/choose-service.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type Access, type ApiRoute, type OwnErrors } from '../http/api-route.js';
import { toServiceError } from '../http/error-handler.js';
import { entityTag, notModified } from './entity-tag.js';
import { FlagEvaluator } from './flag-evaluator.js';
import { OFREP_CONFIGURATION } from './ofrep-configuration.js';
import { OfrepError } from './ofrep-error.js';
import { validateEvaluationRequest } from './validate-evaluation-request.js';

/** Every OFREP path starts so (CORS answers any origin there: the project is the key's, which a preflight lacks). */
export const OFREP_PREFIX = '/ofrep/';
export const OFREP_FLAG_PATH = '/ofrep/v1/evaluate/flags/:key';
export const OFREP_FLAGS_PATH = '/ofrep/v1/evaluate/flags';
export const OFREP_CONFIGURATION_PATH = '/ofrep/v1/configuration';

const JSON_TYPE = 'application/json; charset=utf-8';
const CONFIGURATION_JSON = JSON.stringify(OFREP_CONFIGURATION);

/** Keys as for the Choose API, however sent (X-API-Key too); the project is the key's. */
const ACCESS: Access = { kind: 'keyProject', keys: ['writeKey', 'apiKey'] };
const TAG = 'OpenFeature';

/**
 * A failure the protocol names, or null for one the service answers in its own shape (keys 401/403, 413, 415, 429,
 * 503). A body that is not JSON is the protocol's `PARSE_ERROR`, in the words the service uses for it elsewhere.
 */
function protocolError(error: Error, request: FastifyRequest): OfrepError | null {
  if (error instanceof OfrepError) return error;
  const known = toServiceError(error, request);
  return known?.code === 'invalid_json' ? new OfrepError('PARSE_ERROR', known.message) : null;
}

/**
 * The OFREP routes' error handler: the protocol's body for its own failures, `{key, errorCode, errorDetails}` (without
 * `key` for a bulk request refused whole); anything else goes on to the service's handler (error-handler.ts).
 */
function ofrepErrorHandler(error: Error, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const failure = protocolError(error, request);
  if (failure === null) throw error;
  const key = (request.params as { key?: string }).key;
  const body: OfrepEvaluationFailure | OfrepBulkFailure = key === undefined
    ? { errorCode: failure.errorCode, errorDetails: failure.message }
    : { key, errorCode: failure.errorCode, errorDetails: failure.message };
  return reply.code(failure.statusCode).type(JSON_TYPE).send(body);
}

const REFUSED = '`PARSE_ERROR` (a body that is not a JSON object), `INVALID_CONTEXT` (a context field that breaks its shape, '
  + 'named in `errorDetails`), `TARGETING_KEY_MISSING`.';

/** The single evaluation's failures: the protocol's body with the flag's key. */
const FLAG_ERRORS: OwnErrors = {
  handler: ofrepErrorHandler,
  answers: {
    400: { description: `The protocol's refusal: ${REFUSED}`, json: OfrepEvaluationFailure },
    404: { description: 'The protocol\'s `FLAG_NOT_FOUND`: no experience of the key\'s project has this name.', json: OfrepEvaluationFailure },
  },
  replaces: ['invalid_json'],
};

/** The bulk evaluation's failures: refused whole, the protocol's body without a key. */
const BULK_ERRORS: OwnErrors = {
  handler: ofrepErrorHandler,
  answers: { 400: { description: 'The protocol\'s refusal of the whole request: `PARSE_ERROR`, `INVALID_CONTEXT`.', json: OfrepBulkFailure } },
  replaces: ['invalid_json'],
};

const ETAG = { ETag: 'The answer\'s strong entity tag: its digest, the same on every node.' };
const IF_NONE_MATCH = { 'If-None-Match': 'A tag of an earlier answer (weak comparison, `*` matches any): the same answer is then 304.' };

/** What a key may evaluate: the choices are the Choose API's for the same person, with its errors. */
const CHOOSE_ERRORS = ['source_not_allowed'] as const;

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

/** The key's result, which the route's access put on the request before the body was read. */
function authOf(request: FastifyRequest): NonNullable<FastifyRequest['auth']> {
  if (!request.auth) throw new ServiceError('missing_credentials', 'Send a writeKey or an apiKey: HTTP Basic, X-API-Key or Authorization: Bearer.');
  return request.auth;
}

/**
 * The OpenFeature Remote Evaluation Protocol (OFREP, the protocol's OpenAPI description 0.3), for OpenFeature's OFREP
 * providers: `POST /ofrep/v1/evaluate/flags/{key}` (one flag; server providers), `POST /ofrep/v1/evaluate/flags` (every
 * flag of the key's project, with `ETag` and 304 for a matching `If-None-Match`; web providers), and
 * `GET /ofrep/v1/configuration`. A flag is an experience, evaluated by the Choose API itself (FlagEvaluator). Keys as
 * for the Choose API; the project is the key's (the `keyProject` access).
 */
export function ofrepRoutes(deps: { choose: ChooseService }): ApiRoute[] {
  const evaluator = new FlagEvaluator(deps.choose);
  return [
    apiRoute<{ Params: { key: string } }>({
      method: 'POST',
      path: OFREP_FLAG_PATH,
      tag: TAG,
      summary: 'Evaluate one flag',
      description: 'A flag is an experience of the key\'s project: `variant` is the variation\'s name, `value` its body, as the '
        + 'Choose API serves the person `context.targetingKey` names (the same sticky first assignment; an apiKey\'s evaluation '
        + 'is an exposure, a writeKey\'s is not). Server providers ask so.',
      access: ACCESS,
      request: {
        json: OfrepEvaluationRequest,
        params: { key: { description: 'The flag: an experience\'s name.' } },
      },
      answers: { 200: { description: 'The flag\'s evaluation.', json: OfrepEvaluationSuccess } },
      errors: CHOOSE_ERRORS,
      ownErrors: FLAG_ERRORS,
      handler: async (request, reply) => {
        const input = validateEvaluationRequest(request.body);
        const evaluation = await evaluator.one(authOf(request), request.params.key, input, { userAgent: request.headers['user-agent'] });
        return reply.type(JSON_TYPE).send(JSON.stringify(evaluation));
      },
    }),
    apiRoute({
      method: 'POST',
      path: OFREP_FLAGS_PATH,
      tag: TAG,
      summary: 'Evaluate every flag',
      description: 'Every experience of the key\'s project, in the configuration\'s order, each as its single evaluation answers; '
        + 'a flag that needs a targeting key the context lacks fails alone. Web providers ask so, and poll with `If-None-Match`: '
        + 'each request is evaluated (and first assignments stored) before it is compared.',
      access: ACCESS,
      request: { json: OfrepEvaluationRequest, headers: IF_NONE_MATCH },
      answers: {
        200: { description: 'Every flag\'s evaluation.', json: OfrepBulkAnswer, headers: ETAG },
        304: { description: 'The answer is the one `If-None-Match` names: no body.', headers: ETAG },
      },
      errors: CHOOSE_ERRORS,
      ownErrors: BULK_ERRORS,
      handler: async (request, reply) => {
        const input = validateEvaluationRequest(request.body);
        const { answer, tagText } = await evaluator.all(authOf(request), input, { userAgent: request.headers['user-agent'] });
        // Evaluated before it is compared: an evaluation stores first assignments, and the client's copy may be of
        // another configuration.
        return sendTagged(request, reply, JSON.stringify(answer), tagText);
      },
    }),
    apiRoute({
      method: 'GET',
      path: OFREP_CONFIGURATION_PATH,
      tag: TAG,
      summary: 'What a provider may assume',
      description: 'Polling no faster than a second (changes reach every node within one), object values only, caching for a '
        + 'second. The protocol\'s 0.3 description no longer lists this route; it is served for providers that still ask.',
      access: ACCESS,
      request: { headers: IF_NONE_MATCH },
      answers: {
        200: { description: 'The provider\'s configuration.', json: OfrepConfiguration, headers: ETAG },
        304: { description: 'The answer is the one `If-None-Match` names: no body.', headers: ETAG },
      },
      errors: [],
      handler: (request, reply) => {
        sendTagged(request, reply, CONFIGURATION_JSON);
      },
    }),
  ];
}
