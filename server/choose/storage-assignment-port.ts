import type { AssignmentCache } from './assignment-cache.js';
import type { AssignmentInput } from './assignment-programs.js';
import type { AssignmentStore } from './choose-store.js';
import type { AssignmentPort, AssignmentRequest } from './engine/choose-types.js';

/**
 * The engine's sticky-assignment port over storage for one project: insert-if-absent on
 * (project, experience, unit) in the database, so every node and every restart serves the first variation. A
 * request's experiments are one call to the store, and none at all when every assignment is already in `cache`
 * (stored assignments never change, so a returning unit is served from memory).
 * @example chooseExperiences(experiences, request, { assignments: storageAssignmentPort(store, 'acme/shop', cache) })
 */
export function storageAssignmentPort(storage: AssignmentStore, project: string, cache?: AssignmentCache): AssignmentPort {
  // At once when the cache holds every pair; otherwise one storage call for the missing ones, remembered.
  const getOrCreateAssignments = (requests: readonly AssignmentRequest[]): string[] | Promise<string[]> => {
    const answers: (string | undefined)[] = requests.map((r) => cache?.get(project, r.experience, r.unitKey));
    const missing: number[] = [];
    for (let i = 0; i < answers.length; i++) if (answers[i] === undefined) missing.push(i);
    if (missing.length === 0) return answers as string[];
    return storage.getOrCreateAssignments(missing.map((i) => {
      const r = requests[i]!;
      return { project, experience: r.experience, unit: r.unitKey, variation: r.proposedVariation, hashVersion: r.hashVersion };
    })).then((stored) => {
      for (let j = 0; j < missing.length; j++) {
        const i = missing[j]!;
        const found = stored[j];
        if (found === undefined) throw new Error('assignment vanished after insert-if-absent');
        answers[i] = found.variation;
        cache?.set(project, requests[i]!.experience, requests[i]!.unitKey, found.variation);
      }
      return answers as string[];
    });
  };
  return {
    knownAssignments(unitKey) {
      return cache?.unitAssignments(project, unitKey);
    },
    getOrCreateAssignments,
  };
}

/**
 * The engine's port for a first visit (ChooseService): the variations `cache` holds, and for the other units the
 * proposed one, at once, each added to `proposed` for the one write that stores and checks them all.
 */
export function proposingAssignmentPort(project: string, cache: AssignmentCache, proposed: AssignmentInput[]): AssignmentPort {
  return {
    knownAssignments(unitKey) {
      return cache.unitAssignments(project, unitKey);
    },
    getOrCreateAssignments(requests) {
      return requests.map((r) => {
        const known = cache.get(project, r.experience, r.unitKey);
        if (known !== undefined) return known;
        proposed.push({ project, experience: r.experience, unit: r.unitKey, variation: r.proposedVariation, hashVersion: r.hashVersion });
        return r.proposedVariation;
      });
    },
  };
}
