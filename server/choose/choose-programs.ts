import { program } from '../storage/program.js';
import { insertRows, type SqlValue } from '../storage/sql-program.js';
import { assignmentsInsertProgram, unpackAssignments, type Assignment, type PackedAssignments } from './assignment-programs.js';
import { INSERT_EXPOSURE_SETS } from './exposure-programs.js';
import { firstVisitProgram } from './first-visit-programs.js';

// The Choose API's writes, as named programs of the interactive lane (a visitor's answer waits for them: storage.ts).
// Their arguments may be posted elsewhere by the storage, so they are plain values: first assignments as one flat array
// (packAssignments), exposure sets as the values of their rows (exposureSetParams).

/**
 * A unit's first assignments as written: `createdAt` alone when every row was new and stored as asked (the common
 * case: the caller rebuilds the rows from what it asked), else the stored rows.
 */
export type StoredAssignments = { createdAt: number } | { assignments: Assignment[] };

/** Insert-if-absent on (project, experience, unit), the write first (assignmentsInsertProgram). */
export const STORE_ASSIGNMENTS = program('choose.assignments', 'interactive', function* (packed: PackedAssignments, now: number) {
  const assignments = yield* assignmentsInsertProgram(unpackAssignments(packed), now);
  return (assignments === null ? { createdAt: now } : { assignments }) satisfies StoredAssignments as StoredAssignments;
});

/** A first visit's check, first assignments and exposure row (firstVisitProgram). */
export const STORE_FIRST_VISIT = program(
  'choose.firstVisit', 'interactive',
  (visit: { project: string; profileId: string; targeting: boolean }, packed: PackedAssignments, exposureRow: SqlValue[] | null, now: number) =>
    firstVisitProgram(visit, unpackAssignments(packed), exposureRow, now),
);

/** Exposure sets, one row each (exposureSetParams). */
export const STORE_EXPOSURES = program('choose.exposures', 'interactive', function* (rows: SqlValue[][]) {
  if (rows.length > 0) yield insertRows(INSERT_EXPOSURE_SETS, rows);
});

export const CHOOSE_PROGRAMS = [STORE_ASSIGNMENTS, STORE_FIRST_VISIT, STORE_EXPOSURES] as const;
