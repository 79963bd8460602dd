import crypto from 'node:crypto';

/** An If-None-Match header is read only this far: a client's list of a few tags, not a payload to scan. */
const MAX_IF_NONE_MATCH = 1024;

/**
 * The strong entity tag of an answer's JSON text: its SHA-256, cut to 128 bits (quoted, as HTTP writes tags). Two
 * answers with the same text have the same tag on every node, whatever produced them.
 * @example entityTag('{"flags":[]}') // '"3b9…"'
 */
export function entityTag(json: string): string {
  return `"${crypto.createHash('sha256').update(json, 'utf8').digest('hex').slice(0, 32)}"`;
}

/**
 * Whether `If-None-Match` names `tag` (RFC 9110 §13.1.2: the weak comparison, so `W/"…"` matches too, and `*`
 * matches any current answer): the client's copy is current and the answer is 304 without a body.
 * @example notModified('W/"abc", "def"', '"abc"') // true
 */
export function notModified(header: string | string[] | undefined, tag: string): boolean {
  if (typeof header !== 'string' || header.length > MAX_IF_NONE_MATCH) return false;
  return header.split(',').some((item) => {
    const candidate = item.trim();
    return candidate === '*' || (candidate.startsWith('W/') ? candidate.slice(2) : candidate) === tag;
  });
}
