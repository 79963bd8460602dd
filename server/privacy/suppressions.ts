import { lockKeys, op, type SqlOp, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import { num, str } from '../storage/sql-values.js';

// The suppression list: the ids of erased people (profile ids, user ids, emails). Ingestion refuses, quietly, whatever
// names one (an old outbox replaying after the erasure answers 200 and is stored nowhere), so an erased person does not
// come back. The database holds the list; each node keeps a copy for the Choose API, which must not write
// assignments or exposures for a suppressed profile and cannot afford a read per request.

export type SuppressedKind = 'profile' | 'user' | 'email';

export interface Suppression {
  kind: SuppressedKind;
  value: string;
  requestId: string;
  createdAt: number;
}

/**
 * A transaction that stores what the list may refuse (ingestion) holds this project's erasure lock shared, and an
 * erasure adds to the list holding it alone. So the erasure waits for the batches being stored to commit, and a batch
 * that begins meanwhile waits for the erasure, then reads the list with its ids on it: no batch read the list before
 * an erasure and stored after it.
 * @example yield erasureLock(['acme/shop'], 'shared');
 */
export function erasureLock(projects: readonly string[], mode: 'shared' | 'alone'): SqlOp {
  return lockKeys(projects.map((project) => `svc_erasure:${project}`), mode);
}

/** Rows per statement: well under both databases' bound-parameter limits. */
const CHUNK = 400;

/**
 * Which of `profiles` and `users` are suppressed in `project` (as `profile\n<id>` and `user\n<id>`), read in the
 * caller's transaction: what it stores next is checked against the list as committed.
 */
export function* suppressedIds(project: string, profiles: readonly string[], users: readonly string[]): SqlProgram<Set<string>> {
  const found = new Set<string>();
  for (const [kind, ids] of [['profile', profiles], ['user', users]] as const) {
    for (let i = 0; i < ids.length; i += CHUNK) {
      const chunk = ids.slice(i, i + CHUNK);
      const { rows } = yield op(
        `SELECT value FROM suppressions WHERE project = ? AND kind = ? AND value IN (${chunk.map(() => '?').join(', ')})`,
        project, kind, ...chunk,
      );
      for (const r of rows) found.add(`${kind}\n${str(r.value)}`);
    }
  }
  return found;
}

/** Adds ids to the list (an id already there keeps its first request). */
export function* suppress(project: string, requestId: string, kind: SuppressedKind, values: readonly string[], at: number): SqlProgram<void> {
  for (const value of values) {
    yield op(
      `INSERT INTO suppressions (project, kind, value, request_id, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (project, kind, value) DO NOTHING`,
      project, kind, value, requestId, at,
    );
  }
}

/** A project's list, newest first. */
export function* listSuppressions(project: string): SqlProgram<Suppression[]> {
  const { rows } = yield op(
    'SELECT kind, value, request_id, created_at FROM suppressions WHERE project = ? ORDER BY created_at DESC, kind, value', project,
  );
  return rows.map((r) => ({ kind: str(r.kind) as SuppressedKind, value: str(r.value), requestId: str(r.request_id), createdAt: num(r.created_at) }));
}

/** Called with the ids a node learns are suppressed: they leave its caches. */
export type OnSuppressed = (project: string, ids: { profiles: string[]; users: string[] }) => void;

const DEFAULT_POLL_MS = 1000;

/**
 * This node's copy of the suppression list, for the Choose API: read at start, then again whenever the list's size
 * changes (polled every second, so a node learns of another node's erasure within about a second; the node that
 * erases tells its own copy at once with `refresh`). Ids it learns of are handed to `onSuppressed` (cache eviction).
 * @example const list = new SuppressionList(storage, (project, ids) => choose.forget(project, ids)); await list.start();
 */
export class SuppressionList {
  #profiles = new Map<string, Set<string>>();
  /** Every id read, as `project\nkind\nvalue`: what is new at a read is handed to onSuppressed. */
  #known = new Set<string>();
  #size = -1;
  #timer: NodeJS.Timeout | undefined;
  #refreshing: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly onSuppressed: OnSuppressed,
    private readonly options: { pollMs?: number; logger?: { warn(obj: object, msg: string): void } } = {},
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    const poll = (): void => {
      this.#timer = setTimeout(() => {
        void this.refresh().finally(() => {
          if (!this.#closed) poll();
        });
      }, this.options.pollMs ?? DEFAULT_POLL_MS);
      this.#timer.unref();
    };
    poll();
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#refreshing;
  }

  /** Whether `profileId` of `project` is suppressed (no read: this node's copy). */
  hasProfile(project: string, profileId: string): boolean {
    return this.#profiles.get(project)?.has(profileId) ?? false;
  }

  /** Reads the list again when its size changed; a failed read keeps the last copy (logged). */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#read().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  async #read(): Promise<void> {
    try {
      const size = await this.storage.run(function* () {
        const { rows } = yield op('SELECT COUNT(*) AS n FROM suppressions');
        return num(rows[0]?.n);
      });
      if (size === this.#size) return;
      const rows = await this.storage.run(function* () {
        const { rows: all } = yield op("SELECT project, kind, value FROM suppressions WHERE kind IN ('profile', 'user')");
        return all.map((r) => ({ project: str(r.project), kind: str(r.kind), value: str(r.value) }));
      });
      const next = new Map<string, Set<string>>();
      const known = new Set<string>();
      const learnt = new Map<string, { profiles: string[]; users: string[] }>();
      for (const { project, kind, value } of rows) {
        const key = `${project}\n${kind}\n${value}`;
        known.add(key);
        if (kind === 'profile') {
          let set = next.get(project);
          if (set === undefined) next.set(project, (set = new Set()));
          set.add(value);
        }
        if (this.#size >= 0 && !this.#known.has(key)) {
          let ids = learnt.get(project);
          if (ids === undefined) learnt.set(project, (ids = { profiles: [], users: [] }));
          (kind === 'profile' ? ids.profiles : ids.users).push(value);
        }
      }
      this.#profiles = next;
      this.#known = known;
      this.#size = size;
      for (const [project, ids] of learnt) this.onSuppressed(project, ids);
    } catch (error) {
      this.options.logger?.warn({ error: String(error) }, 'cannot read the suppression list; keeping the last copy');
    }
  }
}
