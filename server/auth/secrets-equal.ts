import crypto from 'node:crypto';

// Compared as SHA-256 digests: timingSafeEqual needs equal lengths, and digesting first means neither the
// content nor the length of a configured key leaks through the comparison's timing. The default import is
// deliberate: tests observe `crypto.timingSafeEqual` being called.

/** Constant-time equality of two secrets of any lengths. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given, 'utf8').digest();
  const b = crypto.createHash('sha256').update(expected, 'utf8').digest();
  return crypto.timingSafeEqual(a, b);
}
