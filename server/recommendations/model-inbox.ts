import type { ServiceEvent } from '../../wire/event.js';
import { program } from '../storage/program.js';
import { insertRows, lockingRows, op, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import type { Storage } from '../storage/storage.js';
import { cardEventsOf, foldCardEvents, type CardTuple } from './feed-card-counts.js';
import { decodeModelEvents, encodeModelEvents, modelEventsOf, updateModels, type ModelEvent } from './model-updater.js';

// The models' inbox: one appended row per stored batch with model events (model-updater.ts says why) or card events
// (the feed report's counts, feed-card-counts.ts), drained in chunks by applyModelInbox. Rows are keyed by a serial
// id, so appends land at the end of the table's one index.

/**
 * Model events per chunk: large enough that popular rows are written once for many batches, small enough that a
 * chunk holds the writer (and the track requests queued behind it) for tens of milliseconds, not seconds.
 */
export const CHUNK_EVENTS = 1000;

/** A batch's newly stored events, as ingestion hands them on in its transaction: `project`'s, received at `now`. */
export interface StoredBatch {
  project: string;
  events: readonly ServiceEvent[];
  now: number;
  /** The batch's `sentAt` (the sender's clock), or null: card events are counted at their skew-corrected time. */
  sentAt?: number | null;
}

/**
 * Appends the model events and card events of newly stored batches to the inbox, in the caller's (ingestion's)
 * transaction: one row per batch that has some. Answers how many events each batch added, in order.
 * @example const added = yield* appendToModelInbox([{ project: 'acme/shop', events: stored, now }]);
 */
export function* appendToModelInbox(batches: readonly StoredBatch[]): SqlProgram<number[]> {
  const counts: number[] = [];
  const rows: [string, number, string, string | null][] = [];
  for (const batch of batches) {
    const events = modelEventsOf(batch.events, batch.now);
    const cards = cardEventsOf(batch.events, batch.now, batch.sentAt ?? null);
    const size = events.length + cards.length;
    counts.push(size);
    if (size > 0) rows.push([batch.project, size, encodeModelEvents(events), cards.length > 0 ? JSON.stringify(cards) : null]);
  }
  if (rows.length > 0) yield insertRows('INSERT INTO model_inbox (project, size, events, cards)', rows);
  return counts;
}

/** Inbox rows read per statement while a chunk is gathered. */
const PAGE_ROWS = 64;

/** Ids per DELETE: well under both databases' bound-parameter limits. */
const DELETE_IDS = 500;

/**
 * What one chunk applied. `more` is false once the inbox had nothing left past the chunk (as this transaction saw it).
 */
export interface AppliedChunk {
  rows: number;
  events: number;
  more: boolean;
}

/**
 * Applies the oldest inbox rows, about `maxEvents` model events (at least one row), to the models and deletes them, in
 * one transaction: each row is applied exactly once, and a crash before the commit leaves it for the next chunk. The
 * rows read are locked, skipping those another transaction holds, so the appliers of several nodes take different rows.
 * @example const { more } = await storage.place(APPLY_MODELS, 5000);
 */
export function* applyModelInbox(maxEvents: number): SqlProgram<AppliedChunk> {
  if (!(maxEvents >= 1)) throw new RangeError(`maxEvents must be at least 1, not ${maxEvents}`);
  const ids: number[] = [];
  const byProject = new Map<string, ModelEvent[]>();
  const cardsOf = new Map<string, CardTuple[]>();
  let events = 0;
  let after = 0;
  let more = true;
  while (events < maxEvents) {
    // Each row holds at least one event: a page never takes more rows than the chunk has room for.
    const limit = Math.min(PAGE_ROWS, maxEvents - events);
    const { rows } = yield lockingRows(op('SELECT id, project, events, cards FROM model_inbox WHERE id > ? ORDER BY id LIMIT ?', after, limit), 'skip');
    for (const r of rows) {
      const id = num(r.id);
      const decoded = decodeModelEvents(str(r.events));
      const cards = r.cards === null || r.cards === undefined ? [] : (JSON.parse(str(r.cards)) as CardTuple[]);
      ids.push(id);
      after = id;
      events += decoded.length + cards.length;
      const project = str(r.project);
      const list = byProject.get(project);
      if (list === undefined) byProject.set(project, decoded);
      else for (const e of decoded) list.push(e);
      const projectCards = cardsOf.get(project);
      if (projectCards === undefined) cardsOf.set(project, cards);
      else for (const c of cards) projectCards.push(c);
    }
    if (rows.length < limit) {
      more = false;
      break;
    }
  }
  // Projects in order: the lock order of every model write (model-updater.ts).
  for (const project of [...byProject.keys()].sort()) {
    yield* updateModels(project, byProject.get(project)!);
    yield* foldCardEvents(project, cardsOf.get(project)!);
  }
  for (let i = 0; i < ids.length; i += DELETE_IDS) {
    const chunk = ids.slice(i, i + DELETE_IDS);
    yield op(`DELETE FROM model_inbox WHERE id IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
  }
  return { rows: ids.length, events, more };
}

/**
 * One chunk of the inbox applied (applyModelInbox): derived data, on the background lane. Its commit need not wait for
 * the disk: a chunk a crash loses takes its inbox rows' deletion with it, so those rows are applied again.
 */
export const APPLY_MODELS = program('models.apply', 'background', applyModelInbox);

/** Inbox rows `modelInboxWaiting` reads at most: the inbox grows while the models fail, and the read is on a poll. */
const WAITING_PROBE_ROWS = 5000;

/**
 * Model events in the oldest inbox rows (any node's), up to `WAITING_PROBE_ROWS` rows: 0 when the inbox is empty, and
 * what a poll's pass applies (the next poll takes the rest).
 */
export function* modelInboxWaiting(): SqlProgram<number> {
  const { rows } = yield op(
    'SELECT COALESCE(SUM(size), 0) AS events FROM (SELECT size FROM model_inbox ORDER BY id LIMIT ?) AS oldest', WAITING_PROBE_ROWS,
  );
  return num(rows[0]?.events ?? 0);
}

/**
 * Applies the whole inbox: for tools, benches and tests that store batches through `ingestBatch` rather than a
 * running service (whose applier does it).
 * @example await ingestBatch(storage, 'acme/shop', 'web', events); await applyModelsNow(storage);
 */
export async function applyModelsNow(storage: Storage, maxEvents = CHUNK_EVENTS): Promise<void> {
  while ((await storage.place(APPLY_MODELS, maxEvents)).more);
}
