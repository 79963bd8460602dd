// The OpenFeature Remote Evaluation Protocol (OFREP) as the service speaks it: the request an OFREP provider sends and
// the answers it reads, named as the protocol's OpenAPI description names them.

/**
 * Why a flag has its value. `SPLIT`: an experiment's assignment (or a share of traffic); `TARGETING_MATCH`: a
 * personalization whose condition or devices matched, or a feed's products for this person; `STATIC`: the same for
 * everyone (a personalization for everyone, a stopped experiment's winner); `DISABLED`: a draft, or an experiment
 * stopped without a winner; `DEFAULT`: the flag is live but serves this person nothing (not enrolled, not matched).
 * The last two carry no `value`: the caller keeps its code's default.
 */
export type OfrepReason = 'SPLIT' | 'TARGETING_MATCH' | 'STATIC' | 'DISABLED' | 'DEFAULT';

/** The protocol's error codes (`FLAG_NOT_FOUND` is 404, the others 400). */
export type OfrepErrorCode = 'FLAG_NOT_FOUND' | 'TARGETING_KEY_MISSING' | 'INVALID_CONTEXT' | 'PARSE_ERROR' | 'GENERAL';

/**
 * The evaluation context. `targetingKey` is the person: a profile id of the key's project (of `sourceId`, default the
 * project's first source) for a writeKey; a user id an identify linked, or with `sourceId` a profile id, for an
 * apiKey. `sessionId`, `device`, `url` and `productId` are what the Choose API's body says; every other field is a
 * targeting attribute conditions read.
 */
export interface OfrepContext {
  targetingKey?: string;
  sourceId?: string;
  sessionId?: string;
  device?: 'mobile' | 'desktop';
  url?: string;
  productId?: string | number;
  [attribute: string]: unknown;
}

/** The body of both evaluation requests. */
export interface OfrepEvaluationRequest {
  context?: OfrepContext;
}

/** A flag evaluated: an experience, its variation's name as `variant` and its body as `value` (absent: `DISABLED`, `DEFAULT`). */
export interface OfrepEvaluationSuccess {
  key: string;
  reason: OfrepReason;
  variant?: string;
  value?: Readonly<Record<string, unknown>>;
}

/** A flag that could not be evaluated (also the 400 and 404 body of the single evaluation). */
export interface OfrepEvaluationFailure {
  key: string;
  errorCode: OfrepErrorCode;
  errorDetails: string;
}

export type OfrepEvaluation = OfrepEvaluationSuccess | OfrepEvaluationFailure;

/** The bulk evaluation's answer: every experience of the key's project, in the configuration's order. */
export interface OfrepBulkAnswer {
  flags: OfrepEvaluation[];
}

/** A bulk request refused whole (400): a body that is not JSON, or a context that breaks its shape. */
export interface OfrepBulkFailure {
  errorCode: OfrepErrorCode;
  errorDetails: string;
}

/**
 * `GET /ofrep/v1/configuration`: what a provider may assume (the shape of the protocol's configuration endpoint, which
 * the protocol's 0.3 description no longer lists; kept for providers that still ask).
 */
export interface OfrepConfiguration {
  name: string;
  capabilities: {
    cacheInvalidation: { polling: { enabled: boolean; minPollingIntervalMs: number } };
    flagEvaluation: { supportedTypes: ('object' | 'string' | 'int' | 'float' | 'boolean')[] };
    caching: { enabled: boolean; ttl: number };
  };
}
