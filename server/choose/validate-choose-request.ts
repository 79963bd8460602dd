import type { ChooseRequestBody } from '../../wire/choose.js';
import { MAX_ID_LENGTH, type Attributes } from '../../wire/event.js';
import { keySegment } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { refuseJsonHazards } from '../http/json-hazards.js';
import { optionalProductId } from '../recommendations/validate-feed-request.js';

// Limits keep one request's cost bounded; a page asks for a handful of experiences, a server for a few dozen.
export const MAX_NAMES = 100;
export const MAX_URL_LENGTH = 2048;
export const MAX_FORCED = 100;

/** Identification form A: a profile of one of the project's sources. */
export interface ProfileIdentification {
  form: 'profile';
  sourceId: string;
  profileId: string;
}

/** Identification form B: a user id an earlier identify linked to a profile (apiKey callers only). */
export interface UserIdentification {
  form: 'user';
  userId: string;
}

/** A Choose body (the wire's ChooseRequestBody) that passed validation; nothing has been looked up yet. */
export type ValidChooseRequest = Omit<ChooseRequestBody, 'identification'> & {
  identification: ProfileIdentification | UserIdentification;
  /** Set by the route, never read from the body: what results break exposures down by (exposure-context.ts). */
  context?: string;
  /**
   * Set by the service, never read from the body: what repeats of the exposures are dropped within when the request has
   * no session (ExposureDedupe), so that a request made for every feed a person asks for exposes them once.
   */
  dedupeKey?: string;
  /**
   * Set by the OpenFeature routes, never read from the body: an evaluation context's own fields, which conditions read
   * on top of the stored attributes (withRequestFacts).
   */
  attributes?: Attributes;
};

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(path: string, problem: string): never {
  throw new ServiceError('invalid_request', `${path}: ${problem}`);
}

function id(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length === 0) invalid(path, 'must be a non-empty string');
  if (value.length > MAX_ID_LENGTH) invalid(path, `must be at most ${MAX_ID_LENGTH} characters`);
  return value;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

function identificationOf(raw: unknown): ProfileIdentification | UserIdentification {
  if (!present(raw)) invalid('identification', 'is required ({sourceId, profileId} or {userId})');
  let value = raw;
  // The spec's API description declares `identification` a JSON-formatted value, so a string holding the
  // object is accepted too; its examples send the object itself.
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value) as unknown;
    } catch {
      invalid('identification', 'must be an object or a JSON string of one');
    }
    refuseJsonHazards(value, 'invalid_request', 'identification');
  }
  if (!isObject(value)) invalid('identification', 'must be an object or a JSON string of one');
  const hasUser = present(value.userId);
  const hasProfile = present(value.sourceId) || present(value.profileId);
  if (hasUser && hasProfile) invalid('identification', 'use either {sourceId, profileId} or {userId}, not both');
  if (hasUser) return { form: 'user', userId: id(value.userId, 'identification.userId') };
  if (!hasProfile) invalid('identification', 'must be {sourceId, profileId} or {userId}');
  if (!present(value.sourceId)) invalid('identification.sourceId', 'is required with profileId');
  if (!present(value.profileId)) invalid('identification.profileId', 'is required with sourceId');
  return {
    form: 'profile',
    sourceId: id(value.sourceId, 'identification.sourceId'),
    profileId: id(value.profileId, 'identification.profileId'),
  };
}

function stringList(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) invalid(path, 'must be an array of strings');
  if (value.length > MAX_NAMES) invalid(path, `must have at most ${MAX_NAMES} items`);
  for (let i = 0; i < value.length; i++) id(value[i], `${path}[${i}]`);
  return value as string[];
}

function forceOf(value: unknown): Record<string, string> {
  if (!isObject(value)) invalid('force', 'must be an object of {experienceName: variationName}');
  const keys = Object.keys(value);
  if (keys.length > MAX_FORCED) invalid('force', `must have at most ${MAX_FORCED} keys`);
  for (const key of keys) id(value[key], `force${keySegment(key)}`);
  return value as Record<string, string>;
}

/**
 * Checks a Choose body and answers the typed request, or throws a 400 whose message
 * names the field. Unknown fields are ignored (a newer client may send more). Nothing is looked up here, so
 * bad input costs no database round trip and changes nothing.
 * @example const request = validateChooseRequest(req.body);
 */
export function validateChooseRequest(body: unknown): ValidChooseRequest {
  if (!isObject(body)) throw new ServiceError('invalid_request', 'The body must be a JSON object.');
  refuseJsonHazards(body, 'invalid_request', '');
  const request: ValidChooseRequest = { identification: identificationOf(body.identification) };
  if (present(body.names)) request.names = stringList(body.names, 'names');
  if (present(body.groups)) request.groups = stringList(body.groups, 'groups');
  if (request.names === undefined && request.groups === undefined) {
    throw new ServiceError('names_or_groups_required', "Send 'names' or 'groups' to choose experiences.");
  }
  if (present(body.device)) {
    if (body.device !== 'mobile' && body.device !== 'desktop') invalid('device', 'must be "mobile" or "desktop"');
    request.device = body.device;
  }
  if (present(body.sessionId)) request.sessionId = id(body.sessionId, 'sessionId');
  if (present(body.url)) {
    if (typeof body.url !== 'string') invalid('url', 'must be a string');
    if (body.url.length > MAX_URL_LENGTH) invalid('url', `must be at most ${MAX_URL_LENGTH} characters`);
    request.url = body.url;
  }
  if (present(body.force)) request.force = forceOf(body.force);
  if (present(body.deferExposure)) {
    if (typeof body.deferExposure !== 'boolean') invalid('deferExposure', 'must be true or false');
    if (body.deferExposure) request.deferExposure = true;
  }
  // Checked last, so every body the API answered before is refused with the same message; read as the feed endpoint
  // reads it (a string, or a platform's numeric id).
  const page = optionalProductId(body.productId);
  if (page.productId !== undefined) request.productId = page.productId;
  return request;
}
