// What the feed report (`GET /v1/{org}/projects/{project}/feeds/{id}/report`) answers: the contract the service builds
// (server/recommendations/) and a console page will read, in one place (docs/recommendations-report.md).

/** What a report's rows are by: the card's recorded position (1 = first), the UTC day, or the feed's strategy. */
export type ReportBy = 'position' | 'day' | 'strategy';

/** Where an attributed order line's revenue came from: its event, the catalog, or nowhere (no price known). */
export interface RevenueSources {
  event: number;
  catalog: number;
  unpriced: number;
}

/** The numbers of the report's totals and of each row. */
export interface ReportNumbers {
  impressions: number;
  clicks: number;
  /** clicks / impressions; 0 without impressions. */
  ctr: number;
  /** Wilson 95 % interval of the click-through rate; null without impressions. */
  ctrInterval: [number, number] | null;
  /** Credited `Added to cart` events. */
  carts: number;
  /** Credited `Product ordered` events (order lines). */
  orders: number;
  /** Credited order revenue per currency: Σ price × quantity. */
  revenue: Record<string, number>;
  /** revenue ÷ impressions × 1000, per currency; null for a currency earned without impressions in the range. */
  revenuePer1000: Record<string, number | null>;
  revenueSources: RevenueSources;
}

/** A row: the key it is by (`position`, `day` as `2026-11-28`, or `strategy`) and the same numbers as the totals. */
export type ReportRow = ReportNumbers & { position?: number; day?: string; strategy?: string };

/** The report's answer. */
export interface FeedReportAnswer {
  feed: number;
  /** ISO 8601: the range is [from, to). */
  from: string;
  to: string;
  /** The window the report credited with: the feed's (default 24), or the query's `attributionHours`. */
  attributionHours: number;
  totals: ReportNumbers;
  /** Only with `by`, sorted by its key. */
  rows?: ReportRow[];
}
