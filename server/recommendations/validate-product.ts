import { MAX_ID_LENGTH } from '../../wire/event.js';
import type { ProductConfig } from '../config/config-types.js';
import { ServiceError } from '../errors/service-error.js';
import { refuseJsonHazards } from '../http/json-hazards.js';

/** One product as JSON: generous for free fields, bounded so 100,000 products stay within the body limit. */
export const MAX_PRODUCT_BYTES = 16 * 1024;
const STRING_FIELDS = ['title', 'currency', 'url', 'image', 'category', 'brand'] as const;
/** Tags per product: rules match them one by one on every feed request. */
export const MAX_TAGS = 100;

function fail(path: string, problem: string): never {
  throw new ServiceError('invalid_product', `${path}: ${problem}`);
}

/**
 * Checks one catalog item and returns it typed; the message names the item by its index
 * (`products[17].price: must be a number`) so a caller fixes a 100,000-line upload without guessing.
 * @example validateProduct({ id: 'p1', price: 12.5 }, 'products[0]')
 */
export function validateProduct(raw: unknown, path: string): ProductConfig {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(path, 'must be an object');
  refuseJsonHazards(raw, 'invalid_product', path);
  const product = raw as Record<string, unknown>;
  const id = product.id;
  if (typeof id !== 'string' || id.length === 0) fail(`${path}.id`, 'must be a non-empty string');
  if (id.length > MAX_ID_LENGTH) fail(`${path}.id`, `must be at most ${MAX_ID_LENGTH} characters`);
  for (const field of STRING_FIELDS) {
    if (product[field] !== undefined && typeof product[field] !== 'string') fail(`${path}.${field}`, 'must be a string');
  }
  if (product.price !== undefined) {
    if (typeof product.price !== 'number' || !Number.isFinite(product.price)) fail(`${path}.price`, 'must be a number');
    if (product.price < 0) fail(`${path}.price`, 'must be >= 0');
  }
  if (product.available !== undefined && typeof product.available !== 'boolean') fail(`${path}.available`, 'must be a boolean');
  if (product.tags !== undefined) {
    if (!Array.isArray(product.tags) || !product.tags.every((tag) => typeof tag === 'string')) fail(`${path}.tags`, 'must be an array of strings');
    if (product.tags.length > MAX_TAGS) fail(`${path}.tags`, `must have at most ${MAX_TAGS} tags`);
  }
  checkInventory(product.inventory, `${path}.inventory`);
  if (JSON.stringify(product).length > MAX_PRODUCT_BYTES) fail(path, `must be at most ${MAX_PRODUCT_BYTES} bytes as JSON`);
  return product as ProductConfig;
}

/** A shop's stock count: any finite number (Shopify's goes below 0 when a product is oversold). */
export function checkInventory(value: unknown, path: string): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isFinite(value))) fail(path, 'must be a number');
}
