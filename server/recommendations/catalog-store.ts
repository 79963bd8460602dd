import type { ProductConfig } from '../config/config-types.js';
import type { Storage } from '../storage/storage.js';
import { upsertProductsProgram } from './catalog-program.js';
import { feedProgram } from './feed-program.js';
import type { FeedQuery } from './feed-query.js';

/**
 * Upserts catalog products (each replaces the stored product with its id) in ONE transaction; answers the number of
 * distinct products written.
 */
export function upsertProducts(storage: Storage, project: string, products: readonly ProductConfig[]): Promise<number> {
  if (products.length === 0) return Promise.resolve(0);
  const now = Date.now();
  return storage.transaction(() => upsertProductsProgram(project, products, now), { rows: products.length });
}

/** A feed's products (stored catalog objects) from the incrementally maintained models (feed-program.ts). */
export function recommend(storage: Storage, project: string, query: FeedQuery): Promise<ProductConfig[]> {
  return storage.run(() => feedProgram(project, query));
}
