import { MAX_ID_LENGTH } from '../../wire/event.js';
import { ServiceError } from '../errors/service-error.js';
import { isoTime } from '../http/iso-time.js';
import { refuseJsonHazards } from '../http/json-hazards.js';
import { normalEmail } from '../privacy/email-address.js';
import type { ValidConsent } from './consent-store.js';

const MAX_EMAIL = 320;
const MAX_MESSAGE = 1024;
const MAX_CATEGORIES = 64;
const MAX_VERSION = 64;
const MAX_PAGE = 2048;
/** `banner`, `api`, `gpc`, `tcf`, or another short name a platform uses for how the visitor decided. */
const SOURCE = /^[a-z][a-z0-9_-]{0,31}$/;
/**
 * The latest time a JavaScript Date can hold (epoch milliseconds): stored in a BIGINT column, so whole numbers only.
 */
const MAX_EPOCH_MS = 8.64e15;

type Json = Record<string, unknown>;

function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_consent', `${field}: ${problem}`);
}

function isEpochMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_EPOCH_MS;
}

function optionalText(body: Json, field: string, max: number): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length === 0) invalid(field, 'must be a non-empty string');
  if (value.length > max) invalid(field, `must be at most ${max} characters`);
  return value;
}

function optionalCategories(value: unknown): Record<string, boolean> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) invalid('categories', 'must be an object of category names to true or false');
  const entries = Object.entries(value);
  if (entries.length === 0) invalid('categories', 'must name at least one category');
  if (entries.length > MAX_CATEGORIES) invalid('categories', `must name at most ${MAX_CATEGORIES} categories`);
  for (const [name, accepted] of entries) {
    if (name.length === 0 || name.length > MAX_ID_LENGTH) invalid('categories', `names must be 1 to ${MAX_ID_LENGTH} characters`);
    if (typeof accepted !== 'boolean') invalid(`categories.${name}`, 'must be true or false');
  }
  return Object.fromEntries(entries) as Record<string, boolean>;
}

/**
 * Checks a consent record `{profileId, action, validUntil, sourceId?, category? | categories?, email?, message?,
 * eventId?, timestamp?, source?, version?, page?}` (the last three: how the visitor decided, the version of what they
 * were shown, the page); `timestamp` may be epoch milliseconds or ISO 8601. `categories` (`{name: boolean}`)
 * is a whole decision, e.g. a banner's, stored as a record per category.
 * @throws ServiceError `invalid_consent` naming the field.
 */
export function validateConsent(body: unknown): ValidConsent {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ServiceError('invalid_consent', 'The body must be a consent record object.');
  }
  refuseJsonHazards(body, 'invalid_consent', '');
  const b = body as Json;
  const profileId = optionalText(b, 'profileId', MAX_ID_LENGTH);
  if (profileId === undefined) invalid('profileId', 'is required');
  if (b.action !== 'accept' && b.action !== 'reject') invalid('action', 'must be "accept" or "reject"');
  if (!isEpochMs(b.validUntil) || b.validUntil === 0) invalid('validUntil', 'must be a timestamp in milliseconds');
  let timestamp: number | undefined;
  if (isEpochMs(b.timestamp)) timestamp = b.timestamp;
  else if (b.timestamp !== undefined && b.timestamp !== null) {
    const iso = isoTime(b.timestamp);
    if (!isEpochMs(iso)) invalid('timestamp', 'must be epoch milliseconds or ISO 8601');
    timestamp = iso;
  }
  const record: ValidConsent = { profileId, action: b.action, validUntil: b.validUntil };
  const sourceId = optionalText(b, 'sourceId', MAX_ID_LENGTH);
  const category = optionalText(b, 'category', MAX_ID_LENGTH);
  const email = optionalText(b, 'email', MAX_EMAIL);
  const message = optionalText(b, 'message', MAX_MESSAGE);
  const eventId = optionalText(b, 'eventId', MAX_ID_LENGTH);
  const categories = optionalCategories(b.categories);
  if (categories !== undefined) {
    if (category !== undefined) invalid('categories', 'cannot be sent together with category');
    record.categories = categories;
  }
  if (sourceId !== undefined) record.sourceId = sourceId;
  if (category !== undefined) record.category = category;
  if (email !== undefined) {
    // One address however it was typed: erasure and the suppression list look it up so (email-address.ts).
    record.email = normalEmail(email);
    if (record.email === '') invalid('email', 'must be a non-empty string');
  }
  if (message !== undefined) record.message = message;
  if (eventId !== undefined) record.eventId = eventId;
  if (timestamp !== undefined) record.timestamp = timestamp;
  const source = optionalText(b, 'source', 32);
  if (source !== undefined) {
    if (!SOURCE.test(source)) invalid('source', 'must be how the visitor decided: "banner", "api", "gpc", "tcf" (lower-case letters, digits, - and _)');
    record.source = source;
  }
  const version = optionalText(b, 'version', MAX_VERSION);
  if (version !== undefined) record.version = version;
  const page = optionalText(b, 'page', MAX_PAGE);
  if (page !== undefined) record.page = page;
  return record;
}
