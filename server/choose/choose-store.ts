import type { Storage } from '../storage/storage.js';
import {
  assignmentAnswers, assignmentReadProgram, packAssignments, type Assignment, type AssignmentInput,
} from './assignment-programs.js';
import { STORE_ASSIGNMENTS, STORE_EXPOSURES, STORE_FIRST_VISIT } from './choose-programs.js';
import { exposureSetParams, type ExposureSet } from './exposure-programs.js';
import type { FirstVisitOutcome } from './first-visit-programs.js';

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

/**
 * First assignments and exposures, written as the storage places the Choose programs (choose-programs.ts: the
 * interactive lane, answered once committed without waiting for the disk; the README's "What a crash can lose").
 * A returning unit's assignments cost one read and no write; a new unit's are an insert-if-absent, and the unique
 * key decides between concurrent callers.
 * @example const store = chooseStore(storage); await store.getOrCreateAssignments(inputs);
 */
export function chooseStore(storage: Storage): ChooseStore {
  return {
    async getOrCreateAssignments(inputs) {
      if (inputs.length === 0) return [];
      const read = await storage.run(() => assignmentReadProgram(inputs));
      if (read.missing.length === 0) return assignmentAnswers(inputs, read);
      const now = Date.now();
      const stored = await storage.place(STORE_ASSIGNMENTS, packAssignments(read.missing), now);
      // Every row was new: they hold what was asked (cloning the rows back was most of what a new visitor cost
      // beyond a returning one).
      const written = 'assignments' in stored ? stored.assignments : read.missing.map((input) => ({
        experience: input.experience, unit: input.unit, variation: input.variation, hashVersion: input.hashVersion,
        createdAt: stored.createdAt, created: true,
      }));
      return assignmentAnswers(inputs, read, written);
    },

    storeFirstVisit({ project, profileId, targeting, assignments, exposures }) {
      const now = Date.now();
      const row = exposures === null ? null : exposureSetParams(exposures, now);
      return storage.place(STORE_FIRST_VISIT, { project, profileId, targeting }, packAssignments(assignments), row, now);
    },

    async recordExposures(sets) {
      if (sets.length === 0) return;
      const now = Date.now();
      await storage.place(STORE_EXPOSURES, sets.map((set) => exposureSetParams(set, now)));
    },
  };
}
