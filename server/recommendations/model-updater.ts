import type { ServiceEvent } from '../../wire/event.js';
import { lockKeys, op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { EVENT_WEIGHTS, scoreContribution } from './decay-score.js';

// How stored events reach the recommendation models. Ingestion (server/ingest/ingest-program.ts) appends each
// batch's model events — the product events the models count, a few fields each — to `model_inbox`, in the
// transaction that stores the batch: only events stored now (never duplicates), so each counts once. An applier
// (model-applier.ts) folds the inbox into the models later, in large chunks, deleting the rows it applied in the
// same transaction: exactly once, and a crash between the two leaves the rows for the next pass. Ingestion then
// pays one appended row per batch instead of ~90 upserts on random pages, and the applier pays each popular row
// once per chunk instead of once per batch.

/** Kinds of co-occurrence: products of one session (viewed together) and of one order (bought together). */
export type BasketKind = 'session' | 'order';

/**
 * A session or order stops pairing after this many distinct products: each new product costs one upsert per
 * earlier product, so an unbounded basket (a crawler's session) would cost O(n²). Real baskets are far smaller.
 */
export const MAX_BASKET_PRODUCTS = 50;

/** Rows per multi-row statement: well under both databases' bound-parameter limits. */
const CHUNK_ROWS = 400;

/** Which basket each product event name feeds. Orders pair only with a `data.orderId`. */
const SESSION_EVENTS = new Set(['Product viewed', 'Added to cart']);

/** What the models need of one product event; `at` is its time clamped to when it was received. */
export interface ModelEvent {
  name: string;
  productId: string;
  at: number;
  profileId: string;
  sessionId: string;
  orderId: string | null;
}

function orderIdOf(event: ServiceEvent): string | null {
  const id = event.data?.orderId;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/**
 * The events of a batch the models count (product events with a weight, a product id and a valid time), as they go
 * into the inbox. `now` is when the batch was received: a client clock ahead of it counts as now.
 */
export function modelEventsOf(events: readonly ServiceEvent[], now: number): ModelEvent[] {
  const out: ModelEvent[] = [];
  for (const event of events) {
    if (event.type !== 'product' || !EVENT_WEIGHTS.has(event.name)) continue;
    const id = event.data?.productId;
    if (typeof id !== 'string' && typeof id !== 'number') continue;
    const productId = String(id);
    const at = Date.parse(event.timestamp);
    if (productId.length === 0 || !Number.isFinite(at)) continue;
    out.push({
      name: event.name, productId, at: Math.min(at, now), profileId: event.profileId, sessionId: event.sessionId, orderId: orderIdOf(event),
    });
  }
  return out;
}

/** The basket a model event adds its product to (its session's, or its order's), or null. */
export function basketOf(e: ModelEvent): [BasketKind, string] | null {
  if (SESSION_EVENTS.has(e.name)) return ['session', e.sessionId];
  return e.orderId === null ? null : ['order', e.orderId];
}

/** An inbox row's `events`: one JSON array of tuples (a third of the bytes of objects). */
export function encodeModelEvents(events: readonly ModelEvent[]): string {
  return JSON.stringify(events.map((e) => [e.name, e.productId, e.at, e.profileId, e.sessionId, e.orderId]));
}

/** An inbox row's `events` as encodeModelEvents wrote them. */
export function decodeModelEvents(json: string): ModelEvent[] {
  return (JSON.parse(json) as [string, string, number, string, string, string | null][]).map(
    ([name, productId, at, profileId, sessionId, orderId]) => ({ name, productId, at, profileId, sessionId, orderId }),
  );
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** `(?, ?, …), (?, ?, …)` for `rows` rows of `width`, built once per shape (full chunks repeat every batch). */
const valuesCache = new Map<string, string>();
function valuesList(width: number, rows: number): string {
  const key = `${width}x${rows}`;
  let list = valuesCache.get(key);
  if (list === undefined) {
    const one = `(${new Array<string>(width).fill('?').join(', ')})`;
    list = new Array<string>(rows).fill(one).join(', ');
    valuesCache.set(key, list);
  }
  return list;
}

/**
 * Runs `INSERT … VALUES (…), (…) <tail>` in chunks over `params`, a flat list of rows of `width` values, already
 * sorted by the caller (same lock order everywhere). Flat and chunked by index: no array per row to collect.
 */
function* insertRows(head: string, width: number, params: SqlValue[], tail: string): SqlProgram<void> {
  const step = CHUNK_ROWS * width;
  for (let i = 0; i < params.length; i += step) {
    const chunk = params.slice(i, i + step);
    yield op(`${head} VALUES ${valuesList(width, chunk.length / width)} ${tail}`, ...chunk);
  }
}

/** A map's keys in code-unit order (the order of every write below). */
function sortedKeys<V>(map: Map<string, V>): string[] {
  return [...map.keys()].sort(compare);
}

/** Adds one to `counts[a][b]`. */
function bump(counts: Map<string, Map<string, number>>, a: string, b: string): void {
  let row = counts.get(a);
  if (row === undefined) {
    row = new Map();
    counts.set(a, row);
  }
  row.set(b, (row.get(b) ?? 0) + 1);
}

/** The distinct products already stored per basket, for the baskets this batch touches. */
function* loadBaskets(project: string, kind: BasketKind, ids: string[]): SqlProgram<Map<string, Set<string>>> {
  const baskets = new Map<string, Set<string>>(ids.map((id) => [id, new Set<string>()]));
  for (let i = 0; i < ids.length; i += CHUNK_ROWS) {
    const chunk = ids.slice(i, i + CHUNK_ROWS);
    const { rows } = yield op(
      `SELECT basket_id, product_id FROM baskets WHERE project = ? AND kind = ? AND basket_id IN (${chunk.map(() => '?').join(', ')})`,
      project, kind, ...chunk,
    );
    for (const r of rows) baskets.get(String(r.basket_id))?.add(String(r.product_id));
  }
  return baskets;
}

/**
 * Folds model events into the recommendation models (product_scores, baskets + co_occurrence, profile_recent,
 * profile_products).
 * Each event must be folded once (the applier deletes the inbox rows it came from in the same transaction).
 * Concurrent transactions take turns on the baskets they touch (their keys are locked, in one order).
 * @example yield* updateModels('acme/shop', modelEventsOf(storedEvents, Date.now()));
 */
export function* updateModels(project: string, events: readonly ModelEvent[]): SqlProgram<void> {
  if (events.length === 0) return;
  // Scores are stored relative to a fixed epoch (decay-score.ts): an event's contribution depends on its own time only.
  const scores = new Map<string, number>();
  // profileId → productId → latest view time.
  const recent = new Map<string, Map<string, number>>();
  // profileId → productId → [latest cart addition, latest order] (0: none in this chunk).
  const carts = new Map<string, Map<string, [number, number]>>();
  // Basket id → products in event order (duplicates removed below against the stored set).
  const added: Record<BasketKind, Map<string, string[]>> = { session: new Map(), order: new Map() };
  for (const e of events) {
    const weight = EVENT_WEIGHTS.get(e.name);
    if (weight === undefined) continue;
    scores.set(e.productId, (scores.get(e.productId) ?? 0) + scoreContribution(weight, e.at, e.at));
    if (e.name === 'Product viewed') {
      let viewed = recent.get(e.profileId);
      if (viewed === undefined) {
        viewed = new Map();
        recent.set(e.profileId, viewed);
      }
      const seen = viewed.get(e.productId);
      if (seen === undefined || seen < e.at) viewed.set(e.productId, e.at);
    }
    if (e.name === 'Added to cart' || e.name === 'Product ordered') noteCart(carts, e);
    const into = basketOf(e);
    if (into === null) continue;
    const [kind, basket] = into;
    const list = added[kind].get(basket);
    if (list) list.push(e.productId);
    else added[kind].set(basket, [e.productId]);
  }

  // Pairs: each product new to its basket pairs once with every product the basket already holds (so viewing A
  // ten times in one session counts A–B once). Counted in memory (kind → a → b → count), then written once per
  // pair. Kinds in code-unit order ('order' < 'session'), like every other key below.
  const kinds = ['order', 'session'] as const;
  const pairs: Record<BasketKind, Map<string, Map<string, number>>> = { session: new Map(), order: new Map() };
  const basketParams: SqlValue[] = [];
  for (const kind of kinds) {
    const ids = sortedKeys(added[kind]);
    if (ids.length === 0) continue;
    // Transactions that touch the same basket take turns (keys locked in key order: no deadlock cycle), so that the
    // second reads the products the first added and pairs its own with them.
    yield lockKeys(ids.map((id) => `baskets\n${project}\n${kind}\n${id}`));
    const stored = yield* loadBaskets(project, kind, ids);
    for (const id of ids) {
      const products = stored.get(id) as Set<string>;
      const fresh: string[] = [];
      for (const productId of added[kind].get(id) as string[]) {
        if (products.has(productId) || products.size >= MAX_BASKET_PRODUCTS) continue;
        for (const other of products) {
          bump(pairs[kind], productId, other);
          bump(pairs[kind], other, productId);
        }
        products.add(productId);
        fresh.push(productId);
      }
      for (const productId of fresh.sort(compare)) basketParams.push(project, kind, id, productId);
    }
  }
  const pairParams: SqlValue[] = [];
  for (const kind of kinds) {
    const byA = pairs[kind];
    for (const a of sortedKeys(byA)) {
      const row = byA.get(a) as Map<string, number>;
      for (const b of sortedKeys(row)) pairParams.push(project, kind, a, b, row.get(b) as number);
    }
  }
  const scoreParams: SqlValue[] = [];
  for (const productId of sortedKeys(scores)) scoreParams.push(project, productId, scores.get(productId) as number);
  const recentParams: SqlValue[] = [];
  for (const profileId of sortedKeys(recent)) {
    const viewed = recent.get(profileId) as Map<string, number>;
    for (const productId of sortedKeys(viewed)) recentParams.push(project, profileId, productId, viewed.get(productId) as number);
  }

  const cartParams: SqlValue[] = [];
  for (const profileId of sortedKeys(carts)) {
    const products = carts.get(profileId) as Map<string, [number, number]>;
    for (const productId of sortedKeys(products)) cartParams.push(project, profileId, productId, ...(products.get(productId) as [number, number]));
  }

  // Every write sorted by key: concurrent PostgreSQL transactions then lock rows in one order (no deadlock cycle).
  yield* insertRows(
    'INSERT INTO baskets (project, kind, basket_id, product_id)', 4, basketParams,
    'ON CONFLICT (project, kind, basket_id, product_id) DO NOTHING',
  );
  yield* insertRows(
    'INSERT INTO co_occurrence (project, kind, a, b, count)', 5, pairParams,
    'ON CONFLICT (project, kind, a, b) DO UPDATE SET count = co_occurrence.count + excluded.count',
  );
  yield* insertRows(
    'INSERT INTO product_scores (project, product_id, score)', 3, scoreParams,
    'ON CONFLICT (project, product_id) DO UPDATE SET score = product_scores.score + excluded.score',
  );
  yield* insertRows(
    'INSERT INTO profile_recent (project, profile_id, product_id, last_seen)', 4, recentParams,
    // Late-arriving older views never move a product back in the list.
    `ON CONFLICT (project, profile_id, product_id) DO UPDATE SET last_seen = excluded.last_seen
     WHERE excluded.last_seen > profile_recent.last_seen`,
  );
  yield* insertRows(
    'INSERT INTO profile_products (project, profile_id, product_id, carted_at, ordered_at)', 5, cartParams,
    // Each time only moves forward: a late event of an older cart never reopens it.
    `ON CONFLICT (project, profile_id, product_id) DO UPDATE SET
       carted_at = CASE WHEN excluded.carted_at > profile_products.carted_at THEN excluded.carted_at ELSE profile_products.carted_at END,
       ordered_at = CASE WHEN excluded.ordered_at > profile_products.ordered_at THEN excluded.ordered_at ELSE profile_products.ordered_at END`,
  );
}

/** Notes a cart addition or an order of a product by a profile, keeping the latest of each. */
function noteCart(carts: Map<string, Map<string, [number, number]>>, e: ModelEvent): void {
  let products = carts.get(e.profileId);
  if (products === undefined) carts.set(e.profileId, (products = new Map()));
  const times = products.get(e.productId) ?? [0, 0];
  const slot = e.name === 'Added to cart' ? 0 : 1;
  if (e.at > times[slot]) times[slot] = e.at;
  products.set(e.productId, times);
}
