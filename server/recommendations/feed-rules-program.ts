import type { Removal, RemovalReason } from '../../wire/feed-preview.js';
import type { FeedExclusion, FeedRule, ProductConfig } from '../config/config-types.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { MAX_SCAN, Picker, popular, strategyProducts } from './feed-program.js';
import type { FeedQuery } from './feed-query.js';
import type { FillSource } from '../config/feed-sources.js';
import { candidatesFor, compileRules, failedFilter, matches, placePins, rerank } from './feed-rules.js';
import { personProfilesProgram } from '../identity/person-profiles.js';
import { narrowedPopular, narrowing, narrowingSql, type Narrowing, type PopularRanking } from './popular-ranking.js';

// A feed with merchandising rules (docs/merchandising-rules.md), in this order:
//   1. exclude: the page's own product, what other widgets of the page show (dedupe), explicit ids, the person's open
//      cart, what they ordered within purchasedDays, what they viewed (on any of their profiles: identity/
//      person-profiles.ts) — these ids are never read as candidates;
//   2. filter: a candidate that fails a filter is skipped, and the source is read further (over-fetch) until enough pass;
//   3. boost / bury: the strategy's candidates (over-fetched so that a boost can lift one from below the cut) reorder;
//   4. fallback: while the list is short, each fallback source fills it in its own order, its candidates excluded and
//      filtered as well;
//   5. pins: each pinned product goes to its position, unless it is unavailable, unknown or excluded;
//   6. cut to the limit.
// Unavailable products are never read (every source reads `available = 1`), pins included.

/** What a feed's rules need besides the query: plain values, computed by the feed service. */
export interface FeedPlan {
  rules: readonly FeedRule[];
  exclude: readonly FeedExclusion[];
  /** Epoch ms: orders at or after it count as `purchased`. */
  purchasedSince: number;
  /** The feed's fallbacks, expanded (config/feed-sources.ts). */
  fills: readonly FillSource[];
  /** The popular ranking's head (popular-ranking.ts), for popular products narrowed by a filter. */
  ranking?: PopularRanking;
}

/**
 * Told why the rules left each product out (the console's preview): an excluded id, a skipped pin, a candidate a filter
 * rejected. A feed's own requests pass none, and then no reason is worked out.
 */
export type RemovalCollector = (removal: Removal) => void;

const marks = (n: number): string => new Array<string>(n).fill('?').join(', ');

/** The stored products with these ids, by id, with whether each is available. */
function* storedProducts(project: string, ids: readonly string[]): SqlProgram<Map<string, { product: ProductConfig; available: boolean }>> {
  if (ids.length === 0) return new Map();
  const { rows } = yield op(
    `SELECT product_id, available, data FROM catalog_products WHERE project = ? AND product_id IN (${marks(ids.length)})`,
    project, ...ids,
  );
  return new Map(rows.map((r) => [str(r.product_id), { product: JSON.parse(str(r.data)) as ProductConfig, available: num(r.available) === 1 }]));
}

/** The ids `exclude` leaves out for the person of this profile. */
function* excludedIds(project: string, profileId: string, plan: FeedPlan, why?: Map<string, RemovalReason>): SqlProgram<Set<string>> {
  const out = new Set<string>();
  const add = (id: string, reason: RemovalReason): void => {
    out.add(id);
    if (why !== undefined && !why.has(id)) why.set(id, reason);
  };
  let cart = false;
  let purchased = false;
  let viewed = false;
  for (const item of plan.exclude) {
    if (item === 'in-cart') cart = true;
    else if (item === 'purchased') purchased = true;
    else if (item === 'viewed') viewed = true;
    else if (typeof item === 'string') add(item, 'excluded-id');
    else for (const id of item.ids) add(id, 'excluded-id');
  }
  if (!cart && !purchased && !viewed) return out;
  // The person's, not the device's: every profile linked to this one by identify and alias, as results find people.
  const profiles = yield* personProfilesProgram(project, profileId);
  const inProfiles = `profile_id IN (${marks(profiles.length)})`;
  if (cart || purchased) {
    // Per product, the latest addition and the latest order on any of the person's devices.
    const { rows } = yield op(
      `SELECT product_id, MAX(carted_at) AS carted_at, MAX(ordered_at) AS ordered_at FROM profile_products
       WHERE project = ? AND ${inProfiles} GROUP BY product_id`,
      project, ...profiles,
    );
    for (const r of rows) {
      const carted = num(r.carted_at);
      const ordered = num(r.ordered_at);
      // In the cart: added after its last order (an order checks it out); purchased: ordered within the window.
      if (cart && carted > ordered) add(str(r.product_id), 'in-cart');
      else if (purchased && ordered > 0 && ordered >= plan.purchasedSince) add(str(r.product_id), 'purchased');
    }
  }
  if (viewed) {
    const { rows } = yield op(`SELECT DISTINCT product_id FROM profile_recent WHERE project = ? AND ${inProfiles}`, project, ...profiles);
    for (const r of rows) add(str(r.product_id), 'viewed');
  }
  return out;
}

