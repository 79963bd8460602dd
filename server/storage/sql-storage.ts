import type { Attributes, ServiceEvent } from '../../src/event.js';
import type { ProductConfig } from '../config/config-types.js';
import { upsertProductsProgram } from '../recommendations/catalog-program.js';
import { feedProgram } from '../recommendations/feed-program.js';
import type { FeedQuery } from '../recommendations/feed-query.js';
import { updateModels } from '../recommendations/model-updater.js';
import { op, type SqlProgram, type SqlRow, type SqlValue } from './sql-program.js';
import type {
  Assignment, AssignmentInput, ConsentRecord, ConsentState, ExposedChoice, ExposureRow, ExposureSet, IngestResult, ProductEventCount,
  Storage, StoredEvent,
} from './storage.js';

// The storage logic shared by both drivers. SQL here is the common subset of SQLite (≥ 3.35) and
// PostgreSQL: ON CONFLICT … DO NOTHING / DO UPDATE … WHERE, RETURNING, `?` placeholders (rewritten for pg).

const MAX_ALIAS_HOPS = 16;
const DEFAULT_CATEGORY = 'default';

function num(value: unknown): number {
  // pg returns BIGINT and COUNT as strings; SQLite returns numbers.
  return typeof value === 'number' ? value : Number(value);
}

function str(value: unknown): string {
  return String(value);
}

function ms(iso: string): number {
  return Date.parse(iso);
}

function productIdOf(event: ServiceEvent): string | null {
  const id = event.data?.productId;
  if (event.type !== 'product') return null;
  return typeof id === 'string' || typeof id === 'number' ? String(id) : null;
}

function toAssignment(row: SqlRow, created: boolean): Assignment {
  return {
    experience: str(row.experience),
    unit: str(row.unit),
    variation: str(row.variation),
    hashVersion: num(row.hash_version),
    createdAt: num(row.created_at),
    created,
  };
}

/** The chain of alias links from `userId`, itself first; stops at a cycle. */
function* aliasChain(project: string, userId: string): SqlProgram<string[]> {
  const chain = [userId];
  let current = userId;
  for (let hop = 0; hop < MAX_ALIAS_HOPS; hop++) {
    const { rows } = yield op('SELECT target_user_id FROM aliases WHERE project = ? AND user_id = ?', project, current);
    const next = rows[0] ? str(rows[0].target_user_id) : null;
    if (next === null || chain.includes(next)) break;
    chain.push(next);
    current = next;
  }
  return chain;
}

function* directProfile(project: string, userId: string): SqlProgram<string | null> {
  const { rows } = yield op('SELECT profile_id FROM identities WHERE project = ? AND user_id = ?', project, userId);
  return rows[0] ? str(rows[0].profile_id) : null;
}

/**
 * A user id's profile: follow alias links to the primary user id, then take the profile of the last id
 * of the chain that has one (the alias target wins, so two aliased ids resolve to one person).
 */
function* resolveUserProgram(project: string, userId: string): SqlProgram<string | null> {
  const chain = yield* aliasChain(project, userId);
  for (let i = chain.length - 1; i >= 0; i--) {
    const profile = yield* directProfile(project, chain[i] as string);
    if (profile !== null) return profile;
  }
  return null;
}

function* mergeAttributes(
  project: string, scope: 'profile' | 'account', ownerId: string, attributes: Attributes, at: number,
): SqlProgram<void> {
  for (const [key, value] of Object.entries(attributes)) {
    // Last write wins per key by event time: an older event arriving late does not overwrite a newer value.
    yield op(
      `INSERT INTO attributes (project, scope, owner_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project, scope, owner_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
       WHERE excluded.updated_at >= attributes.updated_at`,
      project, scope, ownerId, key, JSON.stringify(value ?? null), at,
    );
  }
}

function* linkIdentity(project: string, userId: string, profileId: string, now: number): SqlProgram<void> {
  // First link wins: a user logging in on a second device keeps the profile (and assignments) of the first.
  yield op(
    `INSERT INTO identities (project, user_id, profile_id, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (project, user_id) DO NOTHING`,
    project, userId, profileId, now,
  );
}

function* linkProfileUser(project: string, profileId: string, userId: string, now: number): SqlProgram<void> {
  // First link wins per profile: a shared device identified as a second user keeps its first person.
  yield op(
    `INSERT INTO profile_users (project, profile_id, user_id, created_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (project, profile_id) DO NOTHING`,
    project, profileId, userId, now,
  );
}

