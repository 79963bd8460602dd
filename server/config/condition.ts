// Targeting conditions: MongoDB-style rules over request and profile attributes, with GrowthBook's
// exact semantics (its published `evalCondition` cases pass unchanged).

import { paddedVersionString } from './version-string.js';

/** A targeting rule: keys are attribute paths (`account.plan`) or `$and`/`$or`/`$nor`/`$not`. */
export type Condition = Readonly<Record<string, unknown>>;

/**
 * Saved groups by id, for `$inGroup`/`$notInGroup`: a bare array of values (GrowthBook v1) or
 * `{type: 'list', values: [...]}` (v2). An unknown id is an empty group; a malformed entry matches
 * nobody, so `$notInGroup` cannot accidentally pass everyone.
 */
export type SavedGroups = Readonly<Record<string, unknown>>;

type Attributes = unknown;

const NO_GROUPS: SavedGroups = Object.freeze({});

/**
 * Whether `attributes` satisfy `condition`. Every top-level entry must hold.
 *
 * @example evalCondition({ plan: 'pro', age: 41 }, { plan: 'pro', age: { $gte: 18 } }) // true
 */
export function evalCondition(attributes: Attributes, condition: Condition, savedGroups: SavedGroups = NO_GROUPS): boolean {
  for (const key in condition) {
    const value = condition[key];
    switch (key) {
      case '$or':
        if (!evalOr(attributes, value, savedGroups)) return false;
        break;
      case '$nor':
        if (evalOr(attributes, value, savedGroups)) return false;
        break;
      case '$and':
        if (!evalAnd(attributes, value, savedGroups)) return false;
        break;
      case '$not':
        if (evalCondition(attributes, asCondition(value), savedGroups)) return false;
        break;
      default:
        if (!evalConditionValue(value, getPath(attributes, key), savedGroups, false)) return false;
    }
  }
  return true;
}

const EMPTY: Condition = Object.freeze({});

function asCondition(value: unknown): Condition {
  return typeof value === 'object' && value !== null ? (value as Condition) : EMPTY;
}

// A non-array `$or`/`$and` behaves like an empty one, as in GrowthBook (it reads `.length`).
function evalOr(attributes: Attributes, conditions: unknown, savedGroups: SavedGroups): boolean {
  if (!Array.isArray(conditions) || conditions.length === 0) return true;
  for (const c of conditions) if (evalCondition(attributes, asCondition(c), savedGroups)) return true;
  return false;
}

function evalAnd(attributes: Attributes, conditions: unknown, savedGroups: SavedGroups): boolean {
  if (!Array.isArray(conditions)) return true;
  for (const c of conditions) if (!evalCondition(attributes, asCondition(c), savedGroups)) return false;
  return true;
}

/** Value at a dot path; `null` (not undefined) when any step is missing, which `$exists` and `null` rely on. */
function getPath(obj: unknown, path: string): unknown {
  let current = obj;
  for (const part of path.split('.')) {
    // Own properties only: attribute objects come from callers, and `constructor` must not find Object's.
    if (current !== null && typeof current === 'object' && Object.hasOwn(current, part)) {
      current = (current as Record<string, unknown>)[part];
    } else {
      return null;
    }
  }
  return current;
}

/** An object whose keys all start with `$` is a set of operators; any other object is a literal. */
function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  let any = false;
  for (const key in value) {
    if (key.charCodeAt(0) !== 36 /* $ */) return false;
    any = true;
  }
  return any;
}

function evalConditionValue(condition: unknown, value: unknown, savedGroups: SavedGroups, insensitive: boolean): boolean {
  // Literals compare loosely on purpose (GrowthBook): "8" matches 8, and a string rule matches
  // the attribute's string form.
  if (typeof condition === 'string') {
    if (insensitive) return String(value).toLowerCase() === condition.toLowerCase();
    return String(value) === condition;
  }
  if (typeof condition === 'number') return Number(value) === condition;
  if (typeof condition === 'boolean') return value !== null && Boolean(value) === condition;
  if (condition === null) return value === null;
  if (!isOperatorObject(condition)) return JSON.stringify(value) === JSON.stringify(condition);
  for (const op in condition) {
    if (!evalOperator(op, value, condition[op], savedGroups)) return false;
  }
  return true;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const t = typeof value;
  return t === 'string' || t === 'number' || t === 'boolean' || t === 'object' || t === 'undefined' ? t : 'unknown';
}

// JavaScript's relational comparison (`<`, `<=`) for JSON values, written out so that `unknown`
// stays typed: objects become their string form, two strings compare by code unit, anything else
// compares as numbers (null → 0, missing → NaN → false). "Missing attribute with comparison
// operators" and "comparing numbers and strings" cases depend on exactly this.
function primitive(value: unknown): unknown {
  return typeof value === 'object' && value !== null ? String(value) : value;
}

function less(a: unknown, b: unknown, orEqual: boolean): boolean {
  const x = primitive(a);
  const y = primitive(b);
  if (typeof x === 'string' && typeof y === 'string') return orEqual ? x <= y : x < y;
  const nx = Number(x);
  const ny = Number(y);
  return orEqual ? nx <= ny : nx < ny;
}

