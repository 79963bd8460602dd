import { MAX_ID_LENGTH } from '../../wire/event.js';
import { FEED_STRATEGIES } from '../../wire/feed-preview.js';
import { fail, finiteNumber, isObject, requireArray, requireObject, requireString, type Json } from './config-json.js';

// A feed's merchandising settings (docs/merchandising-rules.md): `limit`, `dedupe`, `rules`, `exclude`, `purchasedDays`
// and `fallback`. Each check throws at the first problem with its path (`feeds[0].rules[2].filter.price.gte: must be a
// number`), the way every other part of the config is validated; the project-wide check of fallbacks that name other
// feeds (they exist, and no feed falls back on itself through others) is checkFeedFills.

/** The most products a feed answers (the feed endpoint's own bound on `limit`). */
export const MAX_FEED_PRODUCTS = 100;
/** Bounds that keep a feed's rules cheap to apply on every request. */
const MAX_RULES = 50;
const MAX_CONDITIONS = 20;
const MAX_LIST = 1000;
const MAX_FALLBACKS = 10;
const MAX_FACTOR = 100;
const MAX_PURCHASED_DAYS = 3650;
const MAX_FIELD_LENGTH = 64;

export { FEED_STRATEGIES };
/** Fallback strategies beyond the feed strategies: popular in the category of the product the page is about. */
const FALLBACK_STRATEGIES: readonly string[] = [...FEED_STRATEGIES, 'popular-in-category'];
export const EXCLUSIONS = ['in-cart', 'purchased', 'viewed'] as const;

type Kind = 'string' | 'strings' | 'number' | 'boolean' | 'any';
/** The catalog fields the service knows the type of; any other name is a free field, compared as it is stored. */
const FIELD_KINDS: Record<string, Kind> = {
  id: 'string', title: 'string', category: 'string', brand: 'string', currency: 'string', url: 'string', image: 'string',
  tags: 'strings', price: 'number', inventory: 'number', available: 'boolean',
};
const OPERATORS = ['eq', 'in', 'gte', 'lte', 'same'];
const RULE_FIELDS: Record<string, readonly string[]> = {
  pin: ['pin', 'position'], filter: ['filter'], boost: ['boost', 'factor'], bury: ['bury', 'factor'],
};

const kindOf = (field: string): Kind => (Object.hasOwn(FIELD_KINDS, field) ? FIELD_KINDS[field]! : 'any');

/** A plain value a condition compares with, of the field's type (a tag for `tags`). */
function value(raw: unknown, kind: Kind, path: string): void {
  const ok = kind === 'any'
    ? typeof raw === 'string' || typeof raw === 'boolean' || (typeof raw === 'number' && Number.isFinite(raw))
    : kind === 'number' ? typeof raw === 'number' && Number.isFinite(raw)
    : kind === 'boolean' ? typeof raw === 'boolean'
    : typeof raw === 'string';
  if (!ok) {
    const what = kind === 'any' ? 'a string, a number or a boolean' : kind === 'strings' ? 'a string (a tag)' : `a ${kind}`;
    fail(path, `must be ${what}`);
  }
}

/** `gte`/`lte`: a number, or `{same: factor}` (the page product's field times factor). */
function bound(raw: unknown, path: string): number | undefined {
  if (isObject(raw)) {
    for (const key of Object.keys(raw)) if (key !== 'same') fail(`${path}.${key}`, 'is not allowed: a relative bound is {"same": factor}');
    const factor = finiteNumber(raw.same, `${path}.same`);
    if (!(factor > 0)) fail(`${path}.same`, 'must be a factor above 0 (0.8: 80 % of the page product\'s value)');
    return undefined;
  }
  return finiteNumber(raw, path);
}

