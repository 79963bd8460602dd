import { FEED_STRATEGIES, type FeedPreviewAnswer, type PreviewProduct, type Removal } from '../../wire/feed-preview.js';
import type { ProjectRef } from '../config/config-store.js';
import type { FeedConfig, ProductConfig } from '../config/config-types.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';
import type { Storage } from '../storage/storage.js';
import { Picker, strategyProducts } from './feed-program.js';
import type { FeedQuery } from './feed-query.js';
import { failedFilter } from './feed-rules.js';
import type { FeedService } from './feed-service.js';

// The console's live preview of a feed being edited (docs/merchandising-rules.md): what each strategy answers for a
// product and a profile, what the feed answers with its rules, and why the rules left each product out. It reads only:
// no recommendation is recorded (no recommendationId), and nobody is assigned to or exposed to the holdout.

/** What a preview is asked for: a validated feed (stored or not) and the request's inputs. */
export interface PreviewRequest {
  feed: FeedConfig;
  limit: number;
  productId?: string;
  profileId?: string;
}

/** Each strategy's own list (no fallback, no rules; never the page's product) and the page's product, if stored. */
function* strategyLists(project: string, query: Omit<FeedQuery, 'strategy'>): SqlProgram<{ lists: ProductConfig[][]; page?: ProductConfig }> {
  let page: ProductConfig | undefined;
  if (query.productId !== undefined) {
    const { rows } = yield op('SELECT data FROM catalog_products WHERE project = ? AND product_id = ?', project, query.productId);
    if (rows[0] !== undefined) page = JSON.parse(str(rows[0].data)) as ProductConfig;
  }
  const lists: ProductConfig[][] = [];
  for (const strategy of FEED_STRATEGIES) {
    const picker = new Picker(query.limit, query.productId !== undefined ? [query.productId] : []);
    yield* strategyProducts(project, { ...query, strategy }, picker);
    lists.push(picker.products);
  }
  return page === undefined ? { lists } : { lists, page };
}

const shown = (product: ProductConfig): PreviewProduct =>
  typeof product.title === 'string' ? { id: product.id, title: product.title } : { id: product.id };

/**
 * The preview of `request.feed` in `project`. Removals name the products a reader could miss: those of a strategy's list
 * (excluded, filtered, or cut by pins and reordering), skipped pins, and candidates a filter rejected.
 */
export async function previewFeed(storage: Storage, feeds: FeedService, project: ProjectRef, request: PreviewRequest): Promise<FeedPreviewAnswer> {
  // A preview without a profile reads as a visitor with no history: an id no profile has.
  const query = { limit: request.limit, profileId: request.profileId ?? '', ...(request.productId !== undefined ? { productId: request.productId } : {}) };
  const { lists, page } = await storage.run(() => strategyLists(project.key, query));
  const collected: Removal[] = [];
  const products = await feeds.products(project, request.feed, query, (removal) => collected.push(removal));
  const answered = new Set(products.map((p) => p.id));
  const own = lists[FEED_STRATEGIES.indexOf(request.feed.strategy)] ?? [];
  const listed = new Map<string, ProductConfig>();
  for (const product of [...own, ...lists.flat()]) if (!listed.has(product.id)) listed.set(product.id, product);
  const removed = new Map<string, Removal>();
  for (const removal of collected) {
    const worth = removal.pin !== undefined || removal.reason === 'filtered' || listed.has(removal.id);
    if (worth && !answered.has(removal.id) && !removed.has(removal.id)) removed.set(removal.id, removal);
  }
  // Products a strategy listed that the feed did not answer, for no reason collected: a filter the database checked
  // (the program never saw them), or, in the feed's own strategy's first `limit`, pins and reordering.
  const limit = Math.min(request.limit, request.feed.limit ?? request.limit);
  for (const [id, product] of listed) {
    if (answered.has(id) || removed.has(id)) continue;
    const failed = failedFilter(product, request.feed.rules ?? [], page);
    if (failed !== undefined) removed.set(id, { id, reason: 'filtered', ...failed });
    else if (own.slice(0, limit).includes(product)) removed.set(id, { id, reason: 'cut' });
  }
  return {
    strategies: FEED_STRATEGIES.map((strategy, i) => ({ strategy, products: (lists[i] ?? []).map(shown) })),
    feed: { products: products.map(shown), removed: [...removed.values()] },
  };
}