/**
 * The profile whose assignments this profile shares: the canonical profile of the person it was identified
 * as (what form B's userId resolves to), or itself while it is anonymous.
 */
function* canonicalProfileProgram(project: string, profileId: string): SqlProgram<string> {
  const { rows } = yield op('SELECT user_id FROM profile_users WHERE project = ? AND profile_id = ?', project, profileId);
  if (!rows[0]) return profileId;
  return (yield* resolveUserProgram(project, str(rows[0].user_id))) ?? profileId;
}

/** The identity graph and attribute effects of one newly stored event. */
function* applyEvent(project: string, event: ServiceEvent, now: number): SqlProgram<void> {
  const at = ms(event.timestamp);
  if ((event.type === 'identify' || event.type === 'alias') && event.userId) {
    yield* linkProfileUser(project, event.profileId, event.userId, now);
  }
  if (event.type === 'identify' && event.userId) {
    yield* linkIdentity(project, event.userId, event.profileId, now);
  }
  if (event.type === 'alias' && event.userId && event.anotherUserId && event.userId !== event.anotherUserId) {
    // anotherUserId → userId, unless userId already leads to anotherUserId (that would close a cycle).
    const chain = yield* aliasChain(project, event.userId);
    if (!chain.includes(event.anotherUserId)) {
      yield op(
        `INSERT INTO aliases (project, user_id, target_user_id, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (project, user_id) DO NOTHING`,
        project, event.anotherUserId, event.userId, now,
      );
    }
    const existing = yield* resolveUserProgram(project, event.anotherUserId);
    yield* linkIdentity(project, event.userId, existing ?? event.profileId, now);
  }
  if ((event.type === 'group' || event.type === 'record') && event.accountId) {
    yield op(
      `INSERT INTO profile_accounts (project, profile_id, account_id, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (project, profile_id, account_id) DO NOTHING`,
      project, event.profileId, event.accountId, now,
    );
  }
  if (event.userAttributes) {
    yield* mergeAttributes(project, 'profile', event.profileId, event.userAttributes, at);
    // The person's canonical profile (the one a userId resolves to) gets them too, for Choose form B.
    if (event.userId) {
      const canonical = yield* resolveUserProgram(project, event.userId);
      if (canonical !== null && canonical !== event.profileId) {
        yield* mergeAttributes(project, 'profile', canonical, event.userAttributes, at);
      }
    }
  }
  if (event.accountAttributes && event.accountId) {
    yield* mergeAttributes(project, 'account', event.accountId, event.accountAttributes, at);
  }
}

const EVENT_COLUMNS = 14;
const EVENT_INSERT_HEAD = `INSERT INTO events (project, event_id, source_id, type, name, profile_id, session_id, page_id, user_id,
       account_id, product_id, ts, received_at, payload)
     VALUES `;
const ONE_EVENT_ROW = `(${new Array<string>(EVENT_COLUMNS).fill('?').join(', ')})`;
const EVENT_INSERT_ONE = `${EVENT_INSERT_HEAD}${ONE_EVENT_ROW} ON CONFLICT (project, event_id) DO NOTHING`;

function eventRow(project: string, sourceId: string, e: ServiceEvent, now: number): SqlValue[] {
  return [
    project, e.eventId, sourceId, e.type, e.name, e.profileId, e.sessionId, e.pageId,
    e.userId ?? null, e.accountId ?? null, productIdOf(e), ms(e.timestamp), now, JSON.stringify(e),
  ];
}

/**
 * Stores one validated batch and applies the effects of its new events. `rowWise`: one single-row INSERT per
 * event instead of one multi-row INSERT … RETURNING. An in-process driver (SQLite) wants it: the statement is
 * prepared once and reused, where a 700-parameter statement costs more to bind and run than 50 small ones;
 * a networked driver (PostgreSQL) wants the single round trip.
 */
export function* ingestProgram(
  project: string, sourceId: string, events: ServiceEvent[], now: number, rowWise = false,
): SqlProgram<IngestResult> {
  // Sorted by eventId so that two concurrent transactions take unique-index locks in the same order
  // (PostgreSQL would otherwise be able to deadlock on two resends of overlapping batches).
  const rows = [...events].sort((a, b) => (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0));
  const fresh = new Set<string>();
  if (rowWise) {
    // ON CONFLICT DO NOTHING changes no row for a stored eventId (or one repeated earlier in this batch).
    for (const e of rows) {
      const { changes } = yield op(EVENT_INSERT_ONE, ...eventRow(project, sourceId, e, now));
      if (changes === 1) fresh.add(e.eventId);
    }
  } else {
    const params: SqlValue[] = [];
    for (const e of rows) params.push(...eventRow(project, sourceId, e, now));
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
    yield* applyEvent(project, event, now);
    stored.push(event);
    if (event.type === 'identify' || event.type === 'alias') identityChanged = true;
  }
  // Recommendation models, in this transaction so they count each stored event exactly once (model-updater.ts).
  yield* updateModels(project, stored, now);
  return { accepted, duplicates: events.length - accepted, identityChanged };
}

