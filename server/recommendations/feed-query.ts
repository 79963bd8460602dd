import type { FeedConfig } from '../config/config-types.js';

/** What a feed is asked for: the strategy's inputs, after validation (feed endpoint or Choose). */
export interface FeedQuery {
  strategy: FeedConfig['strategy'];
  /** 1–100. */
  limit: number;
  /** The visitor (recently-viewed, personalized). */
  profileId: string;
  /** The product on screen: the anchor of viewed/bought-together, and never part of the answer. */
  productId?: string;
  /**
   * Products other widgets of the same page view show: never part of the answer, as if excluded by a rule (the feed
   * service passes them only to a feed that dedupes).
   */
  onPage?: readonly string[];
}
