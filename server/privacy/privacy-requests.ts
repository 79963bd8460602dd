import type { Actor } from '../auth/management-caller.js';
import { randomUUID } from 'node:crypto';
import { appendAudit } from '../management/audit-log.js';
import { op, type SqlProgram, type SqlRow } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { normalEmail } from './email-address.js';
import type { Person, Subject } from './person.js';

// Privacy requests as the database keeps them: what was asked, by which key, how far it got (step and cursor, so a
// run that crashed resumes where its last committed chunk left it), and a lease: a node runs a request while its lease
// holds, renewing it with every chunk; a lease that lapsed (its node died) lets any node take the request over.

export type RequestKind = 'erasure' | 'export';
export type RequestStatus = 'received' | 'running' | 'done';
/** An erasure's steps in order; an export has the one step `collect`. */
export type Step = 'resolve' | 'drain' | 'events' | 'exposures' | 'tables' | 'collect' | 'done';

export interface PrivacyRequest {
  id: string;
  project: string;
  kind: RequestKind;
  /** Whom it names; null once an erasure is done (it forgets them), when only `subjectKind` stays. */
  subject: Subject | null;
  subjectKind: Subject['kind'];
  status: RequestStatus;
  step: Step;
  cursor: string | null;
  person: Person | null;
  counts: Record<string, number>;
  keyId: string;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
}

/** A request as the API answers it (an export's data is answered apart). */
export interface RequestView {
  id: string;
  kind: RequestKind;
  status: RequestStatus;
  /** What the request named: after an erasure is done, only the kind of id (the id itself is gone). */
  subject: { kind: Subject['kind']; value?: string; sourceId?: string };
  step: Step;
  /** Rows removed (erasure) or found (export), by kind. */
  counts: Record<string, number>;
  keyId: string;
  createdAt: string;
  finishedAt: string | null;
}

function requestOf(r: SqlRow): PrivacyRequest {
  const kind = str(r.subject_kind) as Subject['kind'];
  const subject = r.subject === null ? null
    : (kind === 'profileId' ? { kind, value: str(r.subject), sourceId: str(r.source_id) } : { kind, value: str(r.subject) }) as Subject;
  return {
    id: str(r.id),
    project: str(r.project),
    kind: str(r.kind) as RequestKind,
    subject,
    subjectKind: kind,
    status: str(r.status) as RequestStatus,
    step: str(r.step) as Step,
    cursor: r.cursor === null ? null : str(r.cursor),
    person: r.person === null ? null : (JSON.parse(str(r.person)) as Person),
    counts: JSON.parse(str(r.counts)) as Record<string, number>,
    keyId: str(r.key_id),
    createdAt: num(r.created_at),
    updatedAt: num(r.updated_at),
    finishedAt: r.finished_at === null ? null : num(r.finished_at),
  };
}

export function viewOf(request: PrivacyRequest): RequestView {
  const subject: RequestView['subject'] = request.subject ?? { kind: request.subjectKind };
  return {
    id: request.id,
    kind: request.kind,
    status: request.status,
    subject,
    step: request.step,
    counts: request.counts,
    keyId: request.keyId,
    createdAt: new Date(request.createdAt).toISOString(),
    finishedAt: request.finishedAt === null ? null : new Date(request.finishedAt).toISOString(),
  };
}

const COLUMNS = 'id, project, kind, subject_kind, subject, source_id, status, step, cursor, person, counts, key_id, created_at, updated_at, finished_at';

/** Records a new request (`received`), with its audit entry; answers it. */
export function* createRequest(
  project: string, kind: RequestKind, subject: Subject, keyId: string, at: number, actor: Actor | null = null,
): SqlProgram<PrivacyRequest> {
  const id = `${kind === 'erasure' ? 'er' : 'ex'}_${randomUUID().replaceAll('-', '')}`;
  const step: Step = kind === 'erasure' ? 'resolve' : 'collect';
  yield op(
    `INSERT INTO privacy_requests (id, project, kind, subject_kind, subject, source_id, status, step, cursor, person, counts, result, key_id,
       created_at, updated_at, finished_at, lease_until)
     VALUES (?, ?, ?, ?, ?, ?, 'received', ?, NULL, NULL, '{}', NULL, ?, ?, ?, NULL, 0)`,
    id, project, kind, subject.kind, subject.value, subject.kind === 'profileId' ? subject.sourceId : null, step, keyId, at, at,
  );
  // The audit log names the request, never the person.
  yield* appendAudit({ project, at, keyId, action: 'create', kind, name: id, before: null, after: { subject: { kind: subject.kind }, status: 'received' }, actor });
  return (yield* readRequest(project, id))!;
}

export function* readRequest(project: string, id: string): SqlProgram<PrivacyRequest | null> {
  const { rows } = yield op(`SELECT ${COLUMNS} FROM privacy_requests WHERE project = ? AND id = ?`, project, id);
  return rows[0] === undefined ? null : requestOf(rows[0]);
}

/** An export's data (null until it is done, or once an erasure of the same person cleared it). */
export function* readExportResult(project: string, id: string): SqlProgram<Record<string, unknown> | null> {
  const { rows } = yield op("SELECT result FROM privacy_requests WHERE project = ? AND id = ? AND kind = 'export'", project, id);
  const result = rows[0]?.result;
  return result === null || result === undefined ? null : (JSON.parse(str(result)) as Record<string, unknown>);
}

