import type { ProjectRef } from '../config/config-store.js';
import { op, type SqlProgram } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import { num, str } from '../storage/sql-values.js';
import { inList } from './person.js';

// Retention: per project, events received more than `eventsDays` ago, and the exposures of experiments that ended more
// than `exposuresDays` ago, are deleted in small batches. A sweep walks the project's events in key order, a chunk of
// keys at a time, by a read (no write lock held while looking; each read starts where the last ended, so rows deleted
// but not yet vacuumed on PostgreSQL are never read again), and deletes the old rows by key, at most a thousand per
// short transaction, with a second's pause after each: at most 1,000 rows a second (86 million a day, more than any
// shop we serve receives; a backlog older than retention, when it is first set, goes at that pace too), so that
// ingestion's writes go on between them at full speed. Deleting a row costs about what storing it does, so a faster
// pace takes from saturated ingestion what it deletes (docs/privacy.md has the measurements). Every node sweeps; two
// sweeping one project at once delete the same rows twice, harmlessly.

const DAY_MS = 86_400_000;
/** Keys read per chunk of the walk (a read: it holds no lock). */
export const RETENTION_CHUNK = 5000;
/** Most rows per delete (a transaction of a few milliseconds), and per exposure batch. */
export const RETENTION_BATCH = 1000;
/** The pause after each delete: the writer is free for ingestion nearly all the time a sweep runs. */
const DELETE_PAUSE_MS = 1000;
/** The pause after a chunk that deleted nothing. */
const READ_PAUSE_MS = 20;

/** What a sweep deleted. */
export interface SweepResult {
  events: number;
  exposures: number;
  /** Exposure rows that kept their choices of experiments still within retention (the ended ones were taken out). */
  exposuresRewritten: number;
}

/** The next chunk of the walk: the project's events after `after` in key order, the old ones' ids and the last key. */
function* oldEventsChunk(project: string, after: string, before: number): SqlProgram<{ old: string[]; last: string | null }> {
  const { rows } = yield op(
    'SELECT event_id, received_at FROM events WHERE project = ? AND event_id > ? ORDER BY event_id LIMIT ?', project, after, RETENTION_CHUNK,
  );
  const old = rows.filter((r) => num(r.received_at) < before).map((r) => str(r.event_id));
  return { old, last: rows.length < RETENTION_CHUNK ? null : str(rows[rows.length - 1]!.event_id) };
}

/**
 * Deletes the project's events received before `before` whose keys lie from `first` to `last`: a range of the primary
 * key, which both databases walk directly (PostgreSQL planned a long `IN` list as a scan of the whole table).
 */
/** A batch of the feed answers issued before `before` (their impressions and clicks are gone with the events). */
function* deleteOldRecommendations(project: string, before: number): SqlProgram<number> {
  return (yield op(
    `DELETE FROM recommendations WHERE project = ? AND recommendation_id IN
       (SELECT recommendation_id FROM recommendations WHERE project = ? AND issued_at < ? LIMIT ?)`,
    project, project, before, RETENTION_BATCH,
  )).changes;
}

function* deleteEvents(project: string, first: string, last: string, before: number): SqlProgram<number> {
  return (yield op('DELETE FROM events WHERE project = ? AND event_id >= ? AND event_id <= ? AND received_at < ?', project, first, last, before)).changes;
}

/**
 * Keeps each experiment's lifetime as the sweeps see it: running (no end), or ended since the first sweep that found it
 * stopped, given a winner, or gone from the config (an experiment running again loses its end). Answers the ended
 * experiments whose exposures are due (ended before `before`) and not yet swept.
 */
function* endedExperiments(project: ProjectRef, now: number, before: number): SqlProgram<string[]> {
  const experiments = (project.config.experiences ?? []).filter((e) => e.variations !== undefined);
  const running = new Set(experiments.filter((e) => (e.status ?? 'running') === 'running').map((e) => e.name));
  for (const { name } of experiments) {
    yield op(
      `INSERT INTO experiment_lifetimes (project, experience, ended_at, swept_at) VALUES (?, ?, NULL, NULL)
       ON CONFLICT (project, experience) DO NOTHING`, project.key, name,
    );
  }
  const { rows } = yield op('SELECT experience, ended_at, swept_at FROM experiment_lifetimes WHERE project = ?', project.key);
  const due: string[] = [];
  for (const r of rows) {
    const name = str(r.experience);
    if (running.has(name)) {
      if (r.ended_at !== null) yield op('UPDATE experiment_lifetimes SET ended_at = NULL, swept_at = NULL WHERE project = ? AND experience = ?', project.key, name);
    } else if (r.ended_at === null) {
      yield op('UPDATE experiment_lifetimes SET ended_at = ? WHERE project = ? AND experience = ?', now, project.key, name);
    } else if (r.swept_at === null && num(r.ended_at) < before) {
      due.push(name);
    }
  }
  return due;
}

/**
 * Takes the `ended` experiments out of a batch of the project's exposure rows after id `after`: a row holding nothing
 * else is deleted, one holding others too keeps those. Answers the next id (null: done) and what it did.
 */
