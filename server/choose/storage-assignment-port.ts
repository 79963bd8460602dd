import type { Storage } from '../storage/storage.js';
import type { AssignmentPort, AssignmentRequest } from './choose-types.js';

/**
 * The engine's sticky-assignment port over storage for one project: insert-if-absent on
 * (project, experience, unit) in the database, so every node and every restart serves the first variation
 * (DESIGN 4). The batch form makes a request's experiments one round trip.
 * @example chooseExperiences(experiences, request, { assignments: storageAssignmentPort(storage, 'acme/shop') })
 */
export function storageAssignmentPort(storage: Storage, project: string): AssignmentPort {
  return {
    async getOrCreateAssignment(experience, unitKey, proposedVariation, hashVersion) {
      const stored = await storage.getOrCreateAssignment({
        project, experience, unit: unitKey, variation: proposedVariation, hashVersion,
      });
      return stored.variation;
    },
    async getOrCreateAssignments(requests: readonly AssignmentRequest[]) {
      const stored = await storage.getOrCreateAssignments(requests.map((r) => ({
        project,
        experience: r.experience,
        unit: r.unitKey,
        variation: r.proposedVariation,
        hashVersion: r.hashVersion,
      })));
      return stored.map((a) => a.variation);
    },
  };
}
