import type { Storage } from '../storage/storage.js';
import { SqliteWriterThread, threadEntry, threadFile } from '../storage/sqlite/writer-thread.js';
import { experimentResultsProgram, type ExperimentConfig } from './experiment-results.js';
import type { ResultsQuery } from './results-query.js';
import type { ResultsReport } from './results-report.js';

const ENTRY = threadEntry(import.meta.url, 'results-reader');

/**
 * Computes experiment results. On a SQLite file they are computed by a reader thread with its own read-only
 * connection: a computation of a second at shop scale would otherwise hold the event loop, and every other request
 * with it. On PostgreSQL (the database does the reading) and an in-memory SQLite database, by the storage itself.
 * If the thread cannot run, the storage computes them.
 * @example const results = new ResultsService(storage); await results.compute('acme/shop', hero, query);
 */
export class ResultsService {
  private readonly thread: SqliteWriterThread | null;

  constructor(private readonly storage: Storage) {
    const file = threadFile(storage);
    this.thread = file === null ? null : new SqliteWriterThread(file, ENTRY);
  }

  compute(project: string, experience: ExperimentConfig, query: ResultsQuery): Promise<ResultsReport> {
    const { dialect } = this.storage;
    const here = (): Promise<ResultsReport> => this.storage.run(() => experimentResultsProgram(dialect, project, experience, query));
    const thread = this.thread;
    if (thread === null || thread.failed) return here();
    // A thread that died (or could not start) under this request: computed here instead.
    return thread.run<ResultsReport>('results', [dialect, project, experience, query]).catch((error: unknown) => {
      if (thread.failed) return here();
      throw error;
    });
  }

  /** Ends the reader thread (after the requests it is computing). */
  close(): Promise<void> {
    return this.thread?.close() ?? Promise.resolve();
  }
}
