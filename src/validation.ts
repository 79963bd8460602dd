// The spec's validation rules and message texts (spec 4.4 and 7.2, DESIGN 3.2); tests compare them verbatim.

/** Titles the SDK's own trackers use; callers may not reuse them, whatever their case. */
export const FORBIDDEN_TITLES: readonly string[] = [
  'auto-track', 'view page', 'leave page', 'change on', 'click on', 'submit on', 'identify', 'consent',
];

export function paramsRequired(method: string): Error {
  return new Error(`Parameters for the '${method}' method are required.`);
}

function invalid(method: string, reason: string): Error {
  return new Error(`${method.charAt(0).toUpperCase()}${method.slice(1)} parameters are invalid: ${reason}`);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Throws the spec's message when `params` is not a parameters object. */
export function requireParams(method: string, params: unknown): asserts params is Record<string, unknown> {
  if (!isPlainObject(params)) throw paramsRequired(method);
}

/** A required, non-empty string field. */
export function requireString(method: string, params: Record<string, unknown>, field: string): void {
  const value = params[field];
  if (value === undefined || value === null || value === '') throw invalid(method, `'${field}' is required.`);
  if (typeof value !== 'string') throw invalid(method, `'${field}' must be a string.`);
}

/** An optional string field: absent is fine, present must be a string. */
export function optionalString(method: string, params: Record<string, unknown>, field: string): void {
  const value = params[field];
  if (value !== undefined && typeof value !== 'string') throw invalid(method, `'${field}' must be a string.`);
}

/** An optional key/value map. */
export function optionalObject(method: string, params: Record<string, unknown>, field: string): void {
  const value = params[field];
  if (value !== undefined && !isPlainObject(value)) throw invalid(method, `'${field}' must be an object.`);
}

/** `attributes` may only be sent with an explicit `eventTitle` (spec 4.4). */
export function requireTitleFor(method: string, params: Record<string, unknown>, attributes: string): void {
  if (params[attributes] !== undefined && (params.eventTitle === undefined || params.eventTitle === '')) {
    throw invalid(method, `set 'eventTitle' to use '${attributes}'.`);
  }
}

/** Throws when `title` is one of the SDK's own titles, compared case-insensitively. */
export function forbidTitle(title: unknown): void {
  if (typeof title === 'string' && FORBIDDEN_TITLES.includes(title.trim().toLowerCase())) {
    throw new Error(`The '${title}' event title is forbidden`);
  }
}

/** `data` of `track`: present, an object, not empty. */
export function requireData(method: string, params: Record<string, unknown>): void {
  const data = params.data;
  if (data === undefined || data === null) throw invalid(method, `'data' is required.`);
  if (!isPlainObject(data)) throw invalid(method, `'data' must be an object.`);
  if (Object.keys(data).length === 0) throw invalid(method, `'data' can't be empty.`);
}

export function requireConsentAction(params: Record<string, unknown>): void {
  if (params.action !== 'accept' && params.action !== 'reject') {
    throw invalid('consent', `action should be either "reject" or "accept".`);
  }
}

export function requireTimestamp(method: string, params: Record<string, unknown>, field: string): void {
  const value = params[field];
  if (value === undefined || value === null || value === '') throw invalid(method, `'${field}' is required.`);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(method, `'${field}' must be a timestamp.`);
}

/** A required number field (`id`, `quantity` of recommendation). */
export function requireNumber(method: string, params: Record<string, unknown>, field: string): void {
  const value = params[field];
  if (value === undefined || value === null || value === '') throw invalid(method, `'${field}' is required.`);
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(method, `'${field}' must be a number.`);
}

/** An optional positive quantity (products). */
export function optionalQuantity(method: string, params: Record<string, unknown>): void {
  const q = params.quantity;
  if (q !== undefined && (typeof q !== 'number' || !Number.isFinite(q) || q <= 0)) {
    throw invalid(method, `'quantity' must be a positive number.`);
  }
}

/** A required array of strings (`fields` of recommendation). */
export function requireStringArray(method: string, params: Record<string, unknown>, field: string): void {
  const value = params[field];
  if (value === undefined || value === null) throw invalid(method, `'${field}' is required.`);
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw invalid(method, `'${field}' must be an array of strings.`);
  }
}

export function cantBeEmpty(method: string, field: string): Error {
  return invalid(method, `'${field}' can't be empty.`);
}

export function invalidParams(method: string, reason: string): Error {
  return invalid(method, reason);
}
