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

/** The ids one request names, by kind (emails normalized, email-address.ts): what is looked up on the list. */
export interface NamedIds {
  profiles: readonly string[];
  users: readonly string[];
  emails?: readonly string[];
}

/**
 * Which of `ids` are suppressed in `project` (as `profile\n<id>`, `user\n<id>` and `email\n<address>`), read in the
 * caller's transaction: what it stores next is checked against the list as committed. Every kind in one statement per
 * chunk (one index lookup per id), so naming more kinds of id costs no round trip more.
 */
export function* suppressedIds(project: string, ids: NamedIds): SqlProgram<Set<string>> {
  const wanted: [SuppressedKind, string][] = [
    ...ids.profiles.map((id) => ['profile', id] as [SuppressedKind, string]),
    ...ids.users.map((id) => ['user', id] as [SuppressedKind, string]),
    ...(ids.emails ?? []).map((id) => ['email', id] as [SuppressedKind, string]),
  ];
  const found = new Set<string>();
  for (let i = 0; i < wanted.length; i += CHUNK) {
    const byKind = new Map<SuppressedKind, string[]>();
    for (const [kind, id] of wanted.slice(i, i + CHUNK)) {
      const list = byKind.get(kind);
      if (list === undefined) byKind.set(kind, [id]);
      else list.push(id);
    }
    // A SELECT per kind joined by UNION ALL: each an equality on the key's first two columns, which both planners
    // answer from the primary key (an OR of the kinds may not be).
    const parts = [...byKind].map(([, list]) => `SELECT kind, value FROM suppressions WHERE project = ? AND kind = ? AND value IN (${list.map(() => '?').join(', ')})`);
    const params = [...byKind].flatMap(([kind, list]) => [project, kind, ...list]);
    const { rows } = yield op(parts.join(' UNION ALL '), ...params);
    for (const r of rows) found.add(`${str(r.kind)}\n${str(r.value)}`);
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
  #users = new Map<string, Set<string>>();
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

  /** Whether `userId` of `project` is suppressed (no read: this node's copy). */
  hasUser(project: string, userId: string): boolean {
    return this.#users.get(project)?.has(userId) ?? false;
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
      const next = { profile: new Map<string, Set<string>>(), user: new Map<string, Set<string>>() };
      const known = new Set<string>();
      const learnt = new Map<string, { profiles: string[]; users: string[] }>();
      for (const { project, kind, value } of rows) {
        const key = `${project}\n${kind}\n${value}`;
        known.add(key);
        const byProject = next[kind as 'profile' | 'user'];
        let set = byProject.get(project);
        if (set === undefined) byProject.set(project, (set = new Set()));
        set.add(value);
        if (this.#size >= 0 && !this.#known.has(key)) {
          let ids = learnt.get(project);
          if (ids === undefined) learnt.set(project, (ids = { profiles: [], users: [] }));
          (kind === 'profile' ? ids.profiles : ids.users).push(value);
        }
      }
      this.#profiles = next.profile;
      this.#users = next.user;
      this.#known = known;
      this.#size = size;
      for (const [project, ids] of learnt) this.onSuppressed(project, ids);
    } catch (error) {
      this.options.logger?.warn({ error: String(error) }, 'cannot read the suppression list; keeping the last copy');
    }
  }
}
