import type { OfrepErrorCode } from '../../wire/api/ofrep-schema.js';

/**
 * A flag evaluation refused in the protocol's words: `{key, errorCode, errorDetails}` (a bulk request refused whole:
 * without `key`), 404 for `FLAG_NOT_FOUND` and 400 for the others. Keys, origins, rate limits and the database answer
 * as every other route does (`{error:{code, message}}` with 401, 403, 429, 503): the protocol gives those no body.
 * @example throw new OfrepError('TARGETING_KEY_MISSING', 'context.targetingKey: is required');
 */
export class OfrepError extends Error {
  readonly errorCode: OfrepErrorCode;
  readonly statusCode: number;

  constructor(errorCode: OfrepErrorCode, details: string) {
    super(details);
    this.name = 'OfrepError';
    this.errorCode = errorCode;
    this.statusCode = errorCode === 'FLAG_NOT_FOUND' ? 404 : 400;
  }
}
