// The OpenFeature Remote Evaluation Protocol (OFREP) as the service speaks it: the request an OFREP provider sends and
// the answers it reads, named as the protocol's OpenAPI description names them. The TypeScript types are the schemas'
// own (Static), so the routes' description and the code that builds the answers cannot disagree.
import Type, { type Static } from 'typebox';
import { FreeObject, Id } from './schema-parts.js';

/**
 * Why a flag has its value. `SPLIT`: an experiment's assignment (or a share of traffic); `TARGETING_MATCH`: a
 * personalization whose condition or devices matched, or a feed's products for this person; `STATIC`: the same for
 * everyone (a personalization for everyone, a stopped experiment's winner); `DISABLED`: a draft, or an experiment
 * stopped without a winner; `DEFAULT`: the flag is live but serves this person nothing (not enrolled, not matched).
 * The last two carry no `value`: the caller keeps its code's default.
 */
export const OfrepReason = Type.Union([
  Type.Literal('SPLIT'), Type.Literal('TARGETING_MATCH'), Type.Literal('STATIC'), Type.Literal('DISABLED'), Type.Literal('DEFAULT'),
], {
  description: 'SPLIT: an experiment\'s assignment, or a share of traffic; TARGETING_MATCH: a condition or devices matched, or a '
    + 'feed\'s products for this person; STATIC: the same for everyone (a stopped experiment\'s winner); DISABLED: a draft, or '
    + 'an experiment stopped without a winner; DEFAULT: live, but serving this person nothing. The last two carry no value.',
});
export type OfrepReason = Static<typeof OfrepReason>;

/** The protocol's error codes (`FLAG_NOT_FOUND` is 404, the others 400). */
export const OfrepErrorCode = Type.Union([
  Type.Literal('FLAG_NOT_FOUND'), Type.Literal('TARGETING_KEY_MISSING'), Type.Literal('INVALID_CONTEXT'), Type.Literal('PARSE_ERROR'),
  Type.Literal('GENERAL'),
]);
export type OfrepErrorCode = Static<typeof OfrepErrorCode>;

/**
 * The evaluation context. `targetingKey` is the person: a profile id of the key's project (of `sourceId`, default the
 * project's first source) for a writeKey; a user id an identify linked, or with `sourceId` a profile id, for an
 * apiKey. `sessionId`, `device`, `url` and `productId` are what the Choose API's body says; every other field is a
 * targeting attribute conditions read.
 */
export const OfrepContext = Type.Object({
  targetingKey: Type.Optional(Type.String({
    maxLength: 256,
    description: 'The person: for a writeKey a profile id (of `sourceId`, default the project\'s first source); for an apiKey a '
      + 'user id an identify linked, or with `sourceId` a profile id. Empty or absent: nobody yet (`TARGETING_KEY_MISSING`).',
  })),
  sourceId: Type.Optional(Id('One of the project\'s `sources`: the targeting key is a profile of it.')),
  sessionId: Type.Optional(Id('Needed by experiences sticky by session.')),
  device: Type.Optional(Type.Union([Type.Literal('mobile'), Type.Literal('desktop')])),
  url: Type.Optional(Type.String({ maxLength: 2048, description: 'The page; targeting conditions see it as `url`.' })),
  productId: Type.Optional(Type.Union([Id(), Type.Integer()], { description: 'The product the page is about, for feed-backed flags.' })),
}, { additionalProperties: true, maxProperties: 100, description: 'Every other field is a targeting attribute that conditions read.' });
export type OfrepContext = Static<typeof OfrepContext>;

/** The body of both evaluation requests. */
export const OfrepEvaluationRequest = Type.Object({ context: Type.Optional(OfrepContext) });
export type OfrepEvaluationRequest = Static<typeof OfrepEvaluationRequest>;

/** A flag evaluated: an experience, its variation's name as `variant` and its body as `value` (absent: `DISABLED`, `DEFAULT`). */
export const OfrepEvaluationSuccess = Type.Object({
  key: Type.String({ description: 'The flag: an experience\'s name.' }),
  reason: OfrepReason,
  variant: Type.Optional(Type.String({ description: 'The variation\'s name: experiments only.' })),
  value: Type.Optional(FreeObject('The experience\'s content (the variation\'s, for an experiment).')),
}, { $id: 'OfrepEvaluationSuccess' });
export type OfrepEvaluationSuccess = Static<typeof OfrepEvaluationSuccess>;

/** A flag that could not be evaluated (also the 400 and 404 body of the single evaluation). */
export const OfrepEvaluationFailure = Type.Object({
  key: Type.String(),
  errorCode: OfrepErrorCode,
  errorDetails: Type.String({ description: 'A sentence for a person, naming the context\'s field at fault.' }),
}, { $id: 'OfrepEvaluationFailure' });
export type OfrepEvaluationFailure = Static<typeof OfrepEvaluationFailure>;

export const OfrepEvaluation = Type.Union([OfrepEvaluationSuccess, OfrepEvaluationFailure]);
export type OfrepEvaluation = Static<typeof OfrepEvaluation>;

/** The bulk evaluation's answer: every experience of the key's project, in the configuration's order. */
export const OfrepBulkAnswer = Type.Object({
  flags: Type.Array(OfrepEvaluation, { description: 'Every experience of the key\'s project, in the configuration\'s order.' }),
});
export type OfrepBulkAnswer = Static<typeof OfrepBulkAnswer>;

/** A bulk request refused whole (400): a body that is not JSON, or a context that breaks its shape. */
export const OfrepBulkFailure = Type.Object({ errorCode: OfrepErrorCode, errorDetails: Type.String() }, { $id: 'OfrepBulkFailure' });
export type OfrepBulkFailure = Static<typeof OfrepBulkFailure>;

const ValueType = Type.Union([Type.Literal('object'), Type.Literal('string'), Type.Literal('int'), Type.Literal('float'), Type.Literal('boolean')]);

/**
 * `GET /ofrep/v1/configuration`: what a provider may assume (the shape of the protocol's configuration endpoint, which
 * the protocol's 0.3 description no longer lists; kept for providers that still ask).
 */
export const OfrepConfiguration = Type.Object({
  name: Type.String(),
  capabilities: Type.Object({
    cacheInvalidation: Type.Object({ polling: Type.Object({ enabled: Type.Boolean(), minPollingIntervalMs: Type.Integer({ minimum: 0 }) }) }),
    flagEvaluation: Type.Object({ supportedTypes: Type.Array(ValueType) }),
    caching: Type.Object({ enabled: Type.Boolean(), ttl: Type.Integer({ minimum: 0, description: 'Milliseconds.' }) }),
  }),
});
export type OfrepConfiguration = Static<typeof OfrepConfiguration>;
