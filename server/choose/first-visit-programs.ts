import { profileIsKnownProgram } from '../identity/identity-programs.js';
import { insertRows, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { assignmentsInsertProgram, type Assignment, type AssignmentInput } from './assignment-programs.js';
import { INSERT_EXPOSURE_SETS } from './exposure-programs.js';

/**
 * What a first visit's write found (firstVisitProgram):
 * - `answered`: the profile is unknown and every first assignment is stored as proposed (`created` of them by this
 *   write; the others by an earlier request that proposed the same), and the answer's exposures are stored with them;
 * - `known`: the identity graph holds the profile (a link, attributes or accounts): nothing was written, and the answer
 *   must be built from what is stored;
 * - `differs`: the profile is unknown, but a unit already had another variation (a weight change since an earlier
 *   request stored it): the first assignments are stored, as `assignments` says, the exposures are not.
 */
export type FirstVisitOutcome =
  | { kind: 'answered'; created: number }
  | { kind: 'known' }
  | { kind: 'differs'; assignments: Assignment[] };

/**
 * A Choose answer to a profile no cache knows, built as if the profile were new (its own canonical profile, no stored
 * targeting) and stored in ONE transaction, which also checks that assumption (the stored targeting only when the
 * answer read it: `targeting`): the proposed first assignments
 * (insert-if-absent under the unique key), then the answer's exposure row (exposureSetParams) if every stored variation
 * is the proposed one.
 */
export function* firstVisitProgram(
  visit: { project: string; profileId: string; targeting: boolean }, inputs: readonly AssignmentInput[],
  exposureRow: SqlValue[] | null, now: number,
): SqlProgram<FirstVisitOutcome> {
  const { project, profileId } = visit;
  if (yield* profileIsKnownProgram(project, profileId, visit.targeting)) return { kind: 'known' };
  let created = inputs.length;
  if (inputs.length > 0) {
    const stored = yield* assignmentsInsertProgram(inputs, now);
    if (stored !== null) {
      if (stored.some((row, i) => row.variation !== inputs[i]!.variation)) return { kind: 'differs', assignments: stored };
      created = stored.filter((row) => row.created).length;
    }
  }
  if (exposureRow !== null) yield insertRows(INSERT_EXPOSURE_SETS, [exposureRow]);
  return { kind: 'answered', created };
}
