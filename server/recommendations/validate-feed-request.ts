import { MAX_ID_LENGTH } from '../../wire/event.js';
import { ServiceError } from '../errors/service-error.js';
import { refuseJsonHazards } from '../http/json-hazards.js';

/** The feed endpoint's body after validation. */
export interface FeedRequestBody {
  profileId: string;
  sourceId: string;
  limit: number;
  fields: string[];
  productId?: string;
  /** The visitor's session (the SDK sends it): a holdout's exposure is recorded once per session, as Choose's are. */
  sessionId?: string;
}

export const MAX_FEED_LIMIT = 100;
/** Fields per request and characters per field name: a request cannot make us build huge answers. */
export const MAX_FIELDS = 50;
const MAX_FIELD_LENGTH = 64;

function fail(path: string, problem: string): never {
  throw new ServiceError('invalid_request', `${path}: ${problem}`);
}

function id(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0) fail(path, 'must be a non-empty string');
  if (value.length > MAX_ID_LENGTH) fail(path, `must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

/**
 * Checks a feed request; messages name the field (`limit: must be an integer between 1 and 100`).
 * `productId` may be a number too (a platform's numeric ids; events accept both), and is compared as a string.
 * @example validateFeedRequest({ profileId: 'p', sourceId: 'web', limit: 4, fields: ['title'] })
 */
export function validateFeedRequest(raw: unknown): FeedRequestBody {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('body', 'must be a JSON object');
  refuseJsonHazards(raw, 'invalid_request', '');
  const body = raw as Record<string, unknown>;
  const profileId = id(body.profileId, 'profileId');
  const sourceId = id(body.sourceId, 'sourceId');
  const limit = body.limit;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_FEED_LIMIT) {
    fail('limit', `must be an integer between 1 and ${MAX_FEED_LIMIT}`);
  }
  const fields = body.fields;
  if (!Array.isArray(fields)) fail('fields', 'must be an array of strings');
  if (fields.length > MAX_FIELDS) fail('fields', `must have at most ${MAX_FIELDS} entries`);
  fields.forEach((field, i) => {
    if (typeof field !== 'string' || field.length === 0 || field.length > MAX_FIELD_LENGTH) {
      fail(`fields[${i}]`, `must be a non-empty string of at most ${MAX_FIELD_LENGTH} characters`);
    }
  });
  const result: FeedRequestBody = { profileId, sourceId, limit, fields: fields as string[] };
  if (body.productId !== undefined && body.productId !== null) {
    const productId = typeof body.productId === 'number' && Number.isFinite(body.productId) ? String(body.productId) : body.productId;
    result.productId = id(productId, 'productId');
  }
  if (body.sessionId !== undefined && body.sessionId !== null) result.sessionId = id(body.sessionId, 'sessionId');
  return result;
}
