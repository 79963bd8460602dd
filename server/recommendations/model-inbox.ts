import { op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import type { Storage } from '../storage/storage.js';
import { CHUNK_EVENTS } from './model-applier.js';
import { decodeModelEvents, encodeModelEvents, updateModels, type ModelEvent } from './model-updater.js';

// The models' inbox: one appended row per stored batch with model events (model-updater.ts says why), drained in
// chunks by applyModelInbox. Rows are keyed by a serial id, so appends land at the end of the table's one index.

/** What one ingestion transaction hands the models: a batch's model events, with the project they belong to. */
export interface InboxEntry {
  project: string;
  events: ModelEvent[];
}

/**
 * Appends entries to the inbox in the caller's (ingestion) transaction; entries without events are skipped.
 * @example yield* appendToModelInbox([{ project: 'acme/shop', events: modelEventsOf(stored, now) }], 'sqlite');
 */
export function* appendToModelInbox(entries: readonly InboxEntry[], dialect: 'sqlite' | 'postgres'): SqlProgram<void> {
  const rows = entries.filter((e) => e.events.length > 0);
  if (rows.length === 0) return;
  if (dialect === 'sqlite') {
    // One prepared single-row statement, reused: cheaper in process than binding a statement per row count.
    for (const r of rows) {
      yield op('INSERT INTO model_inbox (project, size, events) VALUES (?, ?, ?)', r.project, r.events.length, encodeModelEvents(r.events));
    }
    return;
  }
  const params: SqlValue[] = [];
  for (const r of rows) params.push(r.project, r.events.length, encodeModelEvents(r.events));
  yield op(`INSERT INTO model_inbox (project, size, events) VALUES ${rows.map(() => '(?, ?, ?)').join(', ')}`, ...params);
}

/** Inbox rows read per statement while a chunk is gathered. */
const PAGE_ROWS = 64;

/** Ids per DELETE: well under both databases' bound-parameter limits. */
const DELETE_IDS = 500;

/** What one chunk applied. `more` is false once the inbox had nothing left past the chunk (as this transaction saw it). */
export interface AppliedChunk {
  rows: number;
  events: number;
  more: boolean;
}

/**
 * Applies the oldest inbox rows, about `maxEvents` model events (at least one row), to the models and deletes them, in
 * one transaction: each row is applied exactly once, and a crash before the commit leaves it for the next chunk. On
 * PostgreSQL the rows are locked `FOR UPDATE SKIP LOCKED`, so the appliers of several nodes take different rows.
 * @example const { more } = await storage.transaction(() => applyModelInbox('sqlite', 5000));
 */
export function* applyModelInbox(dialect: 'sqlite' | 'postgres', maxEvents: number): SqlProgram<AppliedChunk> {
  if (!(maxEvents >= 1)) throw new RangeError(`maxEvents must be at least 1, not ${maxEvents}`);
  const ids: number[] = [];
  const byProject = new Map<string, ModelEvent[]>();
  let events = 0;
  let after = 0;
  let more = true;
  while (events < maxEvents) {
    // Each row holds at least one event: a page never takes more rows than the chunk has room for.
    const limit = Math.min(PAGE_ROWS, maxEvents - events);
    const { rows } = yield op(
      `SELECT id, project, events FROM model_inbox WHERE id > ? ORDER BY id LIMIT ?${dialect === 'postgres' ? ' FOR UPDATE SKIP LOCKED' : ''}`,
      after, limit,
    );
    for (const r of rows) {
      const id = num(r.id);
      const decoded = decodeModelEvents(str(r.events));
      ids.push(id);
      after = id;
      events += decoded.length;
      const project = str(r.project);
      const list = byProject.get(project);
      if (list === undefined) byProject.set(project, decoded);
      else for (const e of decoded) list.push(e);
    }
    if (rows.length < limit) {
      more = false;
      break;
    }
  }
  // Projects in order: the lock order of every model write (model-updater.ts).
  for (const project of [...byProject.keys()].sort()) yield* updateModels(project, byProject.get(project)!, dialect);
  for (let i = 0; i < ids.length; i += DELETE_IDS) {
    const chunk = ids.slice(i, i + DELETE_IDS);
    yield op(`DELETE FROM model_inbox WHERE id IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
  }
  return { rows: ids.length, events, more };
}

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
 * Applies the whole inbox on the storage's own connection: for tools, benches and tests that store batches through
 * `ingestBatch` rather than a running service (whose applier does it).
 * @example await ingestBatch(storage, 'acme/shop', 'web', events); await applyModelsNow(storage);
 */
export async function applyModelsNow(storage: Storage, maxEvents = CHUNK_EVENTS): Promise<void> {
  while ((await storage.transaction(() => applyModelInbox(storage.dialect, maxEvents))).more);
}
