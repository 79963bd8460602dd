import type { ServiceEvent } from '../../wire/event.js';
import { insertRows, valuesOp, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import type { ImpressionCount } from './feed-attribution.js';

// The feed report's impressions and clicks, counted as card events arrive (migration 26's feed_card_counts): each
// stored `Product impression` / `Product clicked` with a recommendationId goes into the models' inbox with the batch
// (model-inbox.ts), and the applier folds it here, in the transaction that deletes its inbox row, so each stored card
// event counts exactly once (a resend stores nothing new, a rolled-back batch appends nothing). Counted as the report
// counted events: only ids the service issued, only products of that answer, with the feed, strategy and place (its
// index there plus one) the service recorded, on the UTC day of the event's time (its timestamp corrected for the
// batch's clock skew, never later than its receipt: EVENT_TIME). No person's ids are kept.

const DAY_MS = 86_400_000;
const CARD_NAMES = new Set(['Product impression', 'Product clicked']);
/** As ingestion keeps it in `events.recommendation_id`: a string of at most 64 characters. */
const MAX_ID_LENGTH = 64;
/** Ids per lookup and rows per upsert: well under both databases' bound-parameter limits. */
const CHUNK = 400;

/** What the counts need of one card event: [name, productId, time (EVENT_TIME), recommendationId]. */
export type CardTuple = [string, string, number, string];

/**
 * The card events of a batch as the report would read them from the stored rows: product events named `Product
 * impression` or `Product clicked` with a product id and a recommendationId, at their time on the service's clock.
 * `now` is the batch's receipt, `sentAt` its `sentAt` (the sender's clock) or null.
 */
export function cardEventsOf(events: readonly ServiceEvent[], now: number, sentAt: number | null): CardTuple[] {
  const out: CardTuple[] = [];
  for (const event of events) {
    if (event.type !== 'product' || !CARD_NAMES.has(event.name)) continue;
    const id = event.data?.recommendationId;
    const product = event.data?.productId;
    if (typeof id !== 'string' || id.length > MAX_ID_LENGTH || (typeof product !== 'string' && typeof product !== 'number')) continue;
    const ts = Date.parse(event.timestamp);
    const sent = sentAt === null ? ts : now - (sentAt - ts);
    out.push([event.name, String(product), sent < now ? sent : now, id]);
  }
  return out;
}

/** The UTC day number of a time (as the database's integer division, rounded down). */
export const dayNumber = (at: number): number => Math.floor(at / DAY_MS);

/**
 * Adds card events of `project` to feed_card_counts: their recommendations read in chunks, the counts summed in
 * memory and upserted in key order (concurrent appliers on PostgreSQL lock rows in one order). Each event must be
 * folded once (the applier deletes its inbox row in the same transaction).
 */
export function* foldCardEvents(project: string, cards: readonly CardTuple[]): SqlProgram<void> {
  if (cards.length === 0) return;
  const ids = [...new Set(cards.map((c) => c[3]))];
  const issued = new Map<string, { feedId: number; strategy: string; products: string[] }>();
  for (let i = 0; i < ids.length; i += CHUNK) {
    const chunk = ids.slice(i, i + CHUNK);
    const { values = [] } = yield valuesOp(
      `SELECT recommendation_id, feed_id, strategy, products FROM recommendations
       WHERE project = ? AND recommendation_id IN (${chunk.map(() => '?').join(', ')})`,
      project, ...chunk,
    );
    for (const [id, feedId, strategy, products] of values) {
      issued.set(str(id), { feedId: num(feedId), strategy: str(strategy), products: JSON.parse(str(products)) as string[] });
    }
  }
  const counts = new Map<string, { key: [number, number, string, number]; impressions: number; clicks: number }>();
  for (const [name, productId, at, id] of cards) {
    const r = issued.get(id);
    if (r === undefined) continue;
    const position = r.products.indexOf(productId) + 1;
    if (position === 0) continue;
    const key: [number, number, string, number] = [r.feedId, dayNumber(at), r.strategy, position];
    const text = JSON.stringify(key);
    let count = counts.get(text);
    if (count === undefined) counts.set(text, (count = { key, impressions: 0, clicks: 0 }));
    if (name === 'Product impression') count.impressions++;
    else count.clicks++;
  }
  const rows = [...counts.values()].sort((a, b) => compareKeys(a.key, b.key));
  for (let i = 0; i < rows.length; i += CHUNK) {
    const values: SqlValue[][] = rows.slice(i, i + CHUNK).map((r) => [project, ...r.key, r.impressions, r.clicks]);
    yield insertRows(
      'INSERT INTO feed_card_counts (project, feed_id, day, strategy, position, impressions, clicks)', values,
      `ON CONFLICT (project, feed_id, day, strategy, position) DO UPDATE SET
         impressions = feed_card_counts.impressions + excluded.impressions, clicks = feed_card_counts.clicks + excluded.clicks`,
    );
  }
}

function compareKeys(a: [number, number, string, number], b: [number, number, string, number]): number {
  return a[0] - b[0] || a[1] - b[1] || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0) || a[3] - b[3];
}

/** The feed's counted impressions on the days [fromDay, toDay), by day, strategy and place. */
export function* countedImpressions(project: string, feedId: number, fromDay: number, toDay: number): SqlProgram<ImpressionCount[]> {
  const { values = [] } = yield valuesOp(
    `SELECT day, strategy, position, impressions FROM feed_card_counts
     WHERE project = ? AND feed_id = ? AND day >= ? AND day < ? AND impressions > 0`,
    project, feedId, fromDay, toDay,
  );
  return values.map(([day, strategy, position, impressions]) => ({
    at: num(day) * DAY_MS, strategy: str(strategy), position: num(position), count: num(impressions),
  }));
}