function* assignmentProgram(input: AssignmentInput, now: number): SqlProgram<Assignment> {
  const { changes } = yield op(
    `INSERT INTO assignments (project, experience, unit, variation, hash_version, created_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (project, experience, unit) DO NOTHING`,
    input.project, input.experience, input.unit, input.variation, input.hashVersion, now,
  );
  const { rows } = yield op(
    'SELECT experience, unit, variation, hash_version, created_at FROM assignments WHERE project = ? AND experience = ? AND unit = ?',
    input.project, input.experience, input.unit,
  );
  const row = rows[0];
  if (!row) throw new Error('assignment vanished after insert-if-absent');
  return toAssignment(row, changes === 1);
}

/** An assignment's key in the programs' maps: `${experience}\0${unit}`. */
function assignmentId(experience: string, unit: string): string {
  return `${experience}\u0000${unit}`;
}

/** Stored rows for every (experience, unit) pair of the lists, keyed by assignmentId. */
function* storedAssignments(
  project: string, experiences: readonly string[], units: readonly string[], created: ReadonlySet<string>,
): SqlProgram<Map<string, Assignment>> {
  // IN lists on both key columns let both databases walk the primary key; an OR of (experience AND unit)
  // pairs made SQLite scan the whole table. A request has one or two units, so the cross product the IN
  // lists may match stays small; pairs nobody asked for are simply not looked up below.
  const { rows } = yield op(
    `SELECT experience, unit, variation, hash_version, created_at FROM assignments
     WHERE project = ? AND experience IN (${experiences.map(() => '?').join(', ')}) AND unit IN (${units.map(() => '?').join(', ')})`,
    project, ...experiences, ...units,
  );
  return new Map(rows.map((r) => {
    const id = assignmentId(str(r.experience), str(r.unit));
    return [id, toAssignment(r, created.has(id))];
  }));
}

/** A request's distinct assignment keys, and which of them are already stored (`assignmentReadProgram`). */
export interface AssignmentRead {
  project: string;
  /** Stored rows keyed by assignmentId; `assignmentWriteProgram`'s rows are added to it. */
  byId: Map<string, Assignment>;
  /** Distinct inputs without a stored row, sorted by key (so concurrent callers lock in one order). */
  missing: AssignmentInput[];
}

const distinct = (pick: (r: AssignmentInput) => string, of: Iterable<AssignmentInput>): string[] => [...new Set([...of].map(pick))];

/**
 * The read half of `getOrCreateAssignments`: a returning unit (the common case) costs one indexed SELECT and
 * no write at all. A driver may run it outside any transaction: `missing` is only a hint of what to insert,
 * the insert-if-absent in `assignmentWriteProgram` decides.
 */
export function* assignmentReadProgram(inputs: readonly AssignmentInput[]): SqlProgram<AssignmentRead> {
  const { project, unique } = distinctAssignments(inputs);
  const byId = yield* storedAssignments(
    project, distinct((r) => r.experience, unique.values()), distinct((r) => r.unit, unique.values()), new Set(),
  );
  return { project, byId, missing: sortedById([...unique.entries()].filter(([id]) => !byId.has(id))) };
}

/** The inputs' one project, and each (experience, unit) pair once, keyed by assignmentId. */
function distinctAssignments(inputs: readonly AssignmentInput[]): { project: string; unique: Map<string, AssignmentInput> } {
  const project = inputs[0]?.project ?? '';
  const unique = new Map<string, AssignmentInput>();
  for (const input of inputs) {
    if (input.project !== project) throw new Error('getOrCreateAssignments: all inputs must share one project');
    const id = assignmentId(input.experience, input.unit);
    if (!unique.has(id)) unique.set(id, input);
  }
  return { project, unique };
}

/** Sorted by key, so concurrent callers lock in one order. */
function sortedById(entries: [string, AssignmentInput][]): AssignmentInput[] {
  return entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, v]) => v);
}

