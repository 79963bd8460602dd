// Input echoed in an error message is quoted, escaped and cut short: a message names what was wrong without
// letting a caller put arbitrary text (control characters, markup, megabytes) into answers and logs.

/** At most this many characters of an input are echoed. */
export const MAX_ECHO = 64;

/**
 * `value` as a JSON string literal of at most MAX_ECHO characters (then `…`).
 * @example quoted('we"b') // → '"we\\"b"'
 */
export function quoted(value: string, max = MAX_ECHO): string {
  if (value.length <= max) return JSON.stringify(value);
  // One fewer when the cut would leave half of a surrogate pair (an emoji) at the end.
  const last = value.charCodeAt(max - 1);
  return JSON.stringify(`${value.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)}…`);
}

const PLAIN_KEY = /^[A-Za-z_$][\w$-]*$/;

/**
 * A key as a segment of a field path: `.name` when plain, else `["quoted key"]`.
 * @example `force${keySegment('hero-banner')}` // → 'force.hero-banner'
 */
export function keySegment(key: string): string {
  return PLAIN_KEY.test(key) && key.length <= MAX_ECHO ? `.${key}` : `[${quoted(key)}]`;
}
