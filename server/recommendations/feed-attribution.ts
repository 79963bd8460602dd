import type { ReportBy, ReportNumbers, ReportRow, RevenueSources } from '../../wire/feed-report.js';
import { wilsonInterval } from './wilson-interval.js';

// Pure: what the feed report computes from the rows its program read (feed-report-program.ts). Holds no state and
// changes nothing it is given. The rule (docs/recommendations-report.md): a cart addition or an order of product P by
// a person is credited to that person's latest click on P in a recommendation the service issued, if the cart or order
// came within the clicked feed's attribution window after it (the click at the same millisecond counts).


/** An impression or a click of a card of an issued recommendation, with what the service recorded of it. */
export interface CardEvent {
  person: unknown;
  /** Epoch ms, on the service's clock (the event's time corrected for its batch's clock skew). */
  at: number;
  productId: string;
  feedId: number;
  strategy: string;
  /** 1-based: the product's place in the issued list, not the position the page reported. */
  position: number;
}

/** An `Added to cart` or a `Product ordered` event. */
export interface Conversion {
  kind: 'cart' | 'order';
  person: unknown;
  at: number;
  productId: string;
  /** Positive; 1 when the event gave none. */
  quantity: number;
  /** Per unit, from the event, when it gave a finite price ≥ 0. */
  price?: number;
  /** From the event: a 3-letter code, upper case. */
  currency?: string;
}

/** The catalog's price of a product at a time, for an order whose event has none. */
export type CatalogPrice = (productId: string, at: number) => { price?: number; currency?: string } | undefined;

/** Currency of a price known without one (neither the event nor the catalog named it): ISO 4217's "no currency". */
export const NO_CURRENCY = 'XXX';

interface Tally {
  impressions: number;
  clicks: number;
  carts: number;
  orders: number;
  revenue: Map<string, number>;
  sources: RevenueSources;
}

const tally = (): Tally => ({ impressions: 0, clicks: 0, carts: 0, orders: 0, revenue: new Map(), sources: { event: 0, catalog: 0, unpriced: 0 } });

function numbers(t: Tally): ReportNumbers {
  const currencies = [...t.revenue.keys()].sort();
  return {
    impressions: t.impressions,
    clicks: t.clicks,
    ctr: t.impressions > 0 ? t.clicks / t.impressions : 0,
    ctrInterval: wilsonInterval(t.clicks, t.impressions),
    carts: t.carts,
    orders: t.orders,
    revenue: Object.fromEntries(currencies.map((c) => [c, t.revenue.get(c)!])),
    revenuePer1000: Object.fromEntries(currencies.map((c) => [c, t.impressions > 0 ? (t.revenue.get(c)! / t.impressions) * 1000 : null])),
    revenueSources: { ...t.sources },
  };
}

/** The UTC day of a time, `2026-11-28`. */
export const dayOf = (at: number): string => new Date(at).toISOString().slice(0, 10);

function keyOf(by: ReportBy, event: { at: number; position: number; strategy: string }): string | number {
  return by === 'position' ? event.position : by === 'day' ? dayOf(event.at) : event.strategy;
}

/**
 * The click each conversion is credited to (or undefined): the latest click by the same person on the same product at
 * or before the conversion whose feed's window (`windowMs(feedId)`) still covers it.
 */
export function attribute(
  clicks: readonly CardEvent[], conversions: readonly Conversion[], windowMs: (feedId: number) => number,
): (CardEvent | undefined)[] {
  const byPersonProduct = new Map<unknown, Map<string, CardEvent[]>>();
  for (const click of clicks) {
    let products = byPersonProduct.get(click.person);
    if (!products) byPersonProduct.set(click.person, (products = new Map()));
    const list = products.get(click.productId);
    if (list) list.push(click);
    else products.set(click.productId, [click]);
  }
  for (const products of byPersonProduct.values()) for (const list of products.values()) list.sort((a, b) => a.at - b.at);
  return conversions.map((conversion) => {
    const list = byPersonProduct.get(conversion.person)?.get(conversion.productId) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const click = list[i]!;
      if (click.at > conversion.at) continue;
      if (conversion.at - click.at <= windowMs(click.feedId)) return click;
    }
    return undefined;
  });
}