/**
 * The write half: insert-if-absent of the missing first assignments, then the rows stored now — ours, as the
 * insert returns them, or a concurrent caller's that won the insert (`created` tells which), read back. A new
 * unit's request (nobody raced it) costs the insert alone: reading back rows it had just returned was a third of
 * the writer thread's work for a new visitor.
 */
export function* assignmentWriteProgram(
  project: string, missing: readonly AssignmentInput[], now: number,
): SqlProgram<Map<string, Assignment>> {
  const params: SqlValue[] = [];
  for (const r of missing) params.push(project, r.experience, r.unit, r.variation, r.hashVersion, now);
  const { rows: inserted } = yield op(
    `INSERT INTO assignments (project, experience, unit, variation, hash_version, created_at)
     VALUES ${missing.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}
     ON CONFLICT (project, experience, unit) DO NOTHING RETURNING experience, unit, variation, hash_version, created_at`,
    ...params,
  );
  const stored = new Map(inserted.map((r) => [assignmentId(str(r.experience), str(r.unit)), toAssignment(r, true)]));
  if (stored.size === missing.length) return stored;
  const lost = missing.filter((r) => !stored.has(assignmentId(r.experience, r.unit)));
  const theirs = yield* storedAssignments(project, distinct((r) => r.experience, lost), distinct((r) => r.unit, lost), new Set());
  for (const [id, assignment] of theirs) if (!stored.has(id)) stored.set(id, assignment);
  return stored;
}

/** The answers in the order asked, once `read.byId` holds every key (after the write half, if any was missing). */
export function assignmentAnswers(inputs: readonly AssignmentInput[], read: AssignmentRead, written?: Map<string, Assignment>): Assignment[] {
  if (written) for (const [id, assignment] of written) if (!read.byId.has(id)) read.byId.set(id, assignment);
  return inputs.map((input) => {
    const found = read.byId.get(assignmentId(input.experience, input.unit));
    if (!found) throw new Error('assignment vanished after insert-if-absent');
    return found;
  });
}

/** The insert of exposure sets (migration 5), without its VALUES: one row per set, its choices as JSON pairs. */
export const INSERT_EXPOSURE_SETS = 'INSERT INTO exposures (project, profile_id, session_id, device, ts, choice_count, choices)';

/**
 * One exposure set's row for INSERT_EXPOSURE_SETS (7 values): the set's choices become `[["experience",
 * "variation"], …]`, a null variation for a choice without one. Used by the storage and the Choose writer thread,
 * so both write the same row.
 */
export function exposureSetParams(set: ExposureSet, now: number): SqlValue[] {
  // Joined into one flat string: the row is cloned to the writer thread, and a tree of appended pieces would be
  // flattened there first.
  const pairs = new Array<string>(set.choices.length);
  for (let i = 0; i < set.choices.length; i++) pairs[i] = pairJson(set.choices[i]!);
  return [set.project, set.profileId, set.sessionId ?? null, set.device ?? null, set.time ?? now, set.choices.length, `[${pairs.join(',')}]`];
}

// A choice is exposed again and again as the same object (the Choose engine serves the config's frozen choices),
// so its pair is remembered with the object; a changed name or variation builds it anew. Stringifying every pair
// anew was ≈ 1 % of the main thread's CPU under the Choose bench.
const pairs = new WeakMap<ExposedChoice, { name: string; variation: string | null | undefined; json: string }>();

function pairJson(choice: ExposedChoice): string {
  const { name, variation } = choice;
  const known = pairs.get(choice);
  if (known !== undefined && known.name === name && known.variation === variation) return known.json;
  const json = `[${JSON.stringify(name)},${variation == null ? 'null' : JSON.stringify(variation)}]`;
  pairs.set(choice, { name, variation, json });
  return json;
}

/**
 * Insert-if-absent of a request's first assignments and the stored rows back, in the order asked: the read half,
 * then the write half for what is missing. Run by the storage itself and by the Choose API's writer thread.
 */
export function* assignmentsProgram(inputs: readonly AssignmentInput[], now: number): SqlProgram<Assignment[]> {
  const read = yield* assignmentReadProgram(inputs);
  if (read.missing.length === 0) return assignmentAnswers(inputs, read);
  return assignmentAnswers(inputs, read, yield* assignmentWriteProgram(read.project, read.missing, now));
}