function* sweepExposures(project: string, ended: ReadonlySet<string>, after: number): SqlProgram<{ next: number | null; deleted: number; rewritten: number }> {
  const { rows } = yield op('SELECT id, choices FROM exposures WHERE project = ? AND id > ? ORDER BY id LIMIT ?', project, after, RETENTION_BATCH);
  let deleted = 0;
  let rewritten = 0;
  const gone: number[] = [];
  for (const r of rows) {
    const choices = JSON.parse(str(r.choices)) as [string, string | null][];
    const kept = choices.filter(([experience]) => !ended.has(experience));
    if (kept.length === choices.length) continue;
    if (kept.length === 0) gone.push(num(r.id));
    else {
      yield op('UPDATE exposures SET choices = ?, choice_count = ? WHERE id = ?', JSON.stringify(kept), kept.length, num(r.id));
      rewritten++;
    }
  }
  if (gone.length > 0) deleted = (yield op(`DELETE FROM exposures WHERE id IN ${inList(gone.length)}`, ...gone)).changes;
  return { next: rows.length < RETENTION_BATCH ? null : num(rows[rows.length - 1]!.id), deleted, rewritten };
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * One sweep of one project: its old events, batch by batch, then the exposures of its experiments ended long enough
 * ago. `stop` is checked between batches (closing).
 * @example await sweepProject(storage, project, Date.now());
 */
export async function sweepProject(storage: Storage, project: ProjectRef, now: number, stop: () => boolean = () => false): Promise<SweepResult> {
  const retention = project.config.retention ?? {};
  const result: SweepResult = { events: 0, exposures: 0, exposuresRewritten: 0 };
  if (retention.eventsDays !== undefined) {
    const before = now - retention.eventsDays * DAY_MS;
    for (let after: string | null = ''; after !== null && !stop();) {
      const from: string = after;
      const chunk = await storage.run(() => oldEventsChunk(project.key, from, before));
      for (let i = 0; i < chunk.old.length && !stop(); i += RETENTION_BATCH) {
        const ids = chunk.old.slice(i, i + RETENTION_BATCH);
        result.events += await storage.transaction(() => deleteEvents(project.key, ids[0]!, ids[ids.length - 1]!, before), { rows: ids.length });
        await pause(DELETE_PAUSE_MS);
      }
      after = chunk.last;
      if (after !== null && chunk.old.length === 0) await pause(READ_PAUSE_MS);
    }
    while (!stop() && await storage.transaction(() => deleteOldRecommendations(project.key, before)) === RETENTION_BATCH) {
      await pause(DELETE_PAUSE_MS);
    }
  }
  if (retention.exposuresDays !== undefined && !stop()) {
    const due = await storage.transaction(() => endedExperiments(project, now, now - retention.exposuresDays! * DAY_MS));
    if (due.length > 0) {
      const ended = new Set(due);
      for (let after: number | null = 0; after !== null && !stop();) {
        const from: number = after;
        const batch = await storage.transaction(() => sweepExposures(project.key, ended, from));
        result.exposures += batch.deleted;
        result.exposuresRewritten += batch.rewritten;
        after = batch.next;
        if (after !== null) await pause(DELETE_PAUSE_MS);
      }
      if (!stop()) {
        await storage.transaction(function* () {
          yield op(`UPDATE experiment_lifetimes SET swept_at = ? WHERE project = ? AND experience IN ${inList(due.length)}`, now, project.key, ...due);
        });
      }
    }
  }
  return result;
}

export interface RetentionSweeperOptions {
  /** How often a node sweeps every project with a retention (default 1 h; the first sweep a minute after start). */
  intervalMs?: number;
  now?: () => number;
  logger?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/**
 * Sweeps, on every node, each project whose config sets a `retention`, one sweep at a time.
 * @example const sweeper = new RetentionSweeper(storage, () => config.projects()); sweeper.start();
 */
export class RetentionSweeper {
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<Map<string, SweepResult>> | null = null;
  #closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly projects: () => readonly ProjectRef[],
    private readonly options: RetentionSweeperOptions = {},
  ) {}

  start(): void {
    const every = this.options.intervalMs ?? 3_600_000;
    const next = (delay: number): void => {
      this.#timer = setTimeout(() => {
        void this.sweep().finally(() => {
          if (!this.#closed) next(every);
        });
      }, delay);
      this.#timer.unref();
    };
    next(Math.min(every, 60_000));
  }

  /** Sweeps every project with a retention now (joins a sweep under way); answers what it deleted per project. */
  sweep(): Promise<Map<string, SweepResult>> {
    this.#sweeping ??= this.#sweepAll().finally(() => {
      this.#sweeping = null;
    });
    return this.#sweeping;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#sweeping;
  }

  async #sweepAll(): Promise<Map<string, SweepResult>> {
    const results = new Map<string, SweepResult>();
    for (const project of this.projects()) {
      if (project.config.retention === undefined || this.#closed) continue;
      try {
        const result = await sweepProject(this.storage, project, (this.options.now ?? Date.now)(), () => this.#closed);
        results.set(project.key, result);
        if (result.events + result.exposures + result.exposuresRewritten > 0) this.options.logger?.info({ project: project.key, ...result }, 'retention sweep');
      } catch (error) {
        this.options.logger?.warn({ project: project.key, error: String(error) }, 'retention sweep failed; the next one retries');
      }
    }
    return results;
  }
}