/** A project's requests of one kind, newest first. */
export function* listRequests(project: string, kind: RequestKind, limit: number): SqlProgram<PrivacyRequest[]> {
  const { rows } = yield op(
    `SELECT ${COLUMNS} FROM privacy_requests WHERE project = ? AND kind = ? ORDER BY created_at DESC, id LIMIT ?`, project, kind, limit,
  );
  return rows.map(requestOf);
}

/**
 * Whether some request not done has a lease lapsed by `now` (what claimRequest would take): a read, so that a node's
 * look every second takes no write lock while there is nothing to run.
 */
export function* requestDue(now: number): SqlProgram<boolean> {
  const { rows } = yield op("SELECT 1 AS due FROM privacy_requests WHERE status <> 'done' AND lease_until < ? LIMIT 1", now);
  return rows.length > 0;
}

/**
 * Takes the oldest request not done whose lease has lapsed (never taken, or its node died), leasing it until
 * `leaseUntil`; null when there is none. Two nodes cannot both take one: the update checks the lease it read.
 */
export function* claimRequest(now: number, leaseUntil: number): SqlProgram<PrivacyRequest | null> {
  const { rows } = yield op(
    "SELECT id, lease_until FROM privacy_requests WHERE status <> 'done' AND lease_until < ? ORDER BY created_at, id LIMIT 1", now,
  );
  const row = rows[0];
  if (row === undefined) return null;
  const { changes } = yield op(
    "UPDATE privacy_requests SET status = 'running', lease_until = ?, updated_at = ? WHERE id = ? AND lease_until = ?",
    leaseUntil, now, str(row.id), num(row.lease_until),
  );
  if (changes !== 1) return null;
  const { rows: claimed } = yield op(`SELECT ${COLUMNS} FROM privacy_requests WHERE id = ?`, str(row.id));
  return requestOf(claimed[0]!);
}

/** Records a step's progress in the caller's transaction (with the work it did), renewing the lease. */
export function* saveProgress(
  request: PrivacyRequest, change: { step: Step; cursor: string | null; counts: Record<string, number>; person?: Person | null }, now: number,
  leaseUntil: number,
): SqlProgram<void> {
  const person = change.person === undefined ? request.person : change.person;
  yield op(
    'UPDATE privacy_requests SET step = ?, cursor = ?, counts = ?, person = ?, updated_at = ?, lease_until = ? WHERE id = ?',
    change.step, change.cursor, JSON.stringify(change.counts), person === null ? null : JSON.stringify(person), now, leaseUntil, request.id,
  );
  request.step = change.step;
  request.cursor = change.cursor;
  request.counts = change.counts;
  request.person = person;
}

/**
 * Who the service works for on a request: whoever asked for it (its `create` entry's actor, without the address and
 * browser they asked from), `via: 'service'`. A request made before actors were recorded names its key.
 */
function* actorForService(request: PrivacyRequest): SqlProgram<Actor> {
  const { rows } = yield op(
    "SELECT actor FROM audit_log WHERE project = ? AND kind = ? AND name = ? AND action = 'create' ORDER BY id LIMIT 1",
    request.project, request.kind, request.id,
  );
  const asked = rows[0]?.actor == null ? null : JSON.parse(str(rows[0].actor)) as Actor;
  const { ip: _ip, userAgent: _userAgent, ...who } = asked ?? { type: 'key', id: request.keyId, name: request.keyId };
  return { ...who, via: 'service' };
}

/**
 * Marks a request done in the caller's transaction. An erasure forgets whom it was about (subject and person
 * cleared: its counts stay); an export keeps its data in `result`. Audited.
 */
export function* finishRequest(request: PrivacyRequest, now: number, result: Record<string, unknown> | null): SqlProgram<void> {
  const erasure = request.kind === 'erasure';
  yield op(
    `UPDATE privacy_requests SET status = 'done', step = 'done', cursor = NULL, counts = ?, result = ?, updated_at = ?, finished_at = ?
       ${erasure ? ', subject = NULL, source_id = NULL, person = NULL' : ''} WHERE id = ?`,
    JSON.stringify(request.counts), result === null ? null : JSON.stringify(result), now, now, request.id,
  );
  yield* appendAudit({
    project: request.project, at: now, keyId: request.keyId, action: 'update', kind: request.kind, name: request.id,
    before: null, after: { status: 'done', counts: request.counts }, actor: yield* actorForService(request),
  });
  request.status = 'done';
  request.step = 'done';
  request.finishedAt = now;
  if (erasure) {
    request.subject = null;
    request.person = null;
  }
}

/**
 * Clears the data of the person's earlier exports (an erasure must not leave a copy behind): their status stays
 * `done`, their data is gone and `counts.erased` says why. Answers how many.
 */
export function* clearExportsOf(project: string, person: Person): SqlProgram<number> {
  const { rows } = yield op("SELECT id, person FROM privacy_requests WHERE project = ? AND kind = 'export' AND person IS NOT NULL", project);
  const ids = new Set([...person.profiles, ...person.users, ...person.emails]);
  let cleared = 0;
  for (const r of rows) {
    const other = JSON.parse(str(r.person)) as Person;
    // An export taken before addresses were normalized holds them as typed.
    if (![...other.profiles, ...other.users, ...other.emails.map(normalEmail)].some((id) => ids.has(id))) continue;
    yield op(
      `UPDATE privacy_requests SET result = NULL, person = NULL, subject = NULL, source_id = NULL, counts = '{"erased":1}' WHERE id = ?`, str(r.id),
    );
    cleared++;
  }
  return cleared;
}
