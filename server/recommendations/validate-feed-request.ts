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
  /** Products other widgets of the page already show: a feed that dedupes leaves them out. */
  excludeProducts?: string[];
}

export const MAX_FEED_LIMIT = 100;
/** Fields per request and characters per field name: a request cannot make us build huge answers. */
export const MAX_FIELDS = 50;
const MAX_FIELD_LENGTH = 64;
/** Product ids a request may say the page already shows: a page's widgets rarely show more than a few dozen. */
export const MAX_EXCLUDED = 200;

function fail(path: string, problem: string): never {
  throw new ServiceError('invalid_request', `${path}: ${problem}`);
}

function id(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0) fail(path, 'must be a non-empty string');
  if (value.length > MAX_ID_LENGTH) fail(path, `must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

/** A product id: a string, or a number (a platform's numeric ids; events accept both), compared as a string. */
function productId(value: unknown, path: string): string {
  return id(typeof value === 'number' && Number.isFinite(value) ? String(value) : value, path);
}

/** `limit` and `fields` of a feed request: the endpoint's body or one request of a batch. */
export function validateListShape(body: Record<string, unknown>): Pick<FeedRequestBody, 'limit' | 'fields'> {
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
  return { limit, fields: fields as string[] };
}

/** The optional `productId` (absent or null: none). */
export function optionalProductId(value: unknown, path = 'productId'): { productId?: string } {
  return value === undefined || value === null ? {} : { productId: productId(value, path) };
}

/** `excludeProducts`: at most MAX_EXCLUDED product ids (absent or null: none). */
function excludedProducts(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > MAX_EXCLUDED) fail('excludeProducts', `must be an array of at most ${MAX_EXCLUDED} product ids`);
  return value.map((item, i) => productId(item, `excludeProducts[${i}]`));
}

/** The body as an object with no JSON hazards (`__proto__` keys…). */
export function bodyObject(raw: unknown): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail('body', 'must be a JSON object');
  refuseJsonHazards(raw, 'invalid_request', '');
  return raw as Record<string, unknown>;
}

/** What a batch of feed requests shares: the feed request but its list's shape. */
export type FeedVisitor = Omit<FeedRequestBody, 'limit' | 'fields'>;

/** profileId, sourceId, then `shape` (the list's, if any), the page's productId, sessionId and excludeProducts. */
function visitorAndPage<T extends object>(body: Record<string, unknown>, shape: () => T): FeedVisitor & T {
  const profileId = id(body.profileId, 'profileId');
  const sourceId = id(body.sourceId, 'sourceId');
  const result: FeedVisitor & T = { profileId, sourceId, ...shape(), ...optionalProductId(body.productId) };
  if (body.sessionId !== undefined && body.sessionId !== null) result.sessionId = id(body.sessionId, 'sessionId');
  const excluded = excludedProducts(body.excludeProducts);
  if (excluded !== undefined) result.excludeProducts = excluded;
  return result;
}

/**
 * Checks a feed request; messages name the field (`limit: must be an integer between 1 and 100`).
 * `productId` and the ids of `excludeProducts` may be numbers too (a platform's numeric ids; events accept both), and
 * are compared as strings.
 * @example validateFeedRequest({ profileId: 'p', sourceId: 'web', limit: 4, fields: ['title'] })
 */
export function validateFeedRequest(raw: unknown): FeedRequestBody {
  const body = bodyObject(raw);
  return visitorAndPage(body, () => validateListShape(body));
}

/** A batch's shared part: the feed request's fields but `limit` and `fields`, checked in the same order. */
export function validateFeedVisitor(body: Record<string, unknown>): FeedVisitor {
  return visitorAndPage(body, () => ({}));
}
