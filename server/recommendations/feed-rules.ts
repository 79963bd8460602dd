import type { FeedConditions, FeedRule, FieldCondition, FieldOperators, ProductConfig } from '../config/config-types.js';

// Pure: what a feed's merchandising rules (docs/merchandising-rules.md) decide about products already read. Holds no
// state and changes nothing it is given. Conditions compare a product's own fields (never inherited ones) with the
// rule's values, or with the field of the product the page is about (`same`); a relative condition that has nothing to
// compare with (no product on the page, or one without that field) is left out rather than matching nothing, so a feed
// with a same-category filter still answers on a page that is about no product.

/** A boost (factor > 1) or a bury (factor < 1: 1 ÷ the rule's factor). */
export interface Move {
  when: FeedConditions;
  factor: number;
}

/** A feed's rules by kind, in their order in the config. */
export interface CompiledRules {
  filters: FeedConditions[];
  moves: Move[];
  pins: { id: string; position: number }[];
}

const DEFAULT_FACTOR = 2;

export function compileRules(rules: readonly FeedRule[]): CompiledRules {
  const compiled: CompiledRules = { filters: [], moves: [], pins: [] };
  for (const rule of rules) {
    if ('pin' in rule) compiled.pins.push({ id: rule.pin, position: rule.position });
    else if ('filter' in rule) compiled.filters.push(rule.filter);
    else if ('boost' in rule) compiled.moves.push({ when: rule.boost, factor: rule.factor ?? DEFAULT_FACTOR });
    else compiled.moves.push({ when: rule.bury, factor: 1 / (rule.factor ?? DEFAULT_FACTOR) });
  }
  return compiled;
}

/**
 * How many candidates to read for `need` places: a boost by f can lift the product at place need × f into the list,
 * and each buried product leaves its place to the next one.
 */
export function candidatesFor(need: number, rules: CompiledRules, max: number): number {
  let boost = 1;
  let bury = false;
  for (const move of rules.moves) {
    if (move.factor > boost) boost = move.factor;
    if (move.factor < 1) bury = true;
  }
  return Math.min(max, Math.ceil(need * boost) + (bury ? need : 0));
}

const field = (product: ProductConfig | undefined, name: string): unknown =>
  product !== undefined && Object.hasOwn(product, name) ? product[name] : undefined;

/** Equal, or for a list (tags) on either side: sharing a value. */
function equal(value: unknown, other: unknown): boolean {
  if (Array.isArray(value)) return Array.isArray(other) ? value.some((v) => other.includes(v)) : value.includes(other);
  return Array.isArray(other) ? other.includes(value) : value === other;
}

/** A `gte`/`lte` bound: a number, or the page product's value times a factor (undefined: nothing to compare with). */
function boundOf(bound: number | { same: number }, name: string, page: ProductConfig | undefined): number | undefined {
  if (typeof bound === 'number') return bound;
  const base = field(page, name);
  return typeof base === 'number' ? base * bound.same : undefined;
}

function holds(value: unknown, condition: FieldCondition, name: string, page: ProductConfig | undefined): boolean {
  if (typeof condition !== 'object') return equal(value, condition);
  const ops: FieldOperators = condition;
  if (ops.eq !== undefined && !equal(value, ops.eq)) return false;
  if (ops.in !== undefined && !ops.in.some((v) => equal(value, v))) return false;
  if (ops.gte !== undefined) {
    const min = boundOf(ops.gte, name, page);
    if (min !== undefined && !(typeof value === 'number' && value >= min)) return false;
  }
  if (ops.lte !== undefined) {
    const max = boundOf(ops.lte, name, page);
    if (max !== undefined && !(typeof value === 'number' && value <= max)) return false;
  }
  if (ops.same === true) {
    const other = field(page, name);
    if (other !== undefined && !equal(value, other)) return false;
  }
  return true;
}

/** Whether `product` meets every condition (`page`: the product the page is about, if any). */
export function matches(product: ProductConfig, conditions: FeedConditions, page: ProductConfig | undefined): boolean {
  for (const name of Object.keys(conditions)) {
    if (!holds(field(product, name), conditions[name]!, name, page)) return false;
  }
  return true;
}

/**
 * The first filter rule `product` fails, as its index in `rules` and the field of the condition that failed; undefined
 * when it passes them all. For explaining a list (the console's preview), never on a feed's own path.
 */
export function failedFilter(product: ProductConfig, rules: readonly FeedRule[], page: ProductConfig | undefined): { rule: number; field: string } | undefined {
  for (const [rule, item] of rules.entries()) {
    if (!('filter' in item)) continue;
    for (const name of Object.keys(item.filter)) {
      if (!holds(field(product, name), item.filter[name]!, name, page)) return { rule, field: name };
    }
  }
  return undefined;
}

/**
 * The list reordered by boosts and buries: the product at place i (from 0) scores 1 ÷ (i + 1), times the factor of
 * every rule it matches; ties keep their order. Without moves, the list itself.
 */
export function rerank(products: readonly ProductConfig[], moves: readonly Move[], page: ProductConfig | undefined): readonly ProductConfig[] {
  if (moves.length === 0) return products;
  const scored = products.map((product, i) => {
    let score = 1 / (i + 1);
    for (const move of moves) if (matches(product, move.when, page)) score *= move.factor;
    return { product, score, i };
  });
  scored.sort((a, b) => b.score - a.score || a.i - b.i);
  return scored.map((s) => s.product);
}

/**
 * The list with each pinned product at its position (1-based, in position order; at the end when the list is
 * shorter), cut to `limit`.
 */
export function placePins(list: readonly ProductConfig[], pins: readonly { product: ProductConfig; position: number }[], limit: number): ProductConfig[] {
  const out = [...list];
  for (const pin of [...pins].sort((a, b) => a.position - b.position)) out.splice(Math.min(pin.position - 1, out.length), 0, pin.product);
  return out.slice(0, limit);
}
