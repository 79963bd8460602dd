import type { ServiceEvent } from '../../wire/event.js';
import { applyIdentityEffects } from '../identity/identity-programs.js';
import { normalEmail } from '../privacy/email-address.js';
import { erasureLock, suppressedIds } from '../privacy/suppressions.js';
import { groupProgram, type GroupProgram } from '../storage/program.js';
import { insertRows, type SqlProgram, type SqlValue } from '../storage/sql-program.js';

/** What storing a batch did. */
export interface IngestResult {
  accepted: number;
  duplicates: number;
  /** Events naming an erased person (the suppression list): answered as accepted, stored nowhere. Absent when none. */
  suppressed?: number;
  /** A stored event (not a duplicate) was an identify or alias: who is whom may have changed (canonical profiles). */
  identityChanged: boolean;
  /** What the hand-on (below) counted of the stored events: as the service is composed, the models' new events. */
  handedOn: number;
}

/** A batch's newly stored events (not its duplicates), as ingestion hands them on: `project`'s, received at `now`. */
export interface StoredBatch {
  project: string;
  events: readonly ServiceEvent[];
  now: number;
  /** The batch's `sentAt` (the sender's clock), or null. */
  sentAt: number | null;
}

/**
 * What follows ingestion in its transaction, given the batches' newly stored events, counting what it took of each
 * batch, in order (the composition root hands them to the recommendation models' inbox).
 */
export type HandOn = (batches: readonly StoredBatch[]) => SqlProgram<number[]>;

// A batch stored once per eventId, with its effects (identity graph; what it is handed on to) in the same
// transaction, so each stored event counts exactly once and a resend or a rollback adds nothing.

