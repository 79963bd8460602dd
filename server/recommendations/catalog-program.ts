import type { ProductConfig } from '../config/config-types.js';
import { op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';

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
