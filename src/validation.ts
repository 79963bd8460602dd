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

/** `<Method> parameters are invalid: '<field>' is required.` — for a field missing or invalid alike. */
function fieldRequired(method: string, field: string): Error {
  return invalid(method, `'${field}' is required.`);
}

function cantBeEmpty(method: string, field: string): Error {
  return invalid(method, `'${field}' can't be empty.`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A non-empty string. */
export const isText = (v: unknown): v is string => typeof v === 'string' && v !== '';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStringArray = (v: unknown): boolean => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** One check of a method's parameters: throws the spec's message when it fails. */
type Check = (method: string, params: Record<string, unknown>) => void;

/** `field` must pass `ok`; an `optional` one may be absent instead. */
const field = (name: string, ok: (v: unknown) => boolean, optional = false): Check => (method, params) => {
  const value = params[name];
  if (!(optional && value === undefined) && !ok(value)) throw fieldRequired(method, name);
};
/** A required, non-empty string field. */
const required = (name: string): Check => field(name, isText);
const optional = (name: string): Check => field(name, (v) => typeof v === 'string', true);
const optionalMap = (name: string): Check => field(name, isPlainObject, true);
/** A required finite number (`validUntil`, recommendation `id` and `quantity`). */
const number = (name: string): Check => field(name, isNumber);
/** An optional positive quantity (products). */
const quantity = field('quantity', (v) => isNumber(v) && v > 0, true);

/** `attributes` may only be sent with an explicit `eventTitle`. */
const titleFor = (attributes: string): Check => (method, params) => {
  if (params[attributes] !== undefined && (params.eventTitle === undefined || params.eventTitle === '')) {
    throw invalid(method, `set 'eventTitle' to use '${attributes}'.`);
  }
};

/** The title may not be one of the SDK's own titles, compared case-insensitively. */
const notForbidden: Check = (_method, { eventTitle }) => {
  if (typeof eventTitle === 'string' && FORBIDDEN_TITLES.includes(eventTitle.trim().toLowerCase())) {
    throw new Error(`The '${eventTitle}' event title is forbidden`);
  }
};

/** `data` of `track`: a map, and not an empty one. */
const data: Check = (method, params) => {
  field('data', isPlainObject)(method, params);
  if (Object.keys(params.data as object).length === 0) throw cantBeEmpty(method, 'data');
};

/**
 * Each method's checks, in the order the spec reports them: the first that fails throws. Spec as data, so that a
 * method's rules read in one line and every method runs them the same way (`validateParams`).
 */
const CHECKS = {
  identify: [required('userId'), optional('eventTitle'), optionalMap('userAttributes'), optionalMap('data'), titleFor('userAttributes'), notForbidden],
  alias: [required('userId'), required('anotherUserId')],
  group: [required('accountId'), optional('eventTitle'), optionalMap('accountAttributes'), titleFor('accountAttributes'), notForbidden],
  track: [required('eventTitle'), data, notForbidden],
  record: [
    required('eventTitle'), optional('accountId'), optional('userId'), optionalMap('accountAttributes'), optionalMap('userAttributes'),
    optionalMap('data'), notForbidden,
  ],
  consent: [
    (method, p) => {
      if (p.action !== 'accept' && p.action !== 'reject') throw invalid(method, `action should be either "reject" or "accept".`);
    },
    number('validUntil'), optional('email'), optional('message'), optional('category'),
  ],
  productAdd: [required('productId'), quantity, field('price', (v) => isNumber(v) && v >= 0, true), field('currency', (v) => /^[A-Z]{3}$/.test(v as string), true)],
  recommendation: [number('id'), number('quantity'), field('fields', isStringArray), optional('productId'), field('excludeProducts', isStringArray, true)],
  choose: [
    (method, p) => {
      if (p.names === undefined && p.groups === undefined) throw invalid(method, `'names' or 'groups' is required.`);
    },
    field('names', isStringArray, true), field('groups', isStringArray, true),
  ],
} satisfies Record<string, Check[]>;

/**
 * Throws the spec's message for the first check of `method` that `params` fails.
 * @example validateParams('track', { eventTitle: 'Signed up', data: { plan: 'pro' } });
 */
export function validateParams(method: keyof typeof CHECKS, params: unknown): asserts params is Record<string, unknown> {
  if (!isPlainObject(params)) throw paramsRequired(method);
  for (const check of CHECKS[method]) check(method, params);
}

/** `productOrdered`'s list: not empty, and each item a product as `productAdd` takes it. */
export function validateProducts(products: unknown): void {
  const method = 'productOrdered';
  if (!Array.isArray(products)) throw paramsRequired(method);
  if (products.length === 0) throw cantBeEmpty(method, 'products');
  for (const item of products as unknown[]) {
    if (!isPlainObject(item)) throw fieldRequired(method, 'productId');
    for (const check of CHECKS.productAdd) check(method, item);
  }
}
