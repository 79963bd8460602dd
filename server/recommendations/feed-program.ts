import type { ProductConfig } from '../config/config-types.js';
import { op, type SqlProgram, type SqlRow, type SqlValue } from '../storage/sql-program.js';
import type { FeedQuery } from './feed-query.js';
import type { BasketKind } from './model-updater.js';

// Reads of the models maintained by model-updater.ts: every strategy is one or two indexed range reads joined
// to the catalog (so unavailable products are filtered before LIMIT), then a popular fill. Every ORDER BY ends
// with the product id, so SQLite and PostgreSQL answer the same list.

/** How many of the profile's latest views personalize the feed. */
export const PERSONAL_HISTORY = 10;
/** Neighbours read per history product. */
const NEIGHBOURS_PER_ITEM = 50;
/** Bought together says more about taste than viewed together. */
const KIND_WEIGHT: Record<BasketKind, number> = { session: 1, order: 2 };

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
const marks = (n: number): string => new Array<string>(n).fill('?').join(', ');

function toProduct(row: SqlRow): ProductConfig {
  return JSON.parse(String(row.data)) as ProductConfig;
}

/** SQL conditions on the catalog row `c` (` AND …`), with their parameters. */
export interface CatalogWhere {
  sql: string;
  params: SqlValue[];
}
const NO_WHERE: CatalogWhere = { sql: '', params: [] };

/** Rows one source reads at most for one request, however many a filter rejects: the bound on a request's cost. */
export const MAX_SCAN = 10_000;

/**
 * Collects products up to `limit`, skipping excluded ids and ids already taken, and (with `accept`) products a feed's
 * filters reject; a rejected id counts as taken, so a later read of the same source skips it too.
 */
export class Picker {
  readonly products: ProductConfig[] = [];
  private readonly taken: Set<string>;

  /**
   * `where`: conditions on the catalog row `c` that narrow what a source reads (` AND …` and its parameters), which the
   * database checks before a row is fetched and parsed; `accept` still decides.
   */
  constructor(
    readonly limit: number, exclude: Iterable<string>, private readonly accept?: (product: ProductConfig) => boolean,
    readonly where: CatalogWhere = NO_WHERE,
  ) {
    this.taken = new Set(exclude);
  }

  /** Whether the id was taken or excluded already. */
  has(id: string): boolean {
    return this.taken.has(id);
  }

  get full(): boolean {
    return this.products.length >= this.limit;
  }

  /** How many rows to ask for so that `limit` remain after skipping everything already taken or excluded. */
  get ask(): number {
    return this.limit + this.taken.size;
  }

  add(rows: readonly SqlRow[]): void {
    for (const row of rows) {
      if (this.full) return;
      const id = String(row.product_id);
      if (this.taken.has(id)) continue;
      this.taken.add(id);
      const product = toProduct(row);
      if (this.accept === undefined || this.accept(product)) this.products.push(product);
    }
  }
}

/**
 * Reads a source's rows (`read(n)`: its first n, in one fixed order) into the picker, asking again for four times as
 * many while a filter rejected so many that the picker is not full (at most MAX_SCAN rows). Without a filter the first
 * read fills the picker or holds every row, as before. Answers whether the source ran out.
 */
function* pickAll(picker: Picker, read: (n: number) => SqlProgram<SqlRow[]>): SqlProgram<boolean> {
  let ask = picker.ask;
  for (;;) {
    const rows = yield* read(ask);
    picker.add(rows);
    if (rows.length < ask) return true;
    if (picker.full || ask >= MAX_SCAN) return false;
    ask = Math.min(MAX_SCAN, Math.max(picker.ask, ask * 4));
  }
}

// Pairs seen at least twice are in the partial rank index (count >= 2, migration 4), those seen once only in the
// primary key, in b order. Repeats by (count DESC, b), then singles by b, IS the list ORDER BY count DESC, b; the
// literal `count >= 2` / `count = 1` lets both databases use the partial index and the key range respectively.
const REPEATED = { part: 'o.count >= 2 ORDER BY o.count DESC, o.b', order: 'n.count DESC, n.b' };
const SINGLE = { part: 'o.count = 1 ORDER BY o.b', order: 'n.b' };

