import type { ErrorCode } from '../errors/error-codes.js';
import { keySegment } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';

// What parses as JSON and still breaks something further on, refused before any of it is used or stored:
// - U+0000 in a string: PostgreSQL's text and jsonb refuse it (error 22021), SQLite would keep it; one rule for both.
// - a lone surrogate (ill-formed UTF-16): stored as UTF-8 it becomes U+FFFD, so an id read back no longer matches
//   the one that was written.
// - nesting deeper than MAX_JSON_DEPTH: JSON.parse copes, but JSON.stringify (used to store maps) recurses and
//   overflows the stack a few thousand levels down.
// - a `__proto__` key, or a `constructor` holding a `prototype`: what Fastify's own JSON parser refuses in
//   application/json bodies, refused in text/plain ones too.
// Keys are checked like values: they are stored too (attribute names).

/** Objects and arrays nest at most this deep in a request body; the SDK's deepest is 4 (batch, event, data, value). */
export const MAX_JSON_DEPTH = 32;

/** A hazard and where it is: `batch[3].data.note`. */
export interface JsonHazard {
  path: string;
  problem: string;
}

const isWellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

function textProblem(text: string): string | null {
  if (text.includes('\u0000')) return 'must not contain U+0000';
  if (!isWellFormed(text)) return 'must be well-formed Unicode (it holds a lone surrogate)';
  return null;
}

function keyProblem(key: string, value: unknown): string | null {
  if (key === '__proto__') return 'is not an allowed key';
  if (key === 'constructor' && typeof value === 'object' && value !== null && Object.hasOwn(value, 'prototype')) {
    return 'must not hold a "prototype" key';
  }
  const problem = textProblem(key);
  return problem === null ? null : `key ${problem}`;
}

/** A hazard found below the root: the path's segments from the hazard up (reversed once, when it is reported). */
interface Found {
  segments: string[];
  problem: string;
}

function walk(value: unknown, depth: number): Found | null {
  if (typeof value === 'string') {
    const problem = textProblem(value);
    return problem === null ? null : { segments: [], problem };
  }
  if (typeof value !== 'object' || value === null) return null;
  if (depth >= MAX_JSON_DEPTH) return { segments: [], problem: `must not nest deeper than ${MAX_JSON_DEPTH} levels` };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = walk(value[i], depth + 1);
      if (found) {
        found.segments.push(`[${i}]`);
        return found;
      }
    }
    return null;
  }
  for (const key of Object.keys(value)) {
    const problem = keyProblem(key, (value as Record<string, unknown>)[key]);
    if (problem !== null) return { segments: [keySegment(key)], problem };
    const found = walk((value as Record<string, unknown>)[key], depth + 1);
    if (found) {
      found.segments.push(keySegment(key));
      return found;
    }
  }
  return null;
}

/**
 * The first hazard in a parsed request body, or null. `root` names the value in the path (`batch`, `products`;
 * '' for a whole body, whose fields are then named bare: `identification.profileId`).
 * @example findJsonHazard({ profileId: 'a\u0000' }, '') // → { path: 'profileId', problem: 'must not contain U+0000' }
 */
export function findJsonHazard(value: unknown, root: string): JsonHazard | null {
  const found = walk(value, 0);
  if (found === null) return null;
  let path = root + found.segments.reverse().join('');
  if (root === '' && path.startsWith('.')) path = path.slice(1);
  return { path: path === '' ? 'body' : path, problem: found.problem };
}

/**
 * Throws `code` (the endpoint's own 400 code) naming the first hazard in `value`; passes clean values through.
 * @example refuseJsonHazards(body.batch, 'invalid_event', 'batch');
 */
export function refuseJsonHazards(value: unknown, code: ErrorCode, root: string): void {
  const hazard = findJsonHazard(value, root);
  if (hazard !== null) throw new ServiceError(code, `${hazard.path}: ${hazard.problem}`);
}