/** Impressions of one card place: `count` of them (1 when not given) at `position`, by `strategy`, on the day of `at`. */
export interface ImpressionCount {
  at: number;
  position: number;
  strategy: string;
  count?: number;
}

export interface ReportInput {
  feedId: number;
  from: number;
  to: number;
  by?: ReportBy;
  /** This feed's impressions in [from, to), one by one or counted together (their persons are not read). */
  impressions: readonly ImpressionCount[];
  /** Every feed's clicks from a window before `from` to `to` (the last click may be another feed's). */
  clicks: readonly CardEvent[];
  /** Carts and orders in [from, to) of products clicked. */
  conversions: readonly Conversion[];
  windowMs: (feedId: number) => number;
  catalogPrice: CatalogPrice;
}

/** The report's totals and, with `by`, its rows (sorted by their key). */
export function feedReport(input: ReportInput): { totals: ReportNumbers; rows?: ReportRow[] } {
  const totals = tally();
  const rows = new Map<string | number, Tally>();
  const add = (event: { at: number; position: number; strategy: string }, count: (t: Tally) => void): void => {
    count(totals);
    if (input.by === undefined) return;
    const key = keyOf(input.by, event);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = tally()));
    count(row);
  };
  const inRange = (at: number): boolean => at >= input.from && at < input.to;
  for (const e of input.impressions) {
    const count = e.count ?? 1;
    add(e, (t) => { t.impressions += count; });
  }
  for (const e of input.clicks) if (e.feedId === input.feedId && inRange(e.at)) add(e, (t) => t.clicks++);
  const credited = attribute(input.clicks, input.conversions, input.windowMs);
  input.conversions.forEach((conversion, i) => {
    const click = credited[i];
    if (click === undefined || click.feedId !== input.feedId || !inRange(conversion.at)) return;
    // A row by day holds the conversion's day: revenue is earned when the order is placed.
    const at = { at: conversion.at, position: click.position, strategy: click.strategy };
    if (conversion.kind === 'cart') {
      add(at, (t) => t.carts++);
      return;
    }
    const priced = priceOf(conversion, input.catalogPrice);
    add(at, (t) => {
      t.orders++;
      t.sources[priced.source]++;
      if (priced.source !== 'unpriced') t.revenue.set(priced.currency, (t.revenue.get(priced.currency) ?? 0) + priced.price * conversion.quantity);
    });
  });
  const answer: { totals: ReportNumbers; rows?: ReportRow[] } = { totals: numbers(totals) };
  if (input.by !== undefined) {
    const by = input.by;
    const keys = [...rows.keys()].sort((a, b) => (typeof a === 'number' && typeof b === 'number' ? a - b : String(a) < String(b) ? -1 : 1));
    answer.rows = keys.map((key) => ({ [by]: key, ...numbers(rows.get(key)!) }) as ReportRow);
  }
  return answer;
}

type Priced = { source: 'event' | 'catalog'; price: number; currency: string } | { source: 'unpriced' };

/** The event's price (with its currency, else the catalog's), else the catalog's price at the time, else none. */
function priceOf(conversion: Conversion, catalogPrice: CatalogPrice): Priced {
  const catalog = catalogPrice(conversion.productId, conversion.at);
  if (conversion.price !== undefined) {
    return { source: 'event', price: conversion.price, currency: conversion.currency ?? catalog?.currency ?? NO_CURRENCY };
  }
  if (catalog?.price !== undefined) return { source: 'catalog', price: catalog.price, currency: catalog.currency ?? NO_CURRENCY };
  return { source: 'unpriced' };
}