function fold(value: unknown): unknown {
  return typeof value === 'string' ? value.toLowerCase() : value;
}

/** `actual` is in `expected`; an array attribute matches if any of its elements is. */
function isIn(actual: unknown, expected: readonly unknown[], insensitive: boolean): boolean {
  if (insensitive) {
    const has = (el: unknown): boolean => {
      const f = fold(el);
      for (const e of expected) if (fold(e) === f) return true;
      return false;
    };
    return Array.isArray(actual) ? actual.some(has) : has(actual);
  }
  if (Array.isArray(actual)) return actual.some((el) => expected.includes(el));
  return expected.includes(actual);
}

function isInAll(actual: unknown, expected: readonly unknown[], savedGroups: SavedGroups, insensitive: boolean): boolean {
  if (!Array.isArray(actual)) return false;
  for (const e of expected) {
    let found = false;
    for (const a of actual) {
      if (evalConditionValue(e, a, savedGroups, insensitive)) {
        found = true;
        break;
      }
    }
    if (!found) return false;
  }
  return true;
}

function elemMatch(actual: unknown, expected: unknown, savedGroups: SavedGroups): boolean {
  if (!Array.isArray(actual)) return false;
  const operators = isOperatorObject(expected);
  for (const el of actual) {
    // Only nullish elements are skipped: 0, "" and false are real members.
    if (el === null || el === undefined) continue;
    const hit = operators
      ? evalConditionValue(expected, el, savedGroups, false)
      : evalCondition(el, asCondition(expected), savedGroups);
    if (hit) return true;
  }
  return false;
}

/** Values of a saved group; `[]` for an unknown id, `null` for a malformed entry (matches nobody). */
function groupValues(savedGroups: SavedGroups, id: unknown): readonly unknown[] | null {
  const key = String(id);
  if (!Object.hasOwn(savedGroups, key)) return [];
  const entry = savedGroups[key];
  if (entry === undefined) return [];
  if (Array.isArray(entry)) return entry;
  if (entry !== null && typeof entry === 'object') {
    const list = entry as { type?: unknown; values?: unknown };
    if (list.type === 'list') return Array.isArray(list.values) ? list.values : null;
  }
  return null;
}

/** The pattern compiled; null when it is not a string or not a valid pattern. */
function regex(pattern: unknown, insensitive: boolean): RegExp | null {
  if (typeof pattern !== 'string') return null;
  try {
    return new RegExp(pattern, insensitive ? 'i' : undefined);
  } catch {
    return null;
  }
}

function evalOperator(op: string, actual: unknown, expected: unknown, savedGroups: SavedGroups): boolean {
  switch (op) {
    case '$veq':
      return paddedVersionString(actual) === paddedVersionString(expected);
    case '$vne':
      return paddedVersionString(actual) !== paddedVersionString(expected);
    case '$vgt':
      return paddedVersionString(actual) > paddedVersionString(expected);
    case '$vgte':
      return paddedVersionString(actual) >= paddedVersionString(expected);
    case '$vlt':
      return paddedVersionString(actual) < paddedVersionString(expected);
    case '$vlte':
      return paddedVersionString(actual) <= paddedVersionString(expected);
    case '$eq':
      return actual === expected;
    case '$ne':
      return actual !== expected;
    case '$lt':
      return less(actual, expected, false);
    case '$lte':
      return less(actual, expected, true);
    case '$gt':
      return less(expected, actual, false);
    case '$gte':
      return less(expected, actual, true);
    case '$exists':
      // Missing paths read as null, so "exists" means neither null nor undefined.
      return expected ? actual !== null && actual !== undefined : actual === null || actual === undefined;
    case '$in':
      return Array.isArray(expected) && isIn(actual, expected, false);
    case '$ini':
      return Array.isArray(expected) && isIn(actual, expected, true);
    case '$nin':
      return Array.isArray(expected) && !isIn(actual, expected, false);
    case '$nini':
      return Array.isArray(expected) && !isIn(actual, expected, true);
    case '$inGroup': {
      const values = groupValues(savedGroups, expected);
      return values !== null && isIn(actual, values, false);
    }
    case '$notInGroup': {
      const values = groupValues(savedGroups, expected);
      return values !== null && !isIn(actual, values, false);
    }
    case '$not':
      return !evalConditionValue(expected, actual, savedGroups, false);
    case '$size':
      return Array.isArray(actual) && evalConditionValue(expected, actual.length, savedGroups, false);
    case '$elemMatch':
      return elemMatch(actual, expected, savedGroups);
    case '$all':
      return Array.isArray(expected) && isInAll(actual, expected, savedGroups, false);
    case '$alli':
      return Array.isArray(expected) && isInAll(actual, expected, savedGroups, true);
    case '$regex':
    case '$regexi': {
      const re = regex(expected, op === '$regexi');
      return re !== null && re.test(String(actual));
    }
    case '$type':
      return typeName(actual) === expected;
    default:
      // An operator this engine does not know fails closed: better to target nobody than everybody.
      return false;
  }
}
