import type { Actor } from '../auth/management-caller.js';
import { ServiceError } from '../errors/service-error.js';
import { lockKeys, lockingRows, notify, op, type SqlProgram } from '../storage/sql-program.js';
import { appendAudit } from './audit-log.js';
import type { Storage } from '../storage/storage.js';
import type { ExperienceConfig } from '../config/config-types.js';
import { recordPhaseStep } from '../phases/phase-store.js';
import { manualReweight, recordReweight, type ReweightRecord } from '../phases/reweight-store.js';

/** What the management API manages: a project's experiences, metrics and feeds (a feed's name is its id). */
export type ItemKind = 'experience' | 'metric' | 'feed';

export type Item = Record<string, unknown>;

/** An item as the database holds it: `item` null means deleted (which hides a file item of the same name). */
export interface StoredItem {
  project: string;
  kind: ItemKind;
  name: string;
  version: number;
  item: Item | null;
}

/** `NOTIFY` channel of PostgreSQL nodes: a write was committed, read the items again. */
export const CHANGES_CHANNEL = 'svc_managed_items';

/** The revision counter (bumped by every write) and, when asked, every stored item. */
export function* readRevision(): SqlProgram<number> {
  const { rows } = yield op('SELECT revision FROM managed_revision WHERE id = 1');
  return Number(rows[0]?.revision ?? 0);
}

const storedItem = (r: Record<string, unknown>): StoredItem => ({
  project: String(r.project),
  kind: String(r.kind) as ItemKind,
  name: String(r.name),
  version: Number(r.version),
  item: r.item === null ? null : (JSON.parse(String(r.item)) as Item),
});

export function* readItems(): SqlProgram<{ revision: number; items: StoredItem[] }> {
  const revision = yield* readRevision();
  const { rows } = yield op('SELECT project, kind, name, version, item FROM managed_items ORDER BY project, kind, updated_at, name');
  return { revision, items: rows.map(storedItem) };
}

export interface ItemWrite {
  project: string;
  kind: ItemKind;
  name: string;
  /** The new item, or null to delete it. */
  item: Item | null;
  /** The file's item of this name, if the file has one: version 1 until the API writes it. */
  fileItem: Item | null;
  /** `If-Match`: the version the writer read; absent writes whatever is there. */
  ifMatch?: number;
  /** `If-None-Match: *`: create only; an item of this name already there is a conflict. */
  createOnly?: boolean;
  /**
   * Throws (a ServiceError) when the project's config would be invalid with this write: called inside the
   * transaction with the project's stored items as they are before it, so no concurrent write (on this node or
   * another) can slip an item in between the check and the write (an experience naming a feed being deleted).
   */
  check?: (stored: readonly StoredItem[]) => void;
  /**
   * Runs inside the transaction after `If-Match` and `check` held, where every other writer of the project waits: throws
   * (a ServiceError) to refuse the write on what the database holds then (a bandit's reweight that another node made
   * since this one looked).
   */
  guard?: () => SqlProgram<void>;
  keyId: string;
  /** Who made the change, for the audit log. */
  actor?: AuditActor;
  at: number;
  /**
   * The audit entry's action when it is not the write's own (`stop`: the service stopped an experiment by itself;
   * `reweight`: a bandit moved its weights, recorded with `reweight`).
   */
  action?: 'stop' | 'reweight';
  /** With action `reweight`: the reweight recorded beside the write, in its transaction (server/phases/reweight-store.ts). */
  reweight?: ReweightRecord;
  /** Experiences: re-randomise (a new seed and new first assignments: `randomization` one more than before). */
  rerandomize?: boolean;
}

export interface WriteOutcome {
  version: number;
  /** True when no item of this name was there (created), false when one was replaced or deleted. */
  created: boolean;
}

const NOT_FOUND = { experience: 'experience_not_found', metric: 'metric_not_found', feed: 'feed_not_found' } as const;

/**
 * Writes one item in one transaction: checks `If-Match` against the stored version (the file's item counts as
 * version 1), stores the item with the next version, records the audit entry with both sides, and bumps the
 * revision every node polls (on PostgreSQL also a `NOTIFY`, sent at commit).
 * @throws ServiceError `version_conflict` (412), or `…_not_found` (404) when deleting what is not there.
 */
