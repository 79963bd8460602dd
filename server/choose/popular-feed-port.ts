import type { ProjectConfig } from '../config/config-types.js';
import type { Storage } from '../storage/storage.js';
import type { FeedProductsPort } from './choose-types.js';

/** Popularity is recounted at most this often per project: a GROUP BY over events is no per-request cost. */
export const POPULARITY_TTL_MS = 30_000;
const COUNTED_PRODUCTS = 1000;

interface Popularity {
  at: number;
  counts: ReadonlyMap<string, number>;
}

/**
 * A stand-in feed port for feed-backed experiences until the recommendations service lands: feeds with the
 * `popular` strategy answer the catalog's available products, most product events first (catalog order
 * breaks ties, so an empty shop still shows something). Other strategies reject, so the engine skips the
 * experience with a warning rather than serving a wrong kind of list. Counts are a per-node cache, never a
 * guard, so N nodes may briefly disagree on order — harmless for a popularity list.
 * @example const feeds = new PopularFeeds(storage, Date.now); deps.feedProducts = feeds.port('acme/shop', config);
 */
export class PopularFeeds {
  private readonly cache = new Map<string, Popularity | Promise<Popularity>>();

  constructor(private readonly storage: Storage, private readonly now: () => number) {}

  port(project: string, config: ProjectConfig): FeedProductsPort {
    return async (feedId, limit) => {
      const feed = config.feeds?.find((f) => f.id === feedId);
      if (!feed) throw new Error(`feed ${feedId} is not configured`);
      if (feed.strategy !== 'popular') throw new Error(`feed strategy ${feed.strategy} is not available yet`);
      const { counts } = await this.popularity(project);
      const available = (config.catalog ?? []).filter((p) => p.available !== false);
      const ranked = available
        .map((product, index) => ({ product, index, count: counts.get(product.id) ?? 0 }))
        .sort((a, b) => b.count - a.count || a.index - b.index);
      return ranked.slice(0, limit).map((r) => r.product);
    };
  }

  private async popularity(project: string): Promise<Popularity> {
    const cached = this.cache.get(project);
    if (cached && (cached instanceof Promise || this.now() - cached.at < POPULARITY_TTL_MS)) return cached;
    // Concurrent requests share one count query.
    const loading = this.storage.productEventCounts(project, { limit: COUNTED_PRODUCTS }).then(
      (rows) => {
        const value: Popularity = { at: this.now(), counts: new Map(rows.map((r) => [r.productId, r.count])) };
        this.cache.set(project, value);
        return value;
      },
      (error: unknown) => {
        this.cache.delete(project);
        throw error;
      },
    );
    this.cache.set(project, loading);
    return loading;
  }
}