function* together(project: string, kind: BasketKind, productId: string, picker: Picker): SqlProgram<void> {
  for (const { part, order } of [REPEATED, SINGLE]) {
    yield* pickAll(picker, function* (ask) {
      if (picker.where.sql === '') {
        const { rows } = yield op(
          `SELECT c.product_id, c.data FROM co_occurrence o
           JOIN catalog_products c ON c.project = o.project AND c.product_id = o.b
           WHERE o.project = ? AND o.kind = ? AND o.a = ? AND c.available = 1 AND ${part} LIMIT ?`,
          project, kind, productId, ask,
        );
        return rows;
      }
      // Narrowed by the database: its first MAX_SCAN neighbours at most, the bound a filtered read has everywhere.
      const { rows } = yield op(
        `SELECT c.product_id, c.data FROM (SELECT o.b, o.count FROM co_occurrence o
           WHERE o.project = ? AND o.kind = ? AND o.a = ? AND ${part} LIMIT ?) n
         JOIN catalog_products c ON c.project = ? AND c.product_id = n.b
         WHERE c.available = 1${picker.where.sql} ORDER BY ${order} LIMIT ?`,
        project, kind, productId, MAX_SCAN, project, ...picker.where.params, ask,
      );
      return rows;
    });
    if (picker.full) return;
  }
}

function* recentlyViewed(project: string, profileId: string, picker: Picker): SqlProgram<void> {
  yield* pickAll(picker, function* (ask) {
    const { rows } = yield op(
      `SELECT c.product_id, c.data FROM profile_recent r
       JOIN catalog_products c ON c.project = r.project AND c.product_id = r.product_id
       WHERE r.project = ? AND r.profile_id = ? AND c.available = 1${picker.where.sql}
       ORDER BY r.last_seen DESC, r.product_id LIMIT ?`,
      project, profileId, ...picker.where.params, ask,
    );
    return rows;
  });
}

/** Up to `n` co-occurrence rows per (kind, a), in `part`'s order: one UNION ALL of LIMITed branches, one round trip. */
function* topNeighbours(
  project: string, branches: readonly { kind: BasketKind; a: string; n: number }[], part: string,
): SqlProgram<SqlRow[]> {
  const params: SqlValue[] = [];
  const sql = branches.map((b, i) => {
    params.push(project, b.kind, b.a, b.n);
    return `SELECT * FROM (SELECT o.kind, o.a, o.b, o.count FROM co_occurrence o
      WHERE o.project = ? AND o.kind = ? AND o.a = ? AND ${part} LIMIT ?) AS t${i}`;
  }).join(' UNION ALL ');
  const { rows } = yield op(sql, ...params);
  return rows;
}

/**
 * Item-to-item from the profile's history: each of the latest PERSONAL_HISTORY viewed products votes for its
 * co-occurring neighbours with count × kind weight ÷ (its recency rank + 1). Products the profile ever viewed (all of
 * its recent views, not only these) are not recommended by this step (the popular fill may still show them).
 */
