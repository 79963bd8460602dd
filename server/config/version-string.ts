// Version strings made comparable as plain strings, for the `$v…` condition operators.

const NUMERIC = /^[0-9]+$/;
const SEPARATORS = /[-.]/;

/**
 * A string whose lexical order is the version order, GrowthBook's `paddedVersionString`:
 * drop a leading `v` and any `+build`, split on `.` and `-`, left-pad numeric parts with spaces
 * (so " 9" < "10"), and end a release without pre-release with `~`, the largest printable ASCII
 * character, so 1.0.0 sorts after 1.0.0-beta. Anything that is not a string or number counts as "0".
 *
 * @example paddedVersionString('v1.2.3+b7') // '    1-    2-    3-~'
 */
/**
 * The text without a leading `v` and without its `+build`: what GrowthBook's `/(^v|\+.*$)/g` removes, in one pass.
 * That expression tries `.*$` from every `+`, quadratic in a visitor's attribute made of them. `.` stops at line
 * terminators, so the build starts at the first `+` of the last line.
 */
function withoutPrefixAndBuild(text: string): string {
  const start = text.startsWith('v') ? 1 : 0;
  const lastLine = Math.max(...['\n', '\r', '\u2028', '\u2029'].map((end) => text.lastIndexOf(end))) + 1;
  const plus = text.indexOf('+', Math.max(lastLine, start));
  return text.slice(start, plus < 0 ? text.length : plus);
}

export function paddedVersionString(input: unknown): string {
  const text =
    typeof input === 'number' ? String(input) : typeof input === 'string' && input !== '' ? input : '0';
  const parts = withoutPrefixAndBuild(text).split(SEPARATORS);
  if (parts.length === 3) parts.push('~');
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (NUMERIC.test(part)) parts[i] = part.padStart(5, ' ');
  }
  return parts.join('-');
}
