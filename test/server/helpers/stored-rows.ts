// What tests read back from a database to check what the service stored: read programs the service itself does not
// need, run through the storage like any domain's.
import { op, type SqlValue } from '../../../server/storage/sql-program.js';
import { num, str } from '../../../server/storage/sql-values.js';
import type { Storage } from '../../../server/storage/storage.js';
import type { Attributes, ServiceEvent } from '../../../wire/event.js';
import { attributesProgram, profileAccountsProgram } from '../../../server/identity/identity-programs.js';
import { toAssignment, type Assignment, type AssignmentInput } from '../../../server/choose/assignment-programs.js';
import { chooseStore } from '../../../server/choose/choose-store.js';
import type { ExposureSet } from '../../../server/choose/exposure-programs.js';

/** Rows of one statement. */
function rows(storage: Storage, sql: string, ...params: SqlValue[]) {
  return storage.run(function* () {
    return (yield op(sql, ...params)).rows;
  });
}

export interface ConsentState {
  category: string;
  action: 'accept' | 'reject';
  validUntil: number;
  timestamp: number;
  sourceId: string | null;
}

/** The latest not-expired consent record per category (at `nowMs`, default now). */
export async function consentState(storage: Storage, project: string, profileId: string, nowMs: number = Date.now()): Promise<ConsentState[]> {
  const found = await rows(
    storage,
    `SELECT category, action, valid_until, ts, source_id FROM consents
     WHERE project = ? AND profile_id = ? AND valid_until > ?
     ORDER BY category, ts DESC, id DESC`,
    project, profileId, nowMs,
  );
  const latest = new Map<string, ConsentState>();
  for (const r of found) {
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

export interface StoredEvent {
  event: ServiceEvent;
  sourceId: string;
  receivedAt: number;
}

/** Events stored for the project. */
export async function countEvents(storage: Storage, project: string): Promise<number> {
  const [row] = await rows(storage, 'SELECT COUNT(*) AS n FROM events WHERE project = ?', project);
  return num(row?.n ?? 0);
}

/** Stored events in event-time order, optionally one profile's. */
export async function listEvents(storage: Storage, project: string, options: { limit?: number; profileId?: string } = {}): Promise<StoredEvent[]> {
  const limit = options.limit ?? 1000;
  const found = options.profileId === undefined
    ? await rows(storage, 'SELECT payload, source_id, received_at FROM events WHERE project = ? ORDER BY ts, event_id LIMIT ?', project, limit)
    : await rows(
      storage,
      'SELECT payload, source_id, received_at FROM events WHERE project = ? AND profile_id = ? ORDER BY ts, event_id LIMIT ?',
      project, options.profileId, limit,
    );
  return found.map((r) => ({ event: JSON.parse(str(r.payload)) as ServiceEvent, sourceId: str(r.source_id), receivedAt: num(r.received_at) }));
}

/** Counts of `type: "product"` events per `data.productId`, most first. */
export async function productEventCounts(
  storage: Storage, project: string, options: { names?: string[]; limit?: number; sinceMs?: number } = {},
): Promise<{ productId: string; count: number }[]> {
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
  const found = await rows(
    storage, `SELECT product_id, COUNT(*) AS n FROM events WHERE ${where} GROUP BY product_id ORDER BY n DESC, product_id LIMIT ?`, ...params,
  );
  return found.map((r) => ({ productId: str(r.product_id), count: num(r.n) }));
}

/** First assignments stored the way the service does without its writer thread (choose-store.ts). */
export function firstAssignments(storage: Storage, inputs: readonly AssignmentInput[]): Promise<Assignment[]> {
  return chooseStore(storage).getOrCreateAssignments(inputs);
}

/** The batch of one. */
export async function firstAssignment(storage: Storage, input: AssignmentInput): Promise<Assignment> {
  const [assignment] = await firstAssignments(storage, [input]);
  if (assignment === undefined) throw new Error('no assignment answered');
  return assignment;
}

/** The stored assignment, if any, without creating one. */
export async function getAssignment(storage: Storage, project: string, experience: string, unit: string): Promise<Assignment | null> {
  const [row] = await rows(
    storage,
    'SELECT experience, unit, variation, hash_version, created_at FROM assignments WHERE project = ? AND experience = ? AND unit = ?',
    project, experience, unit,
  );
  return row ? toAssignment(row, false) : null;
}

/** Exposure sets written as the service's PostgreSQL path writes them. */
export function recordExposures(storage: Storage, sets: readonly ExposureSet[]): Promise<void> {
  return chooseStore(storage).recordExposures(sets);
}

/** Exposures (choices, not sets) stored for the project. */
export async function countExposures(storage: Storage, project: string): Promise<number> {
  const [row] = await rows(storage, 'SELECT COALESCE(SUM(choice_count), 0) AS n FROM exposures WHERE project = ?', project);
  return num(row?.n ?? 0);
}

/** One exposure as read back: a choice of an exposure set with the set's profile, session, device and time. */
export interface ExposureRow {
  profileId: string;
  experience: string;
  variation: string | null;
  sessionId: string | null;
  device: string | null;
  time: number;
}

/** The project's exposures, one per choice, in the order they were stored. */
export async function readExposures(storage: Storage, project: string): Promise<ExposureRow[]> {
  const found = await rows(storage, 'SELECT profile_id, session_id, device, ts, choices FROM exposures WHERE project = ? ORDER BY id', project);
  return found.flatMap((row) => (JSON.parse(str(row.choices)) as [string, string | null][]).map(([experience, variation]) => ({
    profileId: str(row.profile_id), experience, variation,
    sessionId: row.session_id === null ? null : str(row.session_id),
    device: row.device === null ? null : str(row.device), time: num(row.ts),
  })));
}

/** A profile's stored attributes (what targeting reads of it). */
export function getProfileAttributes(storage: Storage, project: string, profileId: string): Promise<Attributes> {
  return storage.run(() => attributesProgram(project, 'profile', profileId));
}

/** An account's stored attributes. */
export function getAccountAttributes(storage: Storage, project: string, accountId: string): Promise<Attributes> {
  return storage.run(() => attributesProgram(project, 'account', accountId));
}

/** Accounts a profile was grouped into, oldest first. */
export function getProfileAccounts(storage: Storage, project: string, profileId: string): Promise<string[]> {
  return storage.run(() => profileAccountsProgram(project, profileId));
}
