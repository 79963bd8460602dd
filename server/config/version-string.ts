// Version strings made comparable as plain strings, for the `$v…` condition operators.

const NUMERIC = /^[0-9]+$/;
const PREFIX_AND_BUILD = /(^v|\+.*$)/g;
const SEPARATORS = /[-.]/;

/**
 * A string whose lexical order is the version order, GrowthBook's `paddedVersionString`:
 * drop a leading `v` and any `+build`, split on `.` and `-`, left-pad numeric parts with spaces
 * (so " 9" < "10"), and end a release without pre-release with `~`, the largest printable ASCII
 * character, so 1.0.0 sorts after 1.0.0-beta. Anything that is not a string or number counts as "0".
 *
 * @example paddedVersionString('v1.2.3+b7') // '    1-    2-    3-~'
 */
export function paddedVersionString(input: unknown): string {
  const text =
    typeof input === 'number' ? String(input) : typeof input === 'string' && input !== '' ? input : '0';
  const parts = text.replace(PREFIX_AND_BUILD, '').split(SEPARATORS);
  if (parts.length === 3) parts.push('~');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (NUMERIC.test(part)) parts[i] = part.padStart(5, ' ');
  }
  return parts.join('-');
}