function productIdOf(event: ServiceEvent): string | null {
  const id = event.data?.productId;
  if (event.type !== 'product') return null;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

/** Events whose recommendationId the feed report joins to the answers the service issued. */
const CARD_EVENTS = new Set(['Product impression', 'Product clicked']);

/**
 * A card event's `data.recommendationId`, kept in a column so the feed report need not parse payloads: only a string
 * that could be an issued id (a UUID; at most 64 characters), as migration 25 took it from events stored before.
 */
function recommendationIdOf(event: ServiceEvent): string | null {
  const id = event.data?.recommendationId;
  return CARD_EVENTS.has(event.name) && typeof id === 'string' && id.length <= 64 ? id : null;
}

const EVENT_INSERT = `INSERT INTO events (project, event_id, source_id, type, name, profile_id, session_id, page_id, user_id,
       account_id, product_id, ts, received_at, sent_at, payload, recommendation_id)`;

function eventRow(project: string, sourceId: string, e: ServiceEvent, now: number, sentAt: number | null): SqlValue[] {
  return [
    project, e.eventId, sourceId, e.type, e.name, e.profileId, e.sessionId, e.pageId,
    e.userId ?? null, e.accountId ?? null, productIdOf(e), Date.parse(e.timestamp), now, sentAt, JSON.stringify(e),
    recommendationIdOf(e),
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

const byEventId = (a: ServiceEvent, b: ServiceEvent): number => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/** Every id of the suppression list's kinds that `event` names: each one of them keeps it out once erased. */
function namedIds(event: ServiceEvent): { users: string[]; email: string | null } {
  const users: string[] = [];
  if (event.userId != null) users.push(event.userId);
  // An alias's other id: the person it links may be the erased one.
  if (event.anotherUserId != null) users.push(event.anotherUserId);
  // Traits' email: an erasure by email looks for the address, so an event bringing it back brings the person back.
  const email = event.userAttributes?.email;
  return { users, email: typeof email === 'string' && email.length > 0 ? normalEmail(email) : null };
}

function namesSuppressed(event: ServiceEvent, found: Set<string>): boolean {
  if (found.has(`profile\n${event.profileId}`)) return true;
  const { users, email } = namedIds(event);
  return users.some((u) => found.has(`user\n${u}`)) || (email !== null && found.has(`email\n${email}`));
}

/**
 * The batches without the events that name a suppressed id (an erased person's old outbox, or a new device of theirs
 * aliased to an erased id), read in the storing transaction: nothing of theirs is stored once their erasure has begun.
 * One statement per project for every kind of id.
 */
function* withoutSuppressed(batches: readonly IngestInput[]): SqlProgram<IngestInput[]> {
  const byProject = new Map<string, { profiles: Set<string>; users: Set<string>; emails: Set<string> }>();
  for (const b of batches) {
    let ids = byProject.get(b.project);
    if (ids === undefined) byProject.set(b.project, (ids = { profiles: new Set(), users: new Set(), emails: new Set() }));
    for (const e of b.events) {
      ids.profiles.add(e.profileId);
      const { users, email } = namedIds(e);
      for (const u of users) ids.users.add(u);
      if (email !== null) ids.emails.add(email);
    }
  }
  const suppressed = new Map<string, Set<string>>();
  // In project order, like every lock of this program.
  yield erasureLock([...byProject.keys()].sort(), 'shared');
  for (const [project, ids] of byProject) {
    const found = yield* suppressedIds(project, { profiles: [...ids.profiles], users: [...ids.users], emails: [...ids.emails] });
    if (found.size > 0) suppressed.set(project, found);
  }
  if (suppressed.size === 0) return batches as IngestInput[];
  return batches.map((b) => {
    const found = suppressed.get(b.project);
    if (found === undefined) return b;
    return { ...b, events: b.events.filter((e) => !namesSuppressed(e, found)) };
  });
}

/**
 * Stores validated batches in the caller's transaction, with the effects of their new events: identity links, and
 * what `handOn` does with them. The events go in as one insertRows (a statement per row on SQLite, multi-row on
 * PostgreSQL), in (project, eventId) order, so that two concurrent transactions take unique-index locks in the same
 * order (PostgreSQL could otherwise deadlock on two resends of overlapping batches). An eventId stored by this program
 * counts for the first batch that carries it; a later batch (or a resend) finds it a duplicate.
 */
function* ingestProgram(sent: readonly IngestInput[], handOn: HandOn): SqlProgram<IngestResult[]> {
  const batches = yield* withoutSuppressed(sent);
  const rows = batches.flatMap((b) => b.events.map((e) => ({ b, e })))
    .sort((x, y) => (x.b.project < y.b.project ? -1 : x.b.project > y.b.project ? 1 : byEventId(x.e, y.e)));
  const key = (project: string, eventId: string): string => `${project}\n${eventId}`;
  const { inserted = [] } = yield insertRows(
    EVENT_INSERT, rows.map(({ b, e }) => eventRow(b.project, b.sourceId, e, b.now, b.sentAt)),
    'ON CONFLICT (project, event_id) DO NOTHING', { columns: 'project, event_id', at: [0, 1] },
  );
  const fresh = new Set<string>();
  rows.forEach(({ b, e }, i) => {
    if (inserted[i]) fresh.add(key(b.project, e.eventId));
  });
  // Effects in batch order, once per stored event (a batch may repeat an eventId, and so may two batches).
  const stored: StoredBatch[] = [];
  const identityChanged: boolean[] = [];
  for (const b of batches) {
    const events: ServiceEvent[] = [];
    let changed = false;
    for (const event of b.events) {
      if (!fresh.delete(key(b.project, event.eventId))) continue;
      events.push(event);
      yield* applyIdentityEffects(b.project, event, b.now);
      if (event.type === 'identify' || event.type === 'alias') changed = true;
    }
    stored.push({ project: b.project, events, now: b.now, sentAt: b.sentAt });
    identityChanged.push(changed);
  }
  const handedOn = yield* handOn(stored);
  return batches.map((b, i) => {
    const suppressed = sent[i]!.events.length - b.events.length;
    return {
      accepted: stored[i]!.events.length, duplicates: b.events.length - stored[i]!.events.length,
      identityChanged: identityChanged[i]!, handedOn: handedOn[i]!, ...(suppressed > 0 ? { suppressed } : {}),
    };
  });
}

/**
 * Ingestion's program, handing stored events on to `handOn`: storage.group runs it with one batch or with the batches
 * that arrived together (one transaction, each batch answered its own result).
 * @example const INGEST = ingestBatchesProgram(appendToModelInbox); await storage.group(INGEST, input);
 */
export function ingestBatchesProgram(handOn: HandOn): GroupProgram<IngestInput, IngestResult> {
  return groupProgram('ingest.batches', (inputs: readonly IngestInput[]) => ingestProgram(inputs, handOn), (input) => input.events.length);
}
