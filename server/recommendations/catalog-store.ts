import type { ProductConfig } from '../config/config-types.js';
import type { Storage } from '../storage/storage.js';
import { patchProductsProgram, upsertProductsProgram, type PatchResult } from './catalog-program.js';
import type { ProductPatch } from './validate-catalog-patch.js';
import { feedProgram } from './feed-program.js';
import type { FeedQuery } from './feed-query.js';
import { rulesFeedProgram, type FeedPlan, type RemovalCollector } from './feed-rules-program.js';

/**
 * Upserts catalog products (each replaces the stored product with its id) in ONE transaction; answers the number of
 * distinct products written.
 */
export function upsertProducts(storage: Storage, project: string, products: readonly ProductConfig[]): Promise<number> {
  if (products.length === 0) return Promise.resolve(0);
  const now = Date.now();
  return storage.transaction(() => upsertProductsProgram(project, products, now), { rows: products.length });
}

/** Applies partial updates (stock, availability, price) to stored products in ONE transaction. */
export function patchProducts(storage: Storage, project: string, patches: readonly ProductPatch[]): Promise<PatchResult> {
  const now = Date.now();
  return storage.transaction(() => patchProductsProgram(project, patches, now), { rows: patches.length });
}

/** A feed's products (stored catalog objects) from the incrementally maintained models (feed-program.ts). */
export function recommend(storage: Storage, project: string, query: FeedQuery): Promise<ProductConfig[]> {
  return storage.run(() => feedProgram(project, query));
}

/** A feed's products with its merchandising rules applied (feed-rules-program.ts). */
export function recommendWithRules(
  storage: Storage, project: string, query: FeedQuery, plan: FeedPlan, collect?: RemovalCollector,
): Promise<ProductConfig[]> {
  return storage.run(() => rulesFeedProgram(project, query, plan, collect));
}