/** Popular products into the picker: from the kept ranking when a filter narrows them, else from the database's. */
function* popularProducts(project: string, picker: Picker, narrow: Narrowing, ranking: PopularRanking | undefined): SqlProgram<void> {
  if (ranking !== undefined && narrow.length > 0) yield* narrowedPopular(project, picker, ranking, narrow);
  else yield* popular(project, picker);
}

/** A feed's products for one request, with its rules applied (the order above). */
export function* rulesFeedProgram(project: string, query: FeedQuery, plan: FeedPlan, collect?: RemovalCollector): SqlProgram<ProductConfig[]> {
  const rules = compileRules(plan.rules);
  const pins = rules.pins.filter((pin) => pin.position <= query.limit);
  const known = yield* storedProducts(project, [...new Set([...pins.map((p) => p.id), ...(query.productId !== undefined ? [query.productId] : [])])]);
  // The page's product counts even when it is sold out: its page still shows the feed, with its category.
  const page = query.productId !== undefined ? known.get(query.productId)?.product : undefined;
  const why = collect !== undefined ? new Map<string, RemovalReason>() : undefined;
  if (query.productId !== undefined) why?.set(query.productId, 'page-product');
  const excluded = yield* excludedIds(project, query.profileId, plan, why);
  if (query.productId !== undefined) excluded.add(query.productId);
  for (const id of query.onPage ?? []) excluded.add(id);
  const placed = pins.flatMap((pin) => {
    const stored = known.get(pin.id);
    if (stored?.available === true && !excluded.has(pin.id)) return [{ product: stored.product, position: pin.position }];
    collect?.({ id: pin.id, reason: why?.get(pin.id) ?? (stored === undefined ? 'not-in-catalog' : 'unavailable'), pin: pin.position });
    return [];
  });
  for (const [id, reason] of why ?? []) collect?.({ id, reason });
  const need = query.limit - placed.length;
  const taken = new Set([...excluded, ...placed.map((p) => p.product.id)]);
  const passes = (product: ProductConfig): boolean => rules.filters.every((filter) => matches(product, filter, page));
  const accept = collect === undefined ? passes : (product: ProductConfig): boolean => {
    const failed = failedFilter(product, plan.rules, page);
    if (failed !== undefined) collect({ id: product.id, reason: 'filtered', ...failed });
    return failed === undefined;
  };
  const list: ProductConfig[] = [];
  for (const source of [query.strategy, ...plan.fills]) {
    if (list.length >= need) break;
    const remaining = need - list.length;
    const category = source === 'popular-in-category' ? page?.category : undefined;
    if (source === 'popular-in-category' && typeof category !== 'string') continue;
    const narrow = narrowing(rules.filters, page, category);
    // The strategy's candidates are over-fetched: boosts and buries reorder them before the cut. Fallbacks keep their order.
    const strategy = source === query.strategy;
    const picker = new Picker(strategy ? candidatesFor(remaining, rules, MAX_SCAN) : remaining, [...taken, ...list.map((p) => p.id)], accept, narrowingSql(narrow));
    if (source === 'popular' || source === 'popular-in-category') yield* popularProducts(project, picker, narrow, plan.ranking);
    else yield* strategyProducts(project, { ...query, strategy: source }, picker);
    list.push(...(strategy ? rerank(picker.products, rules.moves, page).slice(0, remaining) : picker.products));
  }
  return placePins(list, placed, query.limit);
}
