import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';

// What people's routes read from requests: an email (compared lower-cased), and a JSON object body.

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]+$/;
const MAX_EMAIL = 254;

export function invalid(field: string, problem: string): never {
  throw new ServiceError('invalid_request', `${field}: ${problem}`);
}

export function bodyOf(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) invalid('body', 'must be a JSON object');
  return body as Record<string, unknown>;
}

/** The email as stored: trimmed and lower-cased. @throws ServiceError `invalid_request`. */
export function emailOf(raw: unknown): string {
  if (typeof raw !== 'string') invalid('email', 'must be an email address');
  const email = raw.trim().toLowerCase();
  if (email.length > MAX_EMAIL || !EMAIL.test(email)) invalid('email', `${quoted(raw)} is not an email address`);
  return email;
}
