import type { Attributes } from '../../wire/event.js';
import { MAX_ID_LENGTH } from '../../wire/event.js';
import type { Device } from '../config/config-types.js';
import { findJsonHazard } from '../http/json-hazards.js';
import { ServiceError } from '../errors/service-error.js';
import { MAX_URL_LENGTH } from '../choose/validate-choose-request.js';
import { optionalProductId } from '../recommendations/validate-feed-request.js';
import { OfrepError } from './ofrep-error.js';

/** A context names at most this many fields: a person's attributes, not a payload. */
export const MAX_CONTEXT_FIELDS = 100;

/** The context's fields that are the Choose API's own; every other field is a targeting attribute. */
const CHOOSE_FIELDS = new Set(['targetingKey', 'sourceId', 'sessionId', 'device', 'url', 'productId']);

/** An evaluation request that passed validation; nothing has been looked up yet. */
export interface EvaluationInput {
  /** Null when the context names nobody: every flag that targets is then `TARGETING_KEY_MISSING`. */
  targetingKey: string | null;
  sourceId?: string;
  sessionId?: string;
  device?: Device;
  url?: string;
  productId?: string;
  /** The context's other fields, for conditions; absent when there are none. */
  attributes?: Attributes;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(field: string, problem: string): never {
  throw new OfrepError('INVALID_CONTEXT', `context.${field}: ${problem}`);
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function id(context: Json, field: string): string | undefined {
  const value = context[field];
  if (!present(value)) return undefined;
  if (typeof value !== 'string' || value.length === 0) invalid(field, 'must be a non-empty string');
  if (value.length > MAX_ID_LENGTH) invalid(field, `must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

function targetingKeyOf(value: unknown): string | null {
  // OpenFeature leaves the key unset, or empty, when the application knows nobody yet.
  if (!present(value) || value === '') return null;
  if (typeof value !== 'string') invalid('targetingKey', 'must be a string');
  if (value.length > MAX_ID_LENGTH) invalid('targetingKey', `must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

/**
 * Checks an OFREP evaluation body, `{context}`, and answers what it asks; throws OfrepError: `PARSE_ERROR` for a body
 * that is not a JSON object, `INVALID_CONTEXT` naming the field for a context that breaks its shape. A missing
 * `targetingKey` is not refused here: a disabled flag needs none (see EvaluationInput.targetingKey). Nothing is looked
 * up, so bad input costs no database round trip and changes nothing.
 * @example const input = validateEvaluationRequest({ context: { targetingKey: 'p-1', plan: 'pro' } });
 */
export function validateEvaluationRequest(body: unknown): EvaluationInput {
  if (!isObject(body)) throw new OfrepError('PARSE_ERROR', 'The body must be a JSON object: {"context": {"targetingKey": …}}.');
  const hazard = findJsonHazard(body, '');
  if (hazard !== null) throw new OfrepError('INVALID_CONTEXT', `${hazard.path}: ${hazard.problem}`);
  const raw = body.context ?? {};
  if (!isObject(raw)) throw new OfrepError('INVALID_CONTEXT', 'context: must be an object');
  const fields = Object.keys(raw);
  if (fields.length > MAX_CONTEXT_FIELDS) throw new OfrepError('INVALID_CONTEXT', `context: must have at most ${MAX_CONTEXT_FIELDS} fields`);
  const input: EvaluationInput = { targetingKey: targetingKeyOf(raw.targetingKey) };
  const sourceId = id(raw, 'sourceId');
  if (sourceId !== undefined) input.sourceId = sourceId;
  const sessionId = id(raw, 'sessionId');
  if (sessionId !== undefined) input.sessionId = sessionId;
  if (present(raw.device)) {
    if (raw.device !== 'mobile' && raw.device !== 'desktop') invalid('device', 'must be "mobile" or "desktop"');
    input.device = raw.device;
  }
  if (present(raw.url)) {
    if (typeof raw.url !== 'string') invalid('url', 'must be a string');
    if (raw.url.length > MAX_URL_LENGTH) invalid('url', `must be at most ${MAX_URL_LENGTH} characters`);
    input.url = raw.url;
  }
  const productId = contextProductId(raw.productId);
  if (productId !== undefined) input.productId = productId;
  const attributes = fields.filter((field) => !CHOOSE_FIELDS.has(field));
  if (attributes.length > 0) input.attributes = Object.fromEntries(attributes.map((field) => [field, raw[field]]));
  return input;
}

/** The product the page is about, read as the Choose API reads its `productId` (a string, or a numeric id). */
function contextProductId(value: unknown): string | undefined {
  try {
    return optionalProductId(value, 'context.productId').productId;
  } catch (error) {
    if (error instanceof ServiceError) throw new OfrepError('INVALID_CONTEXT', error.message);
    throw error;
  }
}
