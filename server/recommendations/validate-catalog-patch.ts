import { MAX_ID_LENGTH } from '../../wire/event.js';
import { ServiceError } from '../errors/service-error.js';
import { refuseJsonHazards } from '../http/json-hazards.js';
import { MAX_CATALOG_PRODUCTS } from './catalog-body.js';
import { checkInventory } from './validate-product.js';

/** One item of a `PATCH …/catalog` body: the fields of a stored product a stock or price change sets. */
export interface ProductPatch {
  id: string;
  available?: boolean;
  inventory?: number;
  price?: number;
}

const PATCH_FIELDS = ['id', 'available', 'inventory', 'price'];

function fail(path: string, problem: string): never {
  throw new ServiceError('invalid_product', `${path}: ${problem}`);
}

/**
 * Checks a partial catalog update, `[{id, available?, inventory?, price?}]`: every item is checked before anything is
 * written, so a bad item 17 changes nothing (the message names it: `updates[17].price: must be a number`). Other
 * fields are refused rather than ignored: a title sent here would otherwise be silently lost.
 * @example validateCatalogPatch([{ id: 'p1', inventory: 0, available: false }])
 */
export function validateCatalogPatch(body: unknown): ProductPatch[] {
  if (!Array.isArray(body)) throw new ServiceError('invalid_catalog', 'The body must be a JSON array of {id, available?, inventory?, price?}.');
  if (body.length === 0) throw new ServiceError('invalid_catalog', 'The body holds no updates.');
  if (body.length > MAX_CATALOG_PRODUCTS) throw new ServiceError('invalid_catalog', `A catalog call takes at most ${MAX_CATALOG_PRODUCTS} updates; split it.`);
  return body.map((raw, i) => {
    const path = `updates[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) fail(path, 'must be an object');
    refuseJsonHazards(raw, 'invalid_product', path);
    const item = raw as Record<string, unknown>;
    for (const key of Object.keys(item)) {
      if (!PATCH_FIELDS.includes(key)) fail(`${path}.${key}`, 'is not changed by PATCH (available, inventory, price); PUT the whole product to change it');
    }
    const id = item.id;
    if (typeof id !== 'string' || id.length === 0) fail(`${path}.id`, 'must be a non-empty string');
    if (id.length > MAX_ID_LENGTH) fail(`${path}.id`, `must be at most ${MAX_ID_LENGTH} characters`);
    if (item.available === undefined && item.inventory === undefined && item.price === undefined) {
      fail(path, 'must set at least one of available, inventory, price');
    }
    if (item.available !== undefined && typeof item.available !== 'boolean') fail(`${path}.available`, 'must be a boolean');
    checkInventory(item.inventory, `${path}.inventory`);
    if (item.price !== undefined) {
      if (typeof item.price !== 'number' || !Number.isFinite(item.price)) fail(`${path}.price`, 'must be a number');
      if (item.price < 0) fail(`${path}.price`, 'must be >= 0');
    }
    return item as unknown as ProductPatch;
  });
}
