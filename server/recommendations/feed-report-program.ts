import { DATA, EVENT_TIME, parseData } from '../results/event-columns.js';
import { personGraphProgram } from '../results/person-graph.js';
import { program } from '../storage/program.js';
import { valuesOp, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import type { ReportBy, ReportNumbers, ReportRow } from '../../wire/feed-report.js';
import { countedImpressions } from './feed-card-counts.js';
import { feedReport, type CardEvent, type CatalogPrice, type Conversion, type ImpressionCount } from './feed-attribution.js';

// The feed report's reads: impressions and clicks joined to the recommendations the service issued (an id it never
// issued joins nothing, so a forged one counts nowhere, and the feed, strategy and position are the recorded ones),
// carts and orders, the people of their profiles (as results find them: identify and alias links), and the catalog's
// prices. Events are selected by name and receipt time (the events_name index); an event's time is EVENT_TIME, never
// later than its receipt, so `received_at >= from` loses none.

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/** What the report is asked: plain values, so that the storage may run it on another thread. */
export interface FeedReportArgs {
  project: string;
  feedId: number;
  from: number;
  to: number;
  by?: ReportBy;
  /** This feed's window (hours). */
  attributionHours: number;
  /** Every other feed's window, by feed id; a feed not listed (deleted since) has `defaultHours`. */
  windows: [number, number][];
  defaultHours: number;
}

export interface FeedReportNumbers {
  totals: ReportNumbers;
  rows?: ReportRow[];
}

/** FROM and WHERE of card events of issued recommendations (the id as ingestion took it out of the payload). */
const ISSUED_CARDS = `FROM events e JOIN recommendations r ON r.project = e.project AND r.recommendation_id = e.recommendation_id
  WHERE e.project = ? AND e.name = ? AND e.received_at >= ? AND ${EVENT_TIME} >= ? AND ${EVENT_TIME} < ?`;

/** Card events of issued recommendations, with the recorded feed, strategy and product list. */
const CARD_EVENTS = `SELECT e.profile_id, ${EVENT_TIME} AS at, e.product_id, r.feed_id, r.strategy, r.products ${ISSUED_CARDS}`;

// Whole days of impressions are read from the counts kept as events arrive (feed-card-counts.ts); the part of a day
// at either end of the range is counted from the events. Those are only counted, so the database counts them: by place in the issued list, UTC day and strategy. A
// list is JSON.stringify's array, which writes an id as `"id"` unless it has a character to escape (then with a
// backslash); in a list without a backslash, `"id"` is found only as that element when the id holds no quote and does
// not start with a comma, and its place is one more than the `","` separators before it. Other rows (practically none)
// are grouped by their list and product id and placed by indexOf, as clicks are.
const PLAIN = `instr(r.products, '\\') = 0 AND instr(e.product_id, '"') = 0 AND substr(e.product_id, 1, 1) <> ','`;
const FOUND_AT = `instr(r.products, '"' || e.product_id || '"')`;
const BEFORE = `substr(r.products, 1, ${FOUND_AT})`;
const DAY_OF_AT = `CASE WHEN at >= 0 THEN at / 86400000 ELSE (at + 1) / 86400000 - 1 END`;
const IMPRESSIONS = `SELECT place, ${DAY_OF_AT} AS day, strategy, list, product_id, COUNT(*) FROM (
  SELECT ${EVENT_TIME} AS at, r.strategy AS strategy,
    CASE WHEN ${PLAIN} THEN CASE WHEN ${FOUND_AT} = 0 THEN 0 ELSE (length(${BEFORE}) - length(replace(${BEFORE}, '","', ''))) / 3 + 1 END END AS place,
    CASE WHEN ${PLAIN} THEN NULL ELSE r.products END AS list,
    CASE WHEN ${PLAIN} THEN NULL ELSE e.product_id END AS product_id
  ${ISSUED_CARDS} AND r.feed_id = ?
) cards GROUP BY 1, 2, 3, 4, 5`;

/** The feed's impressions in [from, to) read from the events, counted by place, day and strategy (IMPRESSIONS). */
function* storedImpressionCounts(project: string, feedId: number, from: number, to: number): SqlProgram<ImpressionCount[]> {
  const { values = [] } = yield valuesOp(IMPRESSIONS, project, 'Product impression', from, from, to, feedId);
  const out: ImpressionCount[] = [];
  for (const [place, day, strategy, list, productId, count] of values) {
    let position = place === null || place === undefined ? 0 : num(place);
    if (list !== null && list !== undefined && productId !== null && productId !== undefined) {
      position = (JSON.parse(str(list)) as string[]).indexOf(str(productId)) + 1;
    }
    if (position > 0) out.push({ at: num(day) * DAY_MS, position, strategy: str(strategy), count: num(count) });
  }
  return out;
}

/**
 * The feed's impressions in the range: whole UTC days from the counts kept as events arrive (feed_card_counts, a row
 * per day, strategy and place), and the part of a day at either end of the range from the events, by the same rules.
 */
function* impressionCounts(project: string, feedId: number, from: number, to: number): SqlProgram<ImpressionCount[]> {
  const firstDay = Math.ceil(from / DAY_MS);
  const endDay = Math.floor(to / DAY_MS);
  if (firstDay >= endDay) return yield* storedImpressionCounts(project, feedId, from, to);
  const counted = yield* countedImpressions(project, feedId, firstDay, endDay);
  const before = from < firstDay * DAY_MS ? yield* storedImpressionCounts(project, feedId, from, firstDay * DAY_MS) : [];
  const after = endDay * DAY_MS < to ? yield* storedImpressionCounts(project, feedId, endDay * DAY_MS, to) : [];
  return [...before, ...counted, ...after];
}

const CONVERSIONS = `SELECT e.profile_id, ${EVENT_TIME} AS at, e.product_id, ${DATA} AS data
  FROM events e WHERE e.project = ? AND e.name = ? AND e.received_at >= ? AND ${EVENT_TIME} >= ? AND ${EVENT_TIME} < ?`;

/**
 * Rows of CARD_EVENTS whose product is in the issued list, each at its place there. `person` holds the profile id
 * until the people are known, then its person (feedReportProgram replaces it in place).
 */
function* cardEvents(sql: string, ...params: SqlValue[]): SqlProgram<CardEvent[]> {
  const { values = [] } = yield valuesOp(sql, ...params);
  const lists = new Map<string, string[]>();
  const out: CardEvent[] = [];
  for (const [profileId, at, productId, feedId, strategy, products] of values) {
    if (productId === null || productId === undefined) continue;
    const text = str(products);
    let list = lists.get(text);
    if (list === undefined) lists.set(text, (list = JSON.parse(text) as string[]));
    const index = list.indexOf(str(productId));
    if (index < 0) continue;
    out.push({ person: str(profileId), at: num(at), productId: str(productId), feedId: num(feedId), strategy: str(strategy), position: index + 1 });
  }
  return out;
}

const CURRENCY = /^[A-Za-z]{3}$/;

/** A conversion's data as the SDK sends it; a price that is not a finite number ≥ 0 is no price. */
function conversionOf(
  kind: Conversion['kind'], profileId: string, at: number, productId: string, data: Record<string, unknown> | undefined,
): Conversion {
  const quantity = Number(data?.quantity);
  const c: Conversion = { kind, person: profileId, at, productId, quantity: quantity > 0 && Number.isFinite(quantity) ? quantity : 1 };
  const price = data?.price;
  if (typeof price === 'number' && Number.isFinite(price) && price >= 0) c.price = price;
  const currency = data?.currency;
  if (typeof currency === 'string' && CURRENCY.test(currency)) c.currency = currency.toUpperCase();
  return c;
}

function* conversions(
  project: string, name: string, kind: Conversion['kind'], from: number, to: number, clicked: Set<string>,
): SqlProgram<Conversion[]> {
  const { values = [] } = yield valuesOp(CONVERSIONS, project, name, from, from, to);
  const out: Conversion[] = [];
  for (const [profileId, at, productId, data] of values) {
    if (productId === null || productId === undefined || !clicked.has(str(productId))) continue;
    out.push(conversionOf(kind, str(profileId), num(at), str(productId), parseData(data)));
  }
  return out;
}

type Price = { price?: number; currency?: string };

function priceEntry(price: unknown, currency: unknown): Price {
  const entry: Price = {};
  const p = price === null || price === undefined ? NaN : Number(price);
  if (Number.isFinite(p) && p >= 0) entry.price = p;
  if (typeof currency === 'string' && CURRENCY.test(currency)) entry.currency = currency.toUpperCase();
  return entry;
}

/**
 * The catalog's price of each product over time (catalog_prices, oldest first), and its stored product as the last
 * resort for a product that has no price history.
 */
function* catalogPrices(project: string, ids: readonly string[]): SqlProgram<CatalogPrice> {
  const history = new Map<string, { since: number; price: Price }[]>();
  const current = new Map<string, Price>();
  for (let at = 0; at < ids.length; at += 500) {
    const chunk = ids.slice(at, at + 500);
    const marks = chunk.map(() => '?').join(', ');
    const { values: rows = [] } = yield valuesOp(
      `SELECT product_id, since, price, currency FROM catalog_prices WHERE project = ? AND product_id IN (${marks})
       ORDER BY product_id, since`,
      project, ...chunk,
    );
    for (const [id, since, price, currency] of rows) {
      const list = history.get(str(id)) ?? [];
      list.push({ since: num(since), price: priceEntry(price, currency) });
      history.set(str(id), list);
    }
    const { values = [] } = yield valuesOp(`SELECT product_id, data FROM catalog_products WHERE project = ? AND product_id IN (${marks})`, project, ...chunk);
    for (const [id, data] of values) {
      const product = parseData(data) ?? {};
      current.set(str(id), priceEntry(product.price, product.currency));
    }
  }
  // The price in force at `at`: the last change at or before it; before the first one known, the first one known.
  return (productId, at) => {
    const list = history.get(productId);
    if (list === undefined || list.length === 0) return current.get(productId);
    let found = list[0]!;
    for (const entry of list) if (entry.since <= at) found = entry;
    return found.price;
  };
}

function* feedReportProgram(args: FeedReportArgs): SqlProgram<FeedReportNumbers> {
  const { project, feedId, from, to } = args;
  const windows = new Map(args.windows);
  windows.set(feedId, args.attributionHours);
  const windowMs = (id: number): number => (windows.get(id) ?? args.defaultHours) * HOUR_MS;
  const longest = Math.max(args.defaultHours, ...windows.values()) * HOUR_MS;
  const impressions = yield* impressionCounts(project, feedId, from, to);
  const clicks = yield* cardEvents(CARD_EVENTS, project, 'Product clicked', from - longest, from - longest, to);
  const clicked = new Set(clicks.map((c) => c.productId));
  const carts = yield* conversions(project, 'Added to cart', 'cart', from, to, clicked);
  const orders = yield* conversions(project, 'Product ordered', 'order', from, to, clicked);
  const read: { person: unknown }[][] = [clicks, carts, orders];
  const personOf = yield* personGraphProgram(project, new Set(read.flatMap((events) => events.map((e) => e.person as string))));
  // Each event's profile id becomes its person, in place.
  for (const events of read) for (const e of events) e.person = personOf(e.person as string);
  const unpriced = [...new Set(orders.filter((o) => o.price === undefined || o.currency === undefined).map((o) => o.productId))].sort();
  const catalogPrice = yield* catalogPrices(project, unpriced);
  return feedReport({
    feedId, from, to, ...(args.by !== undefined ? { by: args.by } : {}),
    impressions,
    clicks,
    conversions: [...carts, ...orders],
    windowMs,
    catalogPrice,
  });
}

/** The feed report: a long read, in one snapshot, off the event loop (the `report` lane). */
export const FEED_REPORT = program('recommendations.report', 'report', feedReportProgram);
