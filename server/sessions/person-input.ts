import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';

// What people's routes read from requests: an email (compared lower-cased), and a JSON object body.

// local@domain, the domain holding a dot with something on each side. Written so that no two quantifiers can take
// the same characters (the domain's first dot after its first character ends the middle part): one pass.
const EMAIL = /^[^\s@]{1,64}@[^\s@][^\s@.]*\.[^\s@]+$/;
const MAX_EMAIL = 254;

export function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

export function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) invalid('body', 'must be a JSON object');
  return body as Record<string, unknown>;
}

/** The email as stored (trimmed and lower-cased), or null when `raw` is not one: for input that is not a request's. */
export function validEmail(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const email = raw.trim().toLowerCase();
  // The length first: the expression then never runs over more than a short string.
  return email.length <= MAX_EMAIL && EMAIL.test(email) ? email : null;
}

/** The email as stored: trimmed and lower-cased. @throws ServiceError `invalid_request`. */
export function emailOf(raw: unknown): string {
  if (typeof raw !== 'string') invalid('email', 'must be an email address');
  return validEmail(raw) ?? invalid('email', `${quoted(raw)} is not an email address`);
}