export function writeItem(storage: Storage, write: ItemWrite): Promise<WriteOutcome> {
  const { project, kind, name } = write;
  return storage.transaction(function* () {
    // One writer per project at a time: a row lock covers no item that does not exist yet, nor the project's other
    // items the check reads.
    yield lockKeys([`${CHANGES_CHANNEL}:${project}`]);
    const { rows } = yield lockingRows(op('SELECT version, item FROM managed_items WHERE project = ? AND kind = ? AND name = ?', project, kind, name), 'wait');
    const row = rows[0];
    const before = row ? (row.item === null ? null : (JSON.parse(String(row.item)) as Item)) : write.fileItem;
    const current = row ? Number(row.version) : write.fileItem ? 1 : 0;
    if (write.ifMatch !== undefined && (write.ifMatch !== current || before === null)) {
      throw new ServiceError('version_conflict', `The ${kind} "${name}" is at version ${before === null ? 'none (it does not exist)' : current}, not ${write.ifMatch}.`);
    }
    if (write.createOnly && before !== null) {
      throw new ServiceError('version_conflict', `The ${kind} "${name}" already exists (version ${current}).`);
    }
    if (write.item === null && before === null) throw new ServiceError(NOT_FOUND[kind], `There is no ${kind} "${name}" in this project.`);
    if (write.check) {
      const stored = yield op('SELECT project, kind, name, version, item FROM managed_items WHERE project = ? ORDER BY kind, updated_at, name', project);
      write.check(stored.rows.map(storedItem));
    }
    if (write.guard) yield* write.guard();
    const version = current + 1;
    // The count of re-randomisations is the service's: carried over from the stored item, one more when asked.
    if (kind === 'experience' && write.item !== null) {
      const next = ((before as ExperienceConfig | null)?.randomization ?? 0) + (write.rerandomize ? 1 : 0);
      if (next > 0) write.item.randomization = next;
      else delete write.item.randomization;
    }
    const json = write.item === null ? null : JSON.stringify(write.item);
    yield op(
      `INSERT INTO managed_items (project, kind, name, version, item, updated_at) VALUES (?, ?, ?, ?, ?, ?)
       ON CONFLICT (project, kind, name) DO UPDATE SET version = excluded.version, item = excluded.item, updated_at = excluded.updated_at`,
      project, kind, name, version, json, write.at,
    );
    if (kind === 'experience') {
      // The experiment's phases follow its writes in the same transaction: a start, a stop, a change of weights.
      yield* recordPhaseStep({
        project, name, before: before as ExperienceConfig | null, beforeVersion: current,
        after: write.item as ExperienceConfig | null, version, at: write.at,
      });
    }
    const reweight = write.reweight ?? (kind === 'experience' ? manualReweight(before as ExperienceConfig | null, write.item as ExperienceConfig | null) : null);
    if (reweight !== null) yield* recordReweight(project, name, write.at, version, reweight);
    const action = write.action ?? (write.item === null ? 'delete' : before === null ? 'create' : 'update');
    const actor: AuditActor = write.actor ?? { type: 'key', id: write.keyId, name: write.keyId };
    yield* appendAudit({ project, at: write.at, keyId: write.keyId, action, kind, name, before, after: write.item, actor });
    yield op('UPDATE managed_revision SET revision = revision + 1 WHERE id = 1');
    yield notify(CHANGES_CHANNEL);
    return { version, created: before === null };
  });
}

/**
 * Who made an audited change: a key (its id and name; the file's keys are named by their id) or a person (their
 * email), with their role and where they were (IP, user agent) when the change came through the API.
 */
export type AuditActor = Actor;

/** One audit entry as `GET audit` answers it. */
export interface AuditEntry {
  at: string;
  keyId: string;
  actor: AuditActor;
  /**
   * `stop`: the service stopped an experiment by itself (a guardrail or a sample-ratio mismatch: `after.stoppedBy`);
   * `invite`: an invitation link was made for a person; `disable`: the service disabled a webhook endpoint failing for
   * 24 hours.
   */
  action: 'create' | 'update' | 'delete' | 'stop' | 'reweight' | 'invite' | 'disable';
  /**
   * An item's kind, a privacy request's (`erasure`, `export`: named by the request's id, never the person), or a
   * webhook endpoint's (`webhook`: named by its id).
   */
  kind: ItemKind | 'erasure' | 'export' | 'person' | 'key' | 'webhook';
  name: string;
  before: Item | null;
  after: Item | null;
}

/** Which audit entries to read: all given conditions hold (`until` inclusive). */
export interface AuditFilter {
  /** The key's id or the person's email. */
  actor?: string;
  kind?: string;
  name?: string;
  since?: number;
  until?: number;
}

/** A project's audit entries, newest first, those the filter keeps. */
export function readAudit(storage: Storage, project: string, limit: number, filter: AuditFilter = {}): Promise<AuditEntry[]> {
  const where = ['project = ?'];
  const params: (string | number)[] = [project];
  const add = (sql: string, value: string | number | undefined): void => {
    if (value === undefined) return;
    where.push(sql);
    params.push(value);
  };
  add('key_id = ?', filter.actor);
  add('kind = ?', filter.kind);
  add('name = ?', filter.name);
  add('at >= ?', filter.since);
  add('at <= ?', filter.until);
  return storage.run(function* () {
    const { rows } = yield op(
      `SELECT at, key_id, action, kind, name, before_item, after_item, actor FROM audit_log WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
      ...params, limit,
    );
    return rows.map((r): AuditEntry => ({
      at: new Date(Number(r.at)).toISOString(),
      keyId: String(r.key_id),
      // Entries written before actors were recorded (and privacy requests' entries) were made with a key.
      actor: r.actor == null ? { type: 'key', id: String(r.key_id), name: String(r.key_id) } : JSON.parse(String(r.actor)) as AuditActor,
      action: String(r.action) as AuditEntry['action'],
      kind: String(r.kind) as AuditEntry['kind'],
      name: String(r.name),
      before: r.before_item === null ? null : (JSON.parse(String(r.before_item)) as Item),
      after: r.after_item === null ? null : (JSON.parse(String(r.after_item)) as Item),
    }));
  });
}
