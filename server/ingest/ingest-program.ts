import type { ServiceEvent } from '../../src/event.js';
import { applyIdentityEffects } from '../identity/identity-programs.js';
import { updateModels } from '../recommendations/model-updater.js';
import { op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';

/** What storing a batch did. */
export interface IngestResult {
  accepted: number;
  duplicates: number;
  /** A stored event (not a duplicate) was an identify or alias: who is whom may have changed (canonical profiles). */
  identityChanged: boolean;
}

// A batch stored once per eventId, with its effects (identity graph, recommendation models) in the same
// transaction, so each stored event counts exactly once and a resend or a rollback adds nothing.

function productIdOf(event: ServiceEvent): string | null {
  const id = event.data?.productId;
  if (event.type !== 'product') return null;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

const EVENT_COLUMNS = 15;
const EVENT_INSERT_HEAD = `INSERT INTO events (project, event_id, source_id, type, name, profile_id, session_id, page_id, user_id,
       account_id, product_id, ts, received_at, sent_at, payload)
     VALUES `;
const ONE_EVENT_ROW = `(${new Array<string>(EVENT_COLUMNS).fill('?').join(', ')})`;
const EVENT_INSERT_ONE = `${EVENT_INSERT_HEAD}${ONE_EVENT_ROW} ON CONFLICT (project, event_id) DO NOTHING`;

function eventRow(project: string, sourceId: string, e: ServiceEvent, now: number, sentAt: number | null): SqlValue[] {
  return [
    project, e.eventId, sourceId, e.type, e.name, e.profileId, e.sessionId, e.pageId,
    e.userId ?? null, e.accountId ?? null, productIdOf(e), Date.parse(e.timestamp), now, sentAt, JSON.stringify(e),
  ];
}

/**
 * Stores one validated batch and applies the effects of its new events. `rowWise`: one single-row INSERT per
 * event instead of one multi-row INSERT … RETURNING. An in-process driver (SQLite) wants it: the statement is
 * prepared once and reused, where a 700-parameter statement costs more to bind and run than 50 small ones;
 * a networked driver (PostgreSQL) wants the single round trip.
 */
export function* ingestProgram(
  project: string, sourceId: string, events: ServiceEvent[], now: number, rowWise = false, sentAt: number | null = null,
): SqlProgram<IngestResult> {
  // Sorted by eventId so that two concurrent transactions take unique-index locks in the same order
  // (PostgreSQL would otherwise be able to deadlock on two resends of overlapping batches).
  const rows = [...events].sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
  const fresh = new Set<string>();
  if (rowWise) {
    // ON CONFLICT DO NOTHING changes no row for a stored eventId (or one repeated earlier in this batch).
    for (const e of rows) {
      const { changes } = yield op(EVENT_INSERT_ONE, ...eventRow(project, sourceId, e, now, sentAt));
      if (changes === 1) fresh.add(e.eventId);
    }
  } else {
    const params: SqlValue[] = [];
    for (const e of rows) params.push(...eventRow(project, sourceId, e, now, sentAt));
    const { rows: inserted } = yield op(
      `${EVENT_INSERT_HEAD}${rows.map(() => ONE_EVENT_ROW).join(', ')}
     ON CONFLICT (project, event_id) DO NOTHING RETURNING event_id`,
      ...params,
    );
    for (const r of inserted) fresh.add(str(r.event_id));
  }
  const accepted = fresh.size;
  // Effects in batch order, once per stored event (a batch may repeat an eventId).
  const stored: ServiceEvent[] = [];
  let identityChanged = false;
  for (const event of events) {
    if (!fresh.delete(event.eventId)) continue;
    yield* applyIdentityEffects(project, event, now);
    stored.push(event);
    if (event.type === 'identify' || event.type === 'alias') identityChanged = true;
  }
  // Recommendation models, in this transaction so they count each stored event exactly once (model-updater.ts).
  yield* updateModels(project, stored, now);
  return { accepted, duplicates: events.length - accepted, identityChanged };
}