/**
 * assignmentsProgram's answer, with the write half first: insert-if-absent of every pair, then only the rows that
 * were stored before are read. For a connection that takes the write lock whatever it finds (the Choose writer
 * thread's transactions are IMMEDIATE), a new unit's request is one statement instead of two; a unit whose rows are
 * all stored costs two either way. Returning units whose rows this node has cached never get here.
 */
export function* assignmentsInsertFirstProgram(inputs: readonly AssignmentInput[], now: number): SqlProgram<Assignment[]> {
  const { project, unique } = distinctAssignments(inputs);
  const read: AssignmentRead = { project, byId: new Map(), missing: sortedById([...unique.entries()]) };
  return assignmentAnswers(inputs, read, yield* assignmentWriteProgram(project, read.missing, now));
}

export abstract class SqlStorage implements Storage {
  abstract readonly dialect: 'sqlite' | 'postgres';
  abstract migrate(): Promise<void>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
  /** Runs a fresh program from `make` (a driver may retry a transaction with a new one). */
  protected abstract run<T>(make: () => SqlProgram<T>, transaction: boolean): Promise<T>;

  /** A one-statement program. */
  private query(sql: string, ...params: SqlValue[]): Promise<SqlRow[]> {
    return this.run(function* () {
      const { rows } = yield op(sql, ...params);
      return rows;
    }, false);
  }

  ingestBatch(project: string, sourceId: string, events: ServiceEvent[]): Promise<IngestResult> {
    if (events.length === 0) return Promise.resolve({ accepted: 0, duplicates: 0, identityChanged: false });
    const now = Date.now();
    return this.run(() => ingestProgram(project, sourceId, events, now), true);
  }

  async countEvents(project: string): Promise<number> {
    const rows = await this.query('SELECT COUNT(*) AS n FROM events WHERE project = ?', project);
    return num(rows[0]?.n ?? 0);
  }

  async listEvents(project: string, options: { limit?: number; profileId?: string } = {}): Promise<StoredEvent[]> {
    const limit = options.limit ?? 1000;
    const rows = options.profileId === undefined
      ? await this.query('SELECT payload, source_id, received_at FROM events WHERE project = ? ORDER BY ts, event_id LIMIT ?', project, limit)
      : await this.query(
        'SELECT payload, source_id, received_at FROM events WHERE project = ? AND profile_id = ? ORDER BY ts, event_id LIMIT ?',
        project, options.profileId, limit,
      );
    return rows.map((r) => ({
      event: JSON.parse(str(r.payload)) as ServiceEvent,
      sourceId: str(r.source_id),
      receivedAt: num(r.received_at),
    }));
  }

  async productEventCounts(
    project: string, options: { names?: string[]; limit?: number; sinceMs?: number } = {},
  ): Promise<ProductEventCount[]> {
    const params: SqlValue[] = [project];
    let where = "project = ? AND type = 'product' AND product_id IS NOT NULL";
    if (options.names && options.names.length > 0) {
      where += ` AND name IN (${options.names.map(() => '?').join(', ')})`;
      params.push(...options.names);
    }
    if (options.sinceMs !== undefined) {
      where += ' AND ts >= ?';
      params.push(options.sinceMs);
    }
    params.push(options.limit ?? 100);
    const rows = await this.query(
      `SELECT product_id, COUNT(*) AS n FROM events WHERE ${where} GROUP BY product_id ORDER BY n DESC, product_id LIMIT ?`,
      ...params,
    );
    return rows.map((r) => ({ productId: str(r.product_id), count: num(r.n) }));
  }

  resolveUser(project: string, userId: string): Promise<string | null> {
    return this.run(() => resolveUserProgram(project, userId), false);
  }

  canonicalProfile(project: string, profileId: string): Promise<string> {
    return this.run(() => canonicalProfileProgram(project, profileId), false);
  }

  private async attributes(project: string, scope: 'profile' | 'account', ownerId: string): Promise<Attributes> {
    const rows = await this.query(
      'SELECT key, value FROM attributes WHERE project = ? AND scope = ? AND owner_id = ? ORDER BY key',
      project, scope, ownerId,
    );
    // fromEntries defines each key as an own property: a stored `__proto__` attribute stays data, not a prototype.
    return Object.fromEntries(rows.map((r) => [str(r.key), JSON.parse(str(r.value)) as unknown]));
  }

  getProfileAttributes(project: string, profileId: string): Promise<Attributes> {
    return this.attributes(project, 'profile', profileId);
  }

  getAccountAttributes(project: string, accountId: string): Promise<Attributes> {
    return this.attributes(project, 'account', accountId);
  }

