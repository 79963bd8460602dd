import type { ServiceEvent } from '../../wire/event.js';
import { op, type SqlProgram, type SqlRow } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { EVENT_WEIGHTS, scoreContribution } from './decay-score.js';
import { basketOf, modelEventsOf, type BasketKind } from './model-updater.js';

// A person's contribution to the recommendation models, from their stored events: the baskets they filled (an export
// reads them) and taking all of it out again (an erasure), in the updater's own terms and order.

/** The baskets (recommendation models) the person's stored events added products to, as `kind\nid`, in key order. */
export function basketsOf(events: readonly SqlRow[]): [BasketKind, string][] {
  const seen = new Map<string, [BasketKind, string]>();
  for (const e of modelEventsOfRows(events)) {
    const basket = basketOf(e);
    if (basket !== null) seen.set(`${basket[0]}\n${basket[1]}`, basket);
  }
  return [...seen.keys()].sort().map((k) => seen.get(k)!);
}

/** The model events stored event rows made (as ingestion made them, with their time clamped to receipt). */
function modelEventsOfRows(events: readonly SqlRow[]) {
  return events.flatMap((r) => modelEventsOf([JSON.parse(str(r.payload)) as ServiceEvent], num(r.received_at)));
}

/** The basket rows of `baskets`. */
export function* readBaskets(project: string, baskets: readonly [BasketKind, string][]): SqlProgram<SqlRow[]> {
  const out: SqlRow[] = [];
  for (const [kind, id] of baskets) {
    const { rows } = yield op('SELECT * FROM baskets WHERE project = ? AND kind = ? AND basket_id = ? ORDER BY product_id', project, kind, id);
    out.push(...rows);
  }
  return out;
}

/**
 * Takes the person's events out of the recommendation models, exactly: each basket they filled loses its rows and
 * the pair counts it gave co-occurrence (every ordered pair of its products counted one, as the updater counted them),
 * and each product's popularity loses the score the events added (a row left with nothing but rounding goes, as a
 * rebuild would not have it). Writes in the updater's order (co-occurrence, then scores, each by key), so concurrent
 * PostgreSQL transactions lock rows in one order. Answers how many basket rows went.
 */
export function* removeModelContributions(project: string, events: readonly SqlRow[]): SqlProgram<number> {
  let basketRows = 0;
  for (const [kind, id] of basketsOf(events)) {
    const { rows } = yield op('SELECT product_id FROM baskets WHERE project = ? AND kind = ? AND basket_id = ? ORDER BY product_id', project, kind, id);
    const products = rows.map((r) => str(r.product_id));
    for (const a of products) {
      for (const b of products) {
        if (a !== b) yield op('UPDATE co_occurrence SET count = count - 1 WHERE project = ? AND kind = ? AND a = ? AND b = ?', project, kind, a, b);
      }
    }
    if (products.length > 1) {
      const marks = products.map(() => '?').join(', ');
      yield op(
        `DELETE FROM co_occurrence WHERE project = ? AND kind = ? AND a IN (${marks}) AND b IN (${marks}) AND count <= 0`,
        project, kind, ...products, ...products,
      );
    }
    basketRows += (yield op('DELETE FROM baskets WHERE project = ? AND kind = ? AND basket_id = ?', project, kind, id)).changes;
  }
  const scores = new Map<string, number>();
  for (const e of modelEventsOfRows(events)) {
    scores.set(e.productId, (scores.get(e.productId) ?? 0) + scoreContribution(EVENT_WEIGHTS.get(e.name)!, e.at, e.at));
  }
  for (const productId of [...scores.keys()].sort()) {
    const score = scores.get(productId)!;
    yield op('UPDATE product_scores SET score = score - ? WHERE project = ? AND product_id = ?', score, project, productId);
    yield op('DELETE FROM product_scores WHERE project = ? AND product_id = ? AND score <= ?', project, productId, score * 1e-9);
  }
  return basketRows;
}