function condition(raw: unknown, field: string, path: string): void {
  const kind = kindOf(field);
  if (!isObject(raw)) {
    if (Array.isArray(raw) || raw === null) fail(path, 'must be a value or an object of operators (eq, in, gte, lte, same)');
    value(raw, kind, path);
    return;
  }
  const ops = Object.keys(raw);
  if (ops.length === 0) fail(path, 'must name at least one operator (eq, in, gte, lte, same)');
  for (const op of ops) {
    if (!OPERATORS.includes(op)) fail(`${path}.${op}`, 'is not an operator: use eq, in, gte, lte or same');
  }
  if (raw.eq !== undefined) value(raw.eq, kind, `${path}.eq`);
  if (raw.in !== undefined) {
    const list = requireArray(raw.in, `${path}.in`);
    if (list.length === 0 || list.length > MAX_LIST) fail(`${path}.in`, `must list 1 to ${MAX_LIST} values`);
    list.forEach((item, i) => value(item, kind, `${path}.in[${i}]`));
  }
  const bounds: (number | undefined)[] = [];
  for (const op of ['gte', 'lte'] as const) {
    if (raw[op] === undefined) continue;
    if (kind !== 'number' && kind !== 'any') fail(`${path}.${op}`, `compares numbers, and ${field} is not one`);
    bounds.push(bound(raw[op], `${path}.${op}`));
  }
  if (raw.gte !== undefined && raw.lte !== undefined && bounds[0] !== undefined && bounds[1] !== undefined && bounds[0] > bounds[1]) {
    fail(path, 'gte is above lte: no product could match');
  }
  if (raw.same !== undefined && raw.same !== true) fail(`${path}.same`, 'must be true (equal to the field of the product the page is about)');
}

function conditions(raw: unknown, path: string): void {
  const fields = requireObject(raw, path);
  const names = Object.keys(fields);
  if (names.length === 0 || names.length > MAX_CONDITIONS) fail(path, `must name 1 to ${MAX_CONDITIONS} catalog fields`);
  for (const field of names) {
    if (field.length > MAX_FIELD_LENGTH) fail(path, `a field name is longer than ${MAX_FIELD_LENGTH} characters`);
    condition(fields[field], field, `${path}.${field}`);
  }
}

function rules(raw: unknown, path: string, limit: number): void {
  const list = requireArray(raw, path);
  if (list.length > MAX_RULES) fail(path, `must have at most ${MAX_RULES} rules`);
  const pinned = new Map<string, number>();
  const positions = new Map<number, number>();
  list.forEach((item, i) => {
    const rPath = `${path}[${i}]`;
    const rule = requireObject(item, rPath);
    const kinds = Object.keys(RULE_FIELDS).filter((k) => rule[k] !== undefined);
    if (kinds.length !== 1) fail(rPath, 'must have exactly one of pin, filter, boost or bury');
    const kind = kinds[0]!;
    for (const key of Object.keys(rule)) {
      if (!RULE_FIELDS[kind]!.includes(key)) fail(`${rPath}.${key}`, `is not a field of a ${kind} rule (${RULE_FIELDS[kind]!.join(', ')})`);
    }
    if (kind === 'pin') {
      const id = requireString(rule.pin, `${rPath}.pin`);
      if (id.length > MAX_ID_LENGTH) fail(`${rPath}.pin`, `must be at most ${MAX_ID_LENGTH} characters`);
      const position = rule.position;
      if (!Number.isInteger(position) || (position as number) < 1) fail(`${rPath}.position`, 'must be a whole number from 1');
      if ((position as number) > limit) fail(`${rPath}.position`, `must be at most the feed's limit (${limit})`);
      if (pinned.has(id)) fail(`${rPath}.pin`, `"${id}" is already pinned by rules[${pinned.get(id)!}]`);
      if (positions.has(position as number)) fail(`${rPath}.position`, `position ${String(position)} is already taken by rules[${positions.get(position as number)!}]`);
      pinned.set(id, i);
      positions.set(position as number, i);
      return;
    }
    conditions(rule[kind], `${rPath}.${kind}`);
    if (rule.factor !== undefined) {
      const factor = finiteNumber(rule.factor, `${rPath}.factor`);
      if (!(factor > 1) || factor > MAX_FACTOR) fail(`${rPath}.factor`, `must be above 1 and at most ${MAX_FACTOR}`);
    }
  });
}

function exclusions(raw: unknown, path: string): boolean {
  let purchased = false;
  requireArray(raw, path).forEach((item, i) => {
    const ePath = `${path}[${i}]`;
    if (typeof item === 'string') {
      if (item.length === 0 || item.length > MAX_ID_LENGTH) fail(ePath, `must be ${EXCLUSIONS.join(', ')} or a product id`);
      if (item === 'purchased') purchased = true;
      return;
    }
    const ids = requireObject(item, ePath);
    for (const key of Object.keys(ids)) if (key !== 'ids') fail(`${ePath}.${key}`, 'is not allowed: product ids are {"ids": [...]}');
    const list = requireArray(ids.ids, `${ePath}.ids`);
    if (list.length === 0 || list.length > MAX_LIST) fail(`${ePath}.ids`, `must list 1 to ${MAX_LIST} product ids`);
    list.forEach((id, j) => {
      if (requireString(id, `${ePath}.ids[${j}]`).length > MAX_ID_LENGTH) fail(`${ePath}.ids[${j}]`, `must be at most ${MAX_ID_LENGTH} characters`);
    });
  });
  return purchased;
}

