import crypto from 'node:crypto';
import { promisify } from 'node:util';
import { ServiceError } from '../errors/service-error.js';

// Passwords are hashed with scrypt (Node's own, no native module to build): N = 2^15, r = 8, p = 3 is one of OWASP's
// equivalent settings for scrypt (about 32 MiB and a few tens of milliseconds a hash here). The parameters travel in
// the stored string, so a later change of them still verifies the hashes made before it.

// crypto.scrypt is looked up at each call, not kept: the tests count the hashes an unknown email costs.
const scrypt = (password: string, salt: Buffer, keylen: number, options: crypto.ScryptOptions): Promise<Buffer> =>
  (promisify(crypto.scrypt) as (p: string, s: Buffer, k: number, o: crypto.ScryptOptions) => Promise<Buffer>)(password, salt, keylen, options);

const PARAMS = { N: 2 ** 15, r: 8, p: 3 };
const KEY_LENGTH = 32;
/** scrypt needs 128 · N · r bytes; Node's default cap (32 MiB) is just under that for these parameters. */
const maxmem = (N: number, r: number): number => 128 * N * r + 1024 * 1024;

export const PASSWORD_LENGTH = { min: 12, max: 128 };

// Passwords long enough for the rule and still among the first any guesser tries (public lists of leaked passwords),
// compared lower-cased. A short list, not a breach corpus: the length rule already rules out most of such lists.
const COMMON = new Set([
  '123456789012', '1234567890123', '12345678901234', '123456123456', '123412341234', 'password1234', 'password12345',
  'password123456', 'passwordpassword', 'qwertyuiop12', 'qwertyuiopas', 'qwertyuiopasdfgh', 'qwerty123456',
  '1q2w3e4r5t6y', '1qaz2wsx3edc', '1qazxsw23edc', 'zaq12wsxcde3', 'qazwsxedcrfv', 'abcdefghijkl', 'abc123abc123',
  'iloveyou1234', 'letmein12345', 'welcome12345', 'changeme1234', 'administrator', 'trustno1trustno1',
]);

/**
 * A new password's check: 12 to 128 characters, any characters (spaces, emoji), not one character repeated, not one
 * of the commonest passwords, not the person's email. No composition rules: length is what resists guessing, and
 * rules push people to predictable patterns.
 * @throws ServiceError `invalid_request`.
 */
export function checkNewPassword(value: unknown, email?: string): string {
  const chars = typeof value === 'string' ? [...value] : [];
  if (typeof value !== 'string' || chars.length < PASSWORD_LENGTH.min || chars.length > PASSWORD_LENGTH.max) {
    throw new ServiceError('invalid_request', `password: must be ${PASSWORD_LENGTH.min} to ${PASSWORD_LENGTH.max} characters`);
  }
  const lower = value.toLowerCase();
  if (new Set(chars).size === 1 || COMMON.has(lower) || (email !== undefined && lower === email.toLowerCase())) {
    throw new ServiceError('invalid_request', 'password: is among the first any attacker tries; choose another');
  }
  return value;
}

/** `scrypt$<N>$<r>$<p>$<salt b64url>$<hash b64url>` of the password with a fresh salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.randomBytes(16);
  const { N, r, p } = PARAMS;
  const hash = await scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N, r, p, maxmem: maxmem(N, r) });
  return ['scrypt', N, r, p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

/** A hash of no one's password: verified against when the email is unknown, so both cases take the same time. */
let decoy: Promise<string> | undefined;

/**
 * Whether `password` is the one `stored` was made from (compared in constant time). With `stored` null (no such person,
 * or no password set) it hashes anyway and answers false: an unknown email takes as long as a wrong password.
 */
export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  const against = stored ?? await (decoy ??= hashPassword(crypto.randomBytes(16).toString('hex')));
  const [scheme, n, r, p, salt, hash] = against.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const actual = await scrypt(password.normalize('NFKC'), Buffer.from(salt, 'base64url'), expected.length, { ...params, maxmem: maxmem(params.N, params.r) });
  return crypto.timingSafeEqual(actual, expected) && stored !== null;
}
