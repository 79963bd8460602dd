import { program } from '../storage/program.js';
import { insertRows, lockingRows, op, valuesOp, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import type { Storage } from '../storage/storage.js';
import { experimentNames } from './exposure-pairs.js';

// Results' index of exposures by experiment (`experiment_exposure_ids`, migration 16) is kept by this indexer, not by
// the writes: the Choose API appends one id per exposure row to `exposures_unindexed` (a trigger), and a chunk here
// writes, for each experiment those rows name, one list of their ids, on the background lane, away from a visitor's
// answer.
// Results read the queue beside the lists, so nothing waits for it.

/** Rows per chunk: a chunk holds the writer for a few milliseconds. */
const CHUNK_ROWS = 500;
/** Ids per IN list: under both databases' bound-parameter limits. */
const IDS = 500;
/** How often a node looks at the queue. */
const INTERVAL_MS = 1000;
/**
 * Most rows a node indexes per look (a second): a pace, so that under a flood of new visitors the indexer takes a
 * bounded share of the machine from the answers; beyond it the rows wait in the queue, where results read them too.
 */
const ROWS_PER_LOOK = 1000;

/** What one chunk did; `more` when the queue held a full chunk (the next may have more). */
export interface IndexedChunk {
  rows: number;
  more: boolean;
}

/**
 * Lists up to `maxRows` queued exposure rows (the oldest) by experiment in `experiment_exposure_ids` and takes them off
 * the queue, in one transaction. Queue rows another node's chunk holds are skipped; an id whose exposure row is gone
 * (erased) just leaves.
 * @example const { more } = await storage.place(INDEX_EXPOSURES, 1000);
 */
export function* indexExposuresProgram(maxRows: number): SqlProgram<IndexedChunk> {
  const { values: queued = [] } = yield lockingRows(
    valuesOp('SELECT exposure_id FROM exposures_unindexed ORDER BY exposure_id LIMIT ?', maxRows), 'skip',
  );
  const ids = queued.map(([id]) => num(id));
  if (ids.length === 0) return { rows: 0, more: false };
  // project → experience → the ids of the rows naming it, ascending.
  const lists = new Map<string, Map<string, number[]>>();
  for (let i = 0; i < ids.length; i += IDS) {
    const chunk = ids.slice(i, i + IDS);
    const { values: rows = [] } = yield valuesOp(
      `SELECT id, project, choices FROM exposures WHERE id IN (${chunk.map(() => '?').join(', ')}) ORDER BY id`, ...chunk,
    );
    for (const [id, project, choices] of rows) {
      let byExperience = lists.get(str(project));
      if (byExperience === undefined) lists.set(str(project), (byExperience = new Map()));
      const row = num(id);
      for (const experience of experimentNames(str(choices))) {
        const list = byExperience.get(experience);
        if (list === undefined) byExperience.set(experience, [row]);
        else if (list[list.length - 1] !== row) list.push(row);
      }
    }
  }
  const entries: SqlValue[][] = [];
  for (const [project, byExperience] of lists) {
    for (const [experience, list] of byExperience) entries.push([project, experience, list[0]!, JSON.stringify(list)]);
  }
  // In key order, as every writer of these rows takes them.
  entries.sort((a, b) => compare(a[0] as string, b[0] as string) || compare(a[1] as string, b[1] as string));
  yield insertRows(
    'INSERT INTO experiment_exposure_ids (project, experience, first_id, ids)', entries,
    'ON CONFLICT (project, experience, first_id) DO NOTHING',
  );
  for (let i = 0; i < ids.length; i += IDS) {
    const chunk = ids.slice(i, i + IDS);
    yield op(`DELETE FROM exposures_unindexed WHERE exposure_id IN (${chunk.map(() => '?').join(', ')})`, ...chunk);
  }
  return { rows: ids.length, more: ids.length === maxRows };
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** A chunk of the exposure index (indexExposuresProgram): a background write (derived: a lost chunk is done again). */
export const INDEX_EXPOSURES = program('results.indexExposures', 'background', indexExposuresProgram);

/**
 * Keeps one node's share of the exposure index up: every second, chunks until the queue is empty or ROWS_PER_LOOK rows
 * were indexed. Every node runs one; their chunks take different queue rows.
 * @example const indexer = new ExposureIndexer(storage, { logger }); indexer.start(); … await indexer.close();
 */
export class ExposureIndexer {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #closed = false;

  constructor(
    private readonly storage: Storage,
    private readonly options: { logger?: { warn(details: object, message: string): void }; intervalMs?: number; rowsPerLook?: number } = {},
  ) {}

  start(): void {
    this.#timer = setInterval(() => void this.run(), this.options.intervalMs ?? INTERVAL_MS);
    this.#timer.unref();
  }

  /**
   * Indexes up to a look's rows of the queue (joins a run under way); never rejects (a failure is logged, retried
   * later).
   */
  run(): Promise<void> {
    this.#running ??= this.#drain().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
  }

  async #drain(): Promise<void> {
    try {
      for (let rows = 0; !this.#closed && rows < (this.options.rowsPerLook ?? ROWS_PER_LOOK);) {
        const chunk = await this.storage.place(INDEX_EXPOSURES, CHUNK_ROWS);
        rows += chunk.rows;
        if (!chunk.more) break;
      }
    } catch (error) {
      this.options.logger?.warn({ err: error }, 'indexing exposures for results failed; will retry');
    }
  }
}
