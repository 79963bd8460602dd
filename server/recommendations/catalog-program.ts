import type { ProductConfig } from '../config/config-types.js';
import { op, valuesOp, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';
import type { ProductPatch } from './validate-catalog-patch.js';

/** Rows per multi-row upsert (5 parameters each): under SQLite's and PostgreSQL's parameter limits. */
const CHUNK_ROWS = 500;

/**
 * Upserts products (each replaces the stored product with the same id) in chunked multi-row statements; run in
 * one transaction by the caller, so an upload is stored whole or not at all. A repeated id keeps its last
 * occurrence (PostgreSQL refuses one statement that updates a row twice, so duplicates are folded first).
 * @returns how many distinct products were written.
 */
export function* upsertProductsProgram(project: string, products: readonly ProductConfig[], now: number): SqlProgram<number> {
  const byId = new Map<string, ProductConfig>();
  for (const product of products) byId.set(product.id, product);
  // Sorted: concurrent uploads lock rows in one order.
  const ids = [...byId.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < ids.length; i += CHUNK_ROWS) {
    const chunk = ids.slice(i, i + CHUNK_ROWS);
    const params: SqlValue[] = [];
    for (const id of chunk) {
      const product = byId.get(id) as ProductConfig;
      params.push(project, id, product.available === false ? 0 : 1, JSON.stringify(product), now);
    }
    yield* recordPriceChanges(project, chunk.map((id) => byId.get(id) as ProductConfig), now);
    yield op(
      `INSERT INTO catalog_products (project, product_id, available, data, updated_at)
       VALUES ${chunk.map(() => '(?, ?, ?, ?, ?)').join(', ')}
       ON CONFLICT (project, product_id) DO UPDATE
       SET available = excluded.available, data = excluded.data, updated_at = excluded.updated_at`,
      ...params,
    );
  }
  return ids.length;
}

const priceOf = (product: { price?: unknown; currency?: unknown }): string =>
  JSON.stringify([typeof product.price === 'number' ? product.price : null, typeof product.currency === 'string' ? product.currency : null]);

/**
 * Adds a row to catalog_prices for each product whose price or currency this write changes (or that is new), so an
 * order without a price is priced as the catalog priced it then (feed-report-program.ts). A write that changes
 * neither (a reload seeding the same catalog) adds nothing.
 */
function* recordPriceChanges(project: string, products: readonly ProductConfig[], now: number): SqlProgram<void> {
  const { values = [] } = yield valuesOp(
    `SELECT product_id, data FROM catalog_products WHERE project = ? AND product_id IN (${products.map(() => '?').join(', ')})`,
    project, ...products.map((p) => p.id),
  );
  const stored = new Map(values.map(([id, data]) => [str(id), priceOf(JSON.parse(str(data)) as ProductConfig)]));
  const changed = products.filter((p) => stored.get(p.id) !== priceOf(p));
  if (changed.length === 0) return;
  const params: SqlValue[] = [];
  for (const p of changed) {
    params.push(project, p.id, now, typeof p.price === 'number' ? p.price : null, typeof p.currency === 'string' ? p.currency : null);
  }
  yield op(
    `INSERT INTO catalog_prices (project, product_id, since, price, currency)
     VALUES ${changed.map(() => '(?, ?, ?, ?, ?)').join(', ')}
     ON CONFLICT (project, product_id, since) DO UPDATE SET price = excluded.price, currency = excluded.currency`,
    ...params,
  );
}

/** What a partial update did: how many stored products it found (changed or already so), and the ids it did not. */
export interface PatchResult {
  updated: number;
  notFound: string[];
}

/**
 * Applies partial updates to stored products (a repeated id: its updates in order), run in one transaction by the
 * caller. A product the catalog does not hold is not created (a stock count is no product) but reported in `notFound`;
 * a product the update leaves as it was is not written again. Price changes are recorded like a PUT's.
 */
export function* patchProductsProgram(project: string, patches: readonly ProductPatch[], now: number): SqlProgram<PatchResult> {
  const byId = new Map<string, ProductPatch>();
  for (const patch of patches) byId.set(patch.id, { ...byId.get(patch.id), ...patch });
  const ids = [...byId.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const changed: ProductConfig[] = [];
  const notFound: string[] = [];
  for (let i = 0; i < ids.length; i += CHUNK_ROWS) {
    const chunk = ids.slice(i, i + CHUNK_ROWS);
    const { values = [] } = yield valuesOp(
      `SELECT product_id, data FROM catalog_products WHERE project = ? AND product_id IN (${chunk.map(() => '?').join(', ')})`,
      project, ...chunk,
    );
    const stored = new Map(values.map(([id, data]) => [str(id), JSON.parse(str(data)) as ProductConfig]));
    for (const id of chunk) {
      const product = stored.get(id);
      if (product === undefined) {
        notFound.push(id);
        continue;
      }
      const next = { ...product, ...byId.get(id) } as ProductConfig;
      if (JSON.stringify(next) !== JSON.stringify(product)) changed.push(next);
    }
  }
  if (changed.length > 0) yield* upsertProductsProgram(project, changed, now);
  return { updated: ids.length - notFound.length, notFound };
}
