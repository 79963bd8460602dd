import type { ServiceEvent } from '../../src/event.js';
import { applyIdentityEffects } from '../identity/identity-programs.js';
import { appendToModelInbox, type InboxEntry } from '../recommendations/model-inbox.js';
import { modelEventsOf } from '../recommendations/model-updater.js';
import { erasureLock, suppressedIds } from '../privacy/suppressions.js';
import { op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { str } from '../storage/sql-values.js';

/** What storing a batch did. */
export interface IngestResult {
  accepted: number;
  duplicates: number;
  /** Events naming an erased person (the suppression list): answered as accepted, stored nowhere. Absent when none. */
  suppressed?: number;
  /** A stored event (not a duplicate) was an identify or alias: who is whom may have changed (canonical profiles). */
  identityChanged: boolean;
  /** Stored events the recommendation models will count, now in their inbox (model-inbox.ts). */
  modelEvents: number;
}

// A batch stored once per eventId, with its effects (identity graph; the recommendation models' inbox) in the same
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

/** One validated batch, as a track request brought it. */
export interface IngestInput {
  project: string;
  sourceId: string;
  events: ServiceEvent[];
  /** When the service received it (epoch ms). */
  now: number;
  /** The batch's `sentAt` (epoch ms, the sender's clock), or null. */
  sentAt: number | null;
}

/** Rows per multi-row INSERT: 15 parameters each, well under PostgreSQL's 65,535. */
const INSERT_ROWS = 2000;

const byEventId = (a: ServiceEvent, b: ServiceEvent): number => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/**
 * Stores validated batches in the caller's transaction, with the effects of their new events: identity links, and
 * their model events appended to the models' inbox. On SQLite, one single-row INSERT per event instead of multi-row
 * INSERT … RETURNING. An in-process driver wants it: the statement is prepared once and reused, where a 700-parameter
 * statement costs more to bind and run than 50 small ones; a networked driver (PostgreSQL) wants few round trips,
 * so it also takes several batches at once (the group commit of event-store.ts): one INSERT for all their events and
 * one for their inbox rows. An eventId stored by this program counts for the first batch that carries it; a later
 * batch (or a resend) finds it a duplicate.
 */
/**
 * The batches without the events that name a suppressed profile or user (an erased person's old outbox), read in the
 * storing transaction: nothing of theirs is stored once their erasure has begun. One indexed read per distinct id.
 */
function* withoutSuppressed(batches: readonly IngestInput[], dialect: 'sqlite' | 'postgres'): SqlProgram<IngestInput[]> {
  const byProject = new Map<string, { profiles: Set<string>; users: Set<string> }>();
  for (const b of batches) {
    let ids = byProject.get(b.project);
    if (ids === undefined) byProject.set(b.project, (ids = { profiles: new Set(), users: new Set() }));
    for (const e of b.events) {
      ids.profiles.add(e.profileId);
      if (e.userId !== undefined) ids.users.add(e.userId);
    }
  }
  const suppressed = new Map<string, Set<string>>();
  // In project order, like every lock of this program.
  for (const project of [...byProject.keys()].sort()) yield* erasureLock(dialect, project, 'shared');
  for (const [project, ids] of byProject) {
    const found = yield* suppressedIds(project, [...ids.profiles], [...ids.users]);
    if (found.size > 0) suppressed.set(project, found);
  }
  if (suppressed.size === 0) return batches as IngestInput[];
  return batches.map((b) => {
    const found = suppressed.get(b.project);
    if (found === undefined) return b;
    return { ...b, events: b.events.filter((e) => !found.has(`profile\n${e.profileId}`) && (e.userId == null || !found.has(`user\n${e.userId}`))) };
  });
}

export function* ingestProgram(sent: readonly IngestInput[], dialect: 'sqlite' | 'postgres'): SqlProgram<IngestResult[]> {
  const batches = yield* withoutSuppressed(sent, dialect);
  const rowWise = dialect === 'sqlite';
  // Inserted in (project, eventId) order so that two concurrent transactions take unique-index locks in the same
  // order (PostgreSQL would otherwise be able to deadlock on two resends of overlapping batches).
  const rows = batches.flatMap((b) => b.events.map((e) => ({ b, e })))
    .sort((x, y) => (x.b.project < y.b.project ? -1 : x.b.project > y.b.project ? 1 : byEventId(x.e, y.e)));
  const key = (project: string, eventId: string): string => `${project}\n${eventId}`;
  const fresh = new Set<string>();
  if (rowWise) {
    // ON CONFLICT DO NOTHING changes no row for a stored eventId (or one repeated earlier in this transaction).
    for (const { b, e } of rows) {
      const { changes } = yield op(EVENT_INSERT_ONE, ...eventRow(b.project, b.sourceId, e, b.now, b.sentAt));
      if (changes === 1) fresh.add(key(b.project, e.eventId));
    }
  } else {
    for (let i = 0; i < rows.length; i += INSERT_ROWS) {
      const chunk = rows.slice(i, i + INSERT_ROWS);
      const params: SqlValue[] = [];
      for (const { b, e } of chunk) params.push(...eventRow(b.project, b.sourceId, e, b.now, b.sentAt));
      const { rows: inserted } = yield op(
        `${EVENT_INSERT_HEAD}${chunk.map(() => ONE_EVENT_ROW).join(', ')}
     ON CONFLICT (project, event_id) DO NOTHING RETURNING project, event_id`,
        ...params,
      );
      for (const r of inserted) fresh.add(key(str(r.project), str(r.event_id)));
    }
  }
  // Effects in batch order, once per stored event (a batch may repeat an eventId, and so may two batches).
  const results: IngestResult[] = [];
  const inbox: InboxEntry[] = [];
  for (const [i, b] of batches.entries()) {
    const suppressed = sent[i]!.events.length - b.events.length;
    const stored: ServiceEvent[] = [];
    let identityChanged = false;
    for (const event of b.events) {
      if (!fresh.delete(key(b.project, event.eventId))) continue;
      stored.push(event);
      yield* applyIdentityEffects(b.project, event, b.now, dialect);
      if (event.type === 'identify' || event.type === 'alias') identityChanged = true;
    }
    const modelEvents = modelEventsOf(stored, b.now);
    inbox.push({ project: b.project, events: modelEvents });
    results.push({
      accepted: stored.length, duplicates: b.events.length - stored.length, identityChanged, modelEvents: modelEvents.length,
      ...(suppressed > 0 ? { suppressed } : {}),
    });
  }
  yield* appendToModelInbox(inbox, dialect);
  return results;
}
