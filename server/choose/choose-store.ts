import { op } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import {
  assignmentAnswers, assignmentReadProgram, assignmentWriteProgram, type Assignment, type AssignmentInput,
} from './assignment-programs.js';
import { exposureSetParams, INSERT_EXPOSURE_SETS, type ExposureSet } from './exposure-programs.js';
import { firstVisitProgram, type FirstVisitOutcome } from './first-visit-programs.js';

/** A Choose answer to a profile no cache knows, built as if the profile were new: what firstVisitProgram stores. */
export interface FirstVisit {
  project: string;
  /** The profile the answer assumed the identity graph does not hold. */
  profileId: string;
  /** Whether the answer assumed the profile has no stored targeting too (a requested experience has a condition). */
  targeting: boolean;
  /** The first assignments it proposed. */
  assignments: readonly AssignmentInput[];
  /** Its exposures, stored with them if every variation stands; null when it has none to record. */
  exposures: ExposureSet | null;
}

/** Where first assignments are stored (insert-if-absent; the stored rows come back in the order asked). */
export interface AssignmentStore {
  getOrCreateAssignments(inputs: readonly AssignmentInput[]): Promise<Assignment[]>;
}

/** Where a first visit's answer is stored and checked. */
export interface FirstVisitStore {
  /** A first visit's write, committed (firstVisitProgram). */
  storeFirstVisit(visit: FirstVisit): Promise<FirstVisitOutcome>;
}

/** Everything the Choose API writes. */
export type ChooseStore = AssignmentStore & FirstVisitStore & ExposureSink;

/** Where the ExposureWriter puts its batches. */
export interface ExposureSink {
  recordExposures(sets: readonly ExposureSet[]): Promise<void>;
}

/** Exposure sets per statement: under both databases' bound-parameter limits. */
const EXPOSURE_CHUNK = 500;

/**
 * First assignments and exposures written through the storage on the main thread: PostgreSQL's way, and SQLite's
 * when its writer thread is not there (an in-memory database, or the thread failed; thread-choose-store.ts).
 * A returning unit's assignments cost one read and no write; a new unit's are an insert-if-absent in a transaction
 * (on SQLite, in the next group commit), and the unique key decides between concurrent callers. Both are answered once
 * committed, without waiting for the disk (`durability: 'commit'`; the README's "What a crash can lose").
 * @example const store = storageChooseStore(storage); await store.getOrCreateAssignments(inputs);
 */
export function storageChooseStore(storage: Storage): ChooseStore {
  return {
    async getOrCreateAssignments(inputs) {
      if (inputs.length === 0) return [];
      const read = await storage.run(() => assignmentReadProgram(inputs));
      if (read.missing.length === 0) return assignmentAnswers(inputs, read);
      const { project, missing } = read;
      const now = Date.now();
      const written = await storage.transaction(() => assignmentWriteProgram(project, missing, now), { rows: missing.length, durability: 'commit' });
      return assignmentAnswers(inputs, read, written);
    },

    storeFirstVisit({ project, profileId, targeting, assignments, exposures }) {
      const now = Date.now();
      const row = exposures === null ? null : exposureSetParams(exposures, now);
      return storage.transaction(
        () => firstVisitProgram({ project, profileId, targeting }, assignments, row, now, 'batch'),
        { rows: assignments.length + 1, durability: 'commit' },
      );
    },

    async recordExposures(sets) {
      if (sets.length === 0) return;
      const now = Date.now();
      await storage.transaction(function* () {
        for (let i = 0; i < sets.length; i += EXPOSURE_CHUNK) {
          const chunk = sets.slice(i, i + EXPOSURE_CHUNK);
          const params = chunk.flatMap((set) => exposureSetParams(set, now));
          yield op(`${INSERT_EXPOSURE_SETS} VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`, ...params);
        }
      }, { rows: sets.length, durability: 'commit' });
    },
  };
}