  async getProfileAccounts(project: string, profileId: string): Promise<string[]> {
    const rows = await this.query(
      'SELECT account_id FROM profile_accounts WHERE project = ? AND profile_id = ? ORDER BY created_at, account_id',
      project, profileId,
    );
    return rows.map((r) => str(r.account_id));
  }

  async recordConsent(project: string, record: ConsentRecord): Promise<boolean> {
    const now = Date.now();
    const rows = await this.query(
      `INSERT INTO consents (project, profile_id, source_id, category, action, valid_until, email, message, event_id, ts, received_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (project, event_id) DO NOTHING RETURNING id`,
      project, record.profileId, record.sourceId ?? null, record.category ?? DEFAULT_CATEGORY, record.action,
      record.validUntil, record.email ?? null, record.message ?? null, record.eventId ?? null,
      record.timestamp ?? now, now,
    );
    return rows.length === 1;
  }

  async getConsentState(project: string, profileId: string, nowMs: number = Date.now()): Promise<ConsentState[]> {
    const rows = await this.query(
      `SELECT category, action, valid_until, ts, source_id FROM consents
       WHERE project = ? AND profile_id = ? AND valid_until > ?
       ORDER BY category, ts DESC, id DESC`,
      project, profileId, nowMs,
    );
    const latest = new Map<string, ConsentState>();
    for (const r of rows) {
      const category = str(r.category);
      if (latest.has(category)) continue;
      latest.set(category, {
        category,
        action: str(r.action) === 'accept' ? 'accept' : 'reject',
        validUntil: num(r.valid_until),
        timestamp: num(r.ts),
        sourceId: r.source_id === null ? null : str(r.source_id),
      });
    }
    return [...latest.values()];
  }

  getOrCreateAssignment(input: AssignmentInput): Promise<Assignment> {
    const now = Date.now();
    return this.run(() => assignmentProgram(input, now), false);
  }

  getOrCreateAssignments(inputs: readonly AssignmentInput[]): Promise<Assignment[]> {
    if (inputs.length === 0) return Promise.resolve([]);
    const now = Date.now();
    return this.run(() => assignmentsProgram(inputs, now), false);
  }

  async getAssignment(project: string, experience: string, unit: string): Promise<Assignment | null> {
    const rows = await this.query(
      'SELECT experience, unit, variation, hash_version, created_at FROM assignments WHERE project = ? AND experience = ? AND unit = ?',
      project, experience, unit,
    );
    return rows[0] ? toAssignment(rows[0], false) : null;
  }

  async recordExposures(sets: readonly ExposureSet[]): Promise<void> {
    if (sets.length === 0) return;
    const now = Date.now();
    // Chunks keep the statement under both databases' bound-parameter limits.
    const chunkSize = 500;
    await this.run(function* () {
      for (let i = 0; i < sets.length; i += chunkSize) {
        const chunk = sets.slice(i, i + chunkSize);
        const params: SqlValue[] = [];
        for (const set of chunk) params.push(...exposureSetParams(set, now));
        yield op(`${INSERT_EXPOSURE_SETS} VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`, ...params);
      }
    }, true);
  }

  async countExposures(project: string): Promise<number> {
    const rows = await this.query('SELECT COALESCE(SUM(choice_count), 0) AS n FROM exposures WHERE project = ?', project);
    return num(rows[0]?.n ?? 0);
  }

  async readExposures(project: string): Promise<ExposureRow[]> {
    const rows = await this.query(
      'SELECT profile_id, session_id, device, ts, choices FROM exposures WHERE project = ? ORDER BY id', project,
    );
    const exposures: ExposureRow[] = [];
    for (const row of rows) {
      const pairs = JSON.parse(String(row.choices)) as [string, string | null][];
      for (const [experience, variation] of pairs) {
        exposures.push({
          profileId: String(row.profile_id), experience, variation,
          sessionId: row.session_id === null ? null : String(row.session_id),
          device: row.device === null ? null : String(row.device), time: num(row.ts),
        });
      }
    }
    return exposures;
  }

  upsertProducts(project: string, products: readonly ProductConfig[]): Promise<number> {
    if (products.length === 0) return Promise.resolve(0);
    const now = Date.now();
    return this.run(() => upsertProductsProgram(project, products, now), true);
  }

  recommend(project: string, query: FeedQuery): Promise<ProductConfig[]> {
    return this.run(() => feedProgram(project, query), false);
  }
}