function* personalized(project: string, profileId: string, picker: Picker): SqlProgram<void> {
  const { rows: history } = yield op(
    `SELECT product_id FROM profile_recent WHERE project = ? AND profile_id = ?
     ORDER BY last_seen DESC, product_id LIMIT ?`,
    project, profileId, PERSONAL_HISTORY,
  );
  if (history.length === 0) return;
  const ids = history.map((r) => String(r.product_id));
  const rank = new Map(ids.map((id, i) => [id, i]));
  // Top NEIGHBOURS_PER_ITEM neighbours per (kind, history product) by (count DESC, b): one LIMITed branch per pair
  // over the partial rank index, then the pairs seen once for the branches that came back short.
  const branches = (['session', 'order'] as const).flatMap((kind) => ids.map((a) => ({ kind, a })));
  const neighbours: SqlRow[] = [];
  const repeated = yield* topNeighbours(project, branches.map((b) => ({ ...b, n: NEIGHBOURS_PER_ITEM })), REPEATED.part);
  neighbours.push(...repeated);
  const got = new Map<string, number>();
  for (const r of repeated) {
    const key = `${String(r.kind)}\u0000${String(r.a)}`;
    got.set(key, (got.get(key) ?? 0) + 1);
  }
  const short = branches.map((b) => ({ ...b, n: NEIGHBOURS_PER_ITEM - (got.get(`${b.kind}\u0000${b.a}`) ?? 0) }))
    .filter((b) => b.n > 0);
  if (short.length > 0) neighbours.push(...yield* topNeighbours(project, short, SINGLE.part));
  // Votes are float sums: add them in one fixed order so that both databases (any row order) rank alike.
  neighbours.sort((x, y) => compare(String(x.kind), String(y.kind)) || compare(String(x.a), String(y.a)) || compare(String(x.b), String(y.b)));
  const votes = new Map<string, number>();
  for (const r of neighbours) {
    const b = String(r.b);
    if (rank.has(b)) continue;
    const kind = String(r.kind) as BasketKind;
    const weight = (KIND_WEIGHT[kind] ?? 1) * Number(r.count) / ((rank.get(String(r.a)) ?? 0) + 1);
    votes.set(b, (votes.get(b) ?? 0) + weight);
  }
  if (votes.size === 0) return;
  const ranked = [...votes.entries()].sort(([a, x], [b, y]) => y - x || compare(a, b)).map(([id]) => id);
  // A window of the ranking at a time (four times the last while a filter rejects what it held).
  for (let start = 0, size = picker.ask * 2; start < ranked.length && !picker.full && start < MAX_SCAN; start += size, size *= 4) {
    const window = ranked.slice(start, start + size);
    // Not what the profile viewed, however long ago: the history above is only its latest views.
    const { rows } = yield op(
      `SELECT c.product_id, c.data FROM catalog_products c
       WHERE c.project = ? AND c.available = 1${picker.where.sql} AND c.product_id IN (${marks(window.length)})
         AND NOT EXISTS (SELECT 1 FROM profile_recent r WHERE r.project = c.project AND r.profile_id = ? AND r.product_id = c.product_id)`,
      project, ...picker.where.params, ...window, profileId,
    );
    const byId = new Map(rows.map((r) => [String(r.product_id), r]));
    picker.add(window.flatMap((id) => {
      const row = byId.get(id);
      return row ? [row] : [];
    }));
  }
}

/**
 * The popular fill: available products by decayed score, then (a new shop without events) available products
 * that have no score yet, by id. If the first read came back short, it held every scored available product, so
 * the second read only needs the unscored ones.
 */
export function* popular(project: string, picker: Picker): SqlProgram<void> {
  const ranOut = yield* pickAll(picker, function* (ask) {
    const { rows } = yield op(
      `SELECT c.product_id, c.data FROM product_scores s
       JOIN catalog_products c ON c.project = s.project AND c.product_id = s.product_id
       WHERE s.project = ? AND c.available = 1${picker.where.sql}
       ORDER BY s.score DESC, s.product_id LIMIT ?`,
      project, ...picker.where.params, ask,
    );
    return rows;
  });
  if (picker.full || !ranOut) return;
  yield* unscored(project, picker);
}

/** Available products without a score yet (a new shop, a new product), by id. */
export function* unscored(project: string, picker: Picker): SqlProgram<void> {
  yield* pickAll(picker, function* (ask) {
    const { rows } = yield op(
      `SELECT c.product_id, c.data FROM catalog_products c
       WHERE c.project = ? AND c.available = 1${picker.where.sql}
         AND NOT EXISTS (SELECT 1 FROM product_scores s WHERE s.project = c.project AND s.product_id = c.product_id)
       ORDER BY c.product_id LIMIT ?`,
      project, ...picker.where.params, ask,
    );
    return rows;
  });
}

/** The strategy's own list (no popular fill): what `query.strategy` reads, into the picker. */
export function* strategyProducts(project: string, query: FeedQuery, picker: Picker): SqlProgram<void> {
  switch (query.strategy) {
    case 'viewed-together':
    case 'bought-together':
      if (query.productId !== undefined) {
        yield* together(project, query.strategy === 'viewed-together' ? 'session' : 'order', query.productId, picker);
      }
      break;
    case 'recently-viewed':
      yield* recentlyViewed(project, query.profileId, picker);
      break;
    case 'personalized':
      yield* personalized(project, query.profileId, picker);
      break;
    case 'popular':
      yield* popular(project, picker);
      break;
  }
}

/**
 * A feed's products for one request: the strategy's list, then popular products to fill `limit`; never the
 * current product nor one already on the page, never twice, never an unavailable one. Products are the stored catalog objects.
 */
export function* feedProgram(project: string, query: FeedQuery): SqlProgram<ProductConfig[]> {
  const picker = new Picker(query.limit, [...(query.productId !== undefined ? [query.productId] : []), ...(query.onPage ?? [])]);
  yield* strategyProducts(project, query, picker);
  if (!picker.full && query.strategy !== 'popular') yield* popular(project, picker);
  return picker.products;
}