function fallbacks(raw: unknown, path: string, feedId: unknown): void {
  const list = requireArray(raw, path);
  if (list.length > MAX_FALLBACKS) fail(path, `must have at most ${MAX_FALLBACKS} entries`);
  list.forEach((item, i) => {
    const fPath = `${path}[${i}]`;
    if (typeof item === 'string') {
      if (!FALLBACK_STRATEGIES.includes(item)) fail(fPath, `must be one of ${FALLBACK_STRATEGIES.join(', ')}, or {"feed": id}`);
      return;
    }
    const ref = requireObject(item, fPath);
    for (const key of Object.keys(ref)) if (key !== 'feed') fail(`${fPath}.${key}`, 'is not allowed: another feed is {"feed": id}');
    if (!Number.isInteger(ref.feed) || (ref.feed as number) < 1) fail(`${fPath}.feed`, 'must be a positive integer feed id');
    if (ref.feed === feedId) fail(`${fPath}.feed`, 'a feed cannot fall back on itself');
  });
}

/**
 * The merchandising settings of one feed (already known to be an object with a valid id and strategy).
 * @throws ConfigError naming the field, e.g. `feed.rules[0].position: must be at most the feed's limit (8)`.
 */
export function validateFeedRules(feed: Json, path: string): void {
  if (feed.limit !== undefined && (!Number.isInteger(feed.limit) || (feed.limit as number) < 1 || (feed.limit as number) > MAX_FEED_PRODUCTS)) {
    fail(`${path}.limit`, `must be a whole number from 1 to ${MAX_FEED_PRODUCTS}`);
  }
  if (feed.dedupe !== undefined && typeof feed.dedupe !== 'boolean') fail(`${path}.dedupe`, 'must be a boolean');
  if (feed.rules !== undefined) rules(feed.rules, `${path}.rules`, (feed.limit as number | undefined) ?? MAX_FEED_PRODUCTS);
  const purchased = feed.exclude !== undefined && exclusions(feed.exclude, `${path}.exclude`);
  if (feed.purchasedDays !== undefined) {
    const days = feed.purchasedDays;
    if (!Number.isInteger(days) || (days as number) < 1 || (days as number) > MAX_PURCHASED_DAYS) {
      fail(`${path}.purchasedDays`, `must be a whole number of days from 1 to ${MAX_PURCHASED_DAYS}`);
    }
    if (!purchased) fail(`${path}.purchasedDays`, 'is only used with "purchased" in exclude');
  }
  if (feed.fallback !== undefined) fallbacks(feed.fallback, `${path}.fallback`, feed.id);
}

/**
 * The project-wide check of fallbacks that name other feeds: each names a feed of the project, and no feed reaches
 * itself through them (it would fill its list from its own).
 * @throws ConfigError at the first fallback that breaks either, e.g. `…feeds[1].fallback[0].feed: feeds 2 → 1 → 2 fall back on each other`.
 */
export function checkFeedFills(feeds: readonly Json[], path: string): void {
  const byId = new Map(feeds.map((feed) => [feed.id as number, feed]));
  const next = (feed: Json): number[] => ((feed.fallback ?? []) as unknown[]).flatMap((f) => (isObject(f) ? [f.feed as number] : []));
  feeds.forEach((feed, i) => {
    ((feed.fallback ?? []) as unknown[]).forEach((f, j) => {
      if (isObject(f) && !byId.has(f.feed as number)) fail(`${path}[${i}].fallback[${j}].feed`, `no feed with id ${String(f.feed)} in feeds`);
    });
  });
  // Depth-first from each feed: a path that comes back to its start is a cycle, named by its ids.
  const done = new Set<number>();
  feeds.forEach((feed, i) => {
    const start = feed.id as number;
    const visit = (id: number, trail: number[]): void => {
      for (const to of next(byId.get(id)!)) {
        if (to === start) {
          const firstHop = trail.length > 1 ? trail[1] : to;
          const j = ((feed.fallback ?? []) as unknown[]).findIndex((f) => isObject(f) && f.feed === firstHop);
          fail(`${path}[${i}].fallback[${j}].feed`, `feeds ${[...trail, to].join(' → ')} fall back on each other in a cycle`);
        }
        if (!trail.includes(to) && !done.has(to)) visit(to, [...trail, to]);
      }
    };
    visit(start, [start]);
    done.add(start);
  });
}
