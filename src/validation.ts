// The SDK's validation rules and message texts; tests compare them verbatim.
// One shape for a field that is missing OR invalid: `'<field>' is required.`; the few extra
// cases listed below (empty data, attributes without a title, the consent action) have their own.

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

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Throws the spec's message when `params` is not a parameters object. */
export function requireParams(method: string, params: unknown): asserts params is Record<string, unknown> {
  if (!isPlainObject(params)) throw paramsRequired(method);
}

/** `<Method> parameters are invalid: '<field>' is required.` — for a field missing or invalid alike. */
export function fieldRequired(method: string, field: string): Error {
  return invalid(method, `'${field}' is required.`);
}

/** Throws `fieldRequired` unless `ok(value)`; `optional` lets an absent field pass. */
function check(method: string, params: Record<string, unknown>, field: string, ok: (v: unknown) => boolean, optional: boolean): void {
  const value = params[field];
  if (optional && value === undefined) return;
  if (!ok(value)) throw fieldRequired(method, field);
}

const isText = (v: unknown): boolean => typeof v === 'string' && v !== '';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A required, non-empty string field. */
export function requireString(method: string, params: Record<string, unknown>, field: string): void {
  check(method, params, field, isText, false);
}

/** `attributes` may only be sent with an explicit `eventTitle`. */
function requireTitleFor(method: string, params: Record<string, unknown>, attributes: string): void {
  if (params[attributes] !== undefined && (params.eventTitle === undefined || params.eventTitle === '')) {
    throw invalid(method, `set 'eventTitle' to use '${attributes}'.`);
  }
}

/** Throws when `title` is one of the SDK's own titles, compared case-insensitively. */
function forbidTitle(title: unknown): void {
  if (typeof title === 'string' && FORBIDDEN_TITLES.includes(title.trim().toLowerCase())) {
    throw new Error(`The '${title}' event title is forbidden`);
  }
}

/** `data` of `track`: a map, and not an empty one. */
function requireData(method: string, params: Record<string, unknown>): void {
  check(method, params, 'data', isPlainObject, false);
  if (Object.keys(params.data as object).length === 0) throw cantBeEmpty(method, 'data');
}

/** An optional positive quantity (products). */
export function optionalQuantity(method: string, params: Record<string, unknown>): void {
  check(method, params, 'quantity', (v) => isNumber(v) && v > 0, true);
}

/** An array of strings (`fields` of recommendation, `names`/`groups` of choose). */
export function requireStringArray(method: string, params: Record<string, unknown>, field: string, optional = false): void {
  check(method, params, field, (v) => Array.isArray(v) && v.every((x) => typeof x === 'string'), optional);
}

export function cantBeEmpty(method: string, field: string): Error {
  return invalid(method, `'${field}' can't be empty.`);
}

export function invalidParams(method: string, reason: string): Error {
  return invalid(method, reason);
}

/** One check of a method's parameters: throws the spec's message when it fails. */
type Check = (method: string, params: Record<string, unknown>) => void;

const required = (field: string): Check => (m, p) => check(m, p, field, isText, false);
const optional = (field: string): Check => (m, p) => check(m, p, field, (v) => typeof v === 'string', true);
const optionalMap = (field: string): Check => (m, p) => check(m, p, field, isPlainObject, true);
/** A required finite number (`validUntil`, recommendation `id` and `quantity`). */
const number = (field: string): Check => (m, p) => check(m, p, field, isNumber, false);
const titleFor = (attributes: string): Check => (m, p) => requireTitleFor(m, p, attributes);
const notForbidden: Check = (_m, p) => forbidTitle(p.eventTitle);

/**
 * Each tracking method's checks, in the order the spec reports them: the first that fails throws. Spec as data, so
 * that a method's rules read in one line and every method runs them the same way (`validateParams`).
 */
const CHECKS: Readonly<Record<string, readonly Check[]>> = {
  identify: [required('userId'), optional('eventTitle'), optionalMap('userAttributes'), optionalMap('data'), titleFor('userAttributes'), notForbidden],
  alias: [required('userId'), required('anotherUserId')],
  group: [required('accountId'), optional('eventTitle'), optionalMap('accountAttributes'), titleFor('accountAttributes'), notForbidden],
  track: [required('eventTitle'), requireData, notForbidden],
  record: [
    required('eventTitle'), optional('accountId'), optional('userId'), optionalMap('accountAttributes'), optionalMap('userAttributes'),
    optionalMap('data'), notForbidden,
  ],
  consent: [
    (_m, p) => {
      if (p.action !== 'accept' && p.action !== 'reject') throw invalid('consent', `action should be either "reject" or "accept".`);
    },
    number('validUntil'), optional('email'), optional('message'), optional('category'),
  ],
  productAdd: [required('productId'), optionalQuantity],
  recommendation: [number('id'), number('quantity'), (m, p) => requireStringArray(m, p, 'fields'), optional('productId')],
};

/**
 * Throws the spec's message for the first check of `method` that `params` fails.
 * @example validateParams('track', { eventTitle: 'Signed up', data: { plan: 'pro' } });
 */
export function validateParams(method: keyof typeof CHECKS & string, params: unknown): asserts params is Record<string, unknown> {
  requireParams(method, params);
  for (const check of CHECKS[method] ?? []) check(method, params);
}
