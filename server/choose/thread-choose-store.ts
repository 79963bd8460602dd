import { SqliteWriterThread, threadEntry, WriterThreadUnavailable } from '../storage/sqlite/writer-thread.js';
import { packAssignments, type Assignment, type AssignmentInput } from './assignment-programs.js';
import type { ChooseStore, FirstVisit } from './choose-store.js';
import type { FirstVisitOutcome } from './first-visit-programs.js';
import { exposureSetParams, type ExposureSet } from './exposure-programs.js';
import type { StoredAssignments } from './writer-programs.js';

const ENTRY = threadEntry(import.meta.url, 'choose-writer');

/**
 * First assignments and exposures written by a SQLite writer thread with its own connection to `file`: under the
 * bench's load the inserts and their commits were a third of the main thread's time; here each costs the main thread
 * a message. Once the thread failed (it could not start, or died) the writes go to `fallback` (the storage, on the main
 * thread): slower, never lost; so do the runs it refused without sending them (WriterThreadUnavailable). The runs in
 * flight when it died reject (the ExposureWriter parks their sets; a Choose request answers 503 and is retried by its
 * caller).
 * @example new ExposureWriter(new ThreadChooseStore(storage.file, storageChooseStore(storage)), { logger })
 */
export class ThreadChooseStore implements ChooseStore {
  private readonly thread: SqliteWriterThread;

  /** `entry` is the thread's module (the Choose writer's; tests name one that cannot start). */
  constructor(file: string, private readonly fallback: ChooseStore, entry: URL = ENTRY) {
    // A visitor's answer waits for these commits: they go ahead of ingestion's (write-gate.ts).
    this.thread = new SqliteWriterThread(file, entry, 'NORMAL', 'interactive');
  }

  async recordExposures(sets: readonly ExposureSet[]): Promise<void> {
    if (sets.length === 0) return;
    const now = Date.now();
    await this.onThread(
      () => this.thread.run<void>('exposures', [sets.map((set) => exposureSetParams(set, now))]),
      () => this.fallback.recordExposures(sets),
    );
  }

  /** Insert-if-absent of each (project, experience, unit), committed by the thread; the stored rows, in order. */
  async getOrCreateAssignments(inputs: readonly AssignmentInput[]): Promise<Assignment[]> {
    if (inputs.length === 0) return [];
    const stored = await this.onThread<StoredAssignments>(
      () => this.thread.run('assignments', [packAssignments(inputs), Date.now()]),
      async () => ({ assignments: await this.fallback.getOrCreateAssignments(inputs) }),
    );
    if ('assignments' in stored) return stored.assignments;
    // Every row was new: they hold what was asked (cloning 20 rows back was most of what a new visitor cost the main
    // thread beyond a returning one).
    return inputs.map((input) => ({
      experience: input.experience, unit: input.unit, variation: input.variation, hashVersion: input.hashVersion,
      createdAt: stored.createdAt, created: true,
    }));
  }

  /** A first visit's write in the thread's next transaction (firstVisitProgram). */
  storeFirstVisit(visit: FirstVisit): Promise<FirstVisitOutcome> {
    const now = Date.now();
    const row = visit.exposures === null ? null : exposureSetParams(visit.exposures, now);
    return this.onThread(
      () => this.thread.run('firstVisit', [
        { project: visit.project, profileId: visit.profileId, targeting: visit.targeting }, packAssignments(visit.assignments), row, now,
      ]),
      () => this.fallback.storeFirstVisit(visit),
    );
  }

  /** Starts the thread and opens its connection (an empty write), so that the first new visitor does not wait for it. */
  async warm(): Promise<void> {
    // A thread that cannot start leaves the writes to the storage: a start is not the place to fail.
    await this.onThread(() => this.thread.run<void>('exposures', [[]]), async () => undefined);
  }

  /**
   * `write` on the thread, or `otherwise` when the thread is not running (failed, closed, or it could not start: the
   * run was never sent). A run the thread died under rejects with another error, which is the caller's: the
   * ExposureWriter parks its sets and retries them through the storage (so rows the thread had committed may be
   * written twice: exposures are at least once per session served, results count distinct units); a Choose request
   * answers 503 and its caller retries.
   */
  private async onThread<T>(write: () => Promise<T>, otherwise: () => Promise<T>): Promise<T> {
    if (this.thread.failed) return otherwise();
    try {
      return await write();
    } catch (error) {
      if (!(error instanceof WriterThreadUnavailable)) throw error;
      return otherwise();
    }
  }

  /** Ends the thread after its last write (call after the ExposureWriter's close() wrote everything). */
  close(): Promise<void> {
    return this.thread.close();
  }
}
