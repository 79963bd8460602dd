import type { FeedConditions, ProductConfig } from '../config/config-types.js';
import { op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';
import type { Storage } from '../storage/storage.js';
import { popular, unscored, type CatalogWhere, type Picker } from './feed-program.js';

// Popular products narrowed by a filter (the page's category, a brand). The database can only find the category's most
// popular products by walking the whole ranking and looking each product up (forty rows read for each one kept, in a
// shop of forty categories: milliseconds a request), so the ranking's head is kept in memory with the two fields a
// narrowing reads, per project, for RANKING_TTL_MS: a product's popularity moves over days, and a new one shows after at
// most that long. The products themselves are always read fresh (available, with today's price), and the feed's rules
// run on them.

/** String fields the catalog validates, whose equality a source can check before it reads a product. */
const NARROWING_FIELDS = ['category', 'brand'] as const;
/** An `in` longer than this is checked on the products read only. */
const NARROWING_IN_MAX = 50;
/** Products of the ranking kept: the head a narrowed list is found in, but for the rarest categories. */
export const RANKING_SIZE = 5000;
export const RANKING_TTL_MS = 10_000;

/** Equality conditions a product must meet: each field's value among `values`. */
export type Narrowing = readonly { field: (typeof NARROWING_FIELDS)[number]; values: readonly string[] }[];

/** The popular ranking's head: product id, category, brand, best first; `complete`: it held every scored product. */
export interface PopularRanking {
  products: readonly (readonly [string, string | null, string | null])[];
  complete: boolean;
  /** Per field, each value's places in `products`, ascending: a narrowed list without a walk of the whole head. */
  places: Record<(typeof NARROWING_FIELDS)[number], ReadonlyMap<string, readonly number[]>>;
}

const marks = (n: number): string => new Array<string>(n).fill('?').join(', ');

/**
 * The filters' equality conditions on category and brand (and `category`, for popular-in-category): what a source can
 * check before reading a product. Only a narrowing: the filters still run on every product read.
 */
export function narrowing(filters: readonly FeedConditions[], page: ProductConfig | undefined, category?: string): Narrowing {
  const out: { field: (typeof NARROWING_FIELDS)[number]; values: readonly string[] }[] = [];
  for (const filter of filters) {
    for (const field of NARROWING_FIELDS) {
      if (!Object.hasOwn(filter, field)) continue;
      const condition = filter[field];
      if (typeof condition === 'string') out.push({ field, values: [condition] });
      if (typeof condition !== 'object' || Object.keys(condition).length !== 1) continue;
      if (typeof condition.eq === 'string') out.push({ field, values: [condition.eq] });
      else if (condition.in?.every((v) => typeof v === 'string') && condition.in.length <= NARROWING_IN_MAX) out.push({ field, values: condition.in as string[] });
      else if (condition.same === true && page !== undefined && typeof page[field] === 'string') out.push({ field, values: [page[field]] });
    }
  }
  if (category !== undefined) out.push({ field: 'category', values: [category] });
  return out;
}

/** A narrowing as conditions on the catalog row `c` (json_extract: SQLite's, and migration 16's on PostgreSQL). */
export function narrowingSql(narrow: Narrowing): CatalogWhere {
  let sql = '';
  const params: SqlValue[] = [];
  for (const { field, values } of narrow) {
    sql += ` AND json_extract(c.data, '$.${field}') ${values.length === 1 ? '= ?' : `IN (${marks(values.length)})`}`;
    params.push(...values);
  }
  return { sql, params };
}

function* rankingProgram(project: string): SqlProgram<PopularRanking> {
  const { rows } = yield op(
    `SELECT s.product_id, json_extract(c.data, '$.category') AS category, json_extract(c.data, '$.brand') AS brand
     FROM product_scores s JOIN catalog_products c ON c.project = s.project AND c.product_id = s.product_id
     WHERE s.project = ? AND c.available = 1 ORDER BY s.score DESC, s.product_id LIMIT ?`,
    project, RANKING_SIZE,
  );
  const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const products = rows.map((r) => [str(r.product_id), text(r.category), text(r.brand)] as const);
  const places = { category: new Map<string, number[]>(), brand: new Map<string, number[]>() };
  products.forEach(([, category, brand], i) => {
    for (const [map, value] of [[places.category, category], [places.brand, brand]] as const) {
      if (value === null) continue;
      const list = map.get(value);
      if (list) list.push(i);
      else map.set(value, [i]);
    }
  });
  return { products, complete: rows.length < RANKING_SIZE, places };
}

/** The places in the ranking of the products that meet `narrow`, ascending (its first condition's lists, merged). */
function narrowedPlaces(ranking: PopularRanking, narrow: Narrowing): number[] {
  const [first, ...rest] = narrow;
  const places = first!.values.flatMap((value) => ranking.places[first!.field].get(value) ?? []);
  if (first!.values.length > 1) places.sort((a, b) => a - b);
  return places.filter((i) => rest.every(({ field, values }) => {
    const value = ranking.products[i]![field === 'category' ? 1 : 2];
    return value !== null && values.includes(value);
  }));
}

/** Each project's ranking head, read again when older than RANKING_TTL_MS (by the first request that finds it so). */
export class PopularRankings {
  private readonly byProject = new Map<string, { at: number; ranking: Promise<PopularRanking> }>();

  constructor(private readonly storage: Storage, private readonly now: () => number = Date.now) {}

  get(project: string): Promise<PopularRanking> {
    const held = this.byProject.get(project);
    if (held !== undefined && this.now() - held.at < RANKING_TTL_MS) return held.ranking;
    const ranking = this.storage.run(() => rankingProgram(project));
    this.byProject.set(project, { at: this.now(), ranking });
    // A failed read is not kept: the next request reads again.
    void ranking.catch(() => {
      if (this.byProject.get(project)?.ranking === ranking) this.byProject.delete(project);
    });
    return ranking;
  }
}

/**
 * Popular products that meet `narrow`, into the picker: the ranking's matching ids, a window at a time, read fresh
 * (available ones only); then, while the picker is short, unscored products, and the database's whole ranking when
 * the kept head was not all of it.
 */
export function* narrowedPopular(project: string, picker: Picker, ranking: PopularRanking, narrow: Narrowing): SqlProgram<void> {
  const ids = narrowedPlaces(ranking, narrow).map((i) => ranking.products[i]![0]).filter((id) => !picker.has(id));
  for (let start = 0, size = picker.ask; start < ids.length && !picker.full; start += size, size *= 4) {
    const window = ids.slice(start, start + size);
    // The list padded (with its first id) to a power of two: a few statement texts, prepared once each.
    const padded = 2 ** Math.ceil(Math.log2(Math.max(8, window.length)));
    const { rows } = yield op(
      `SELECT c.product_id, c.data FROM catalog_products c
       WHERE c.project = ? AND c.available = 1 AND c.product_id IN (${marks(padded)})`,
      project, ...window, ...new Array<string>(padded - window.length).fill(window[0]!),
    );
    const byId = new Map(rows.map((r) => [str(r.product_id), r]));
    picker.add(window.flatMap((id) => {
      const row = byId.get(id);
      return row ? [row] : [];
    }));
  }
  if (picker.full) return;
  if (ranking.complete) yield* unscored(project, picker);
  else yield* popular(project, picker);
}
