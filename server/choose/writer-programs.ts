import { op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { assignmentsInsertEachProgram, unpackAssignments, type Assignment, type PackedAssignments } from './assignment-programs.js';
import { INSERT_EXPOSURE_SETS } from './exposure-programs.js';
import { firstVisitProgram, type FirstVisitOutcome } from './first-visit-programs.js';

/**
 * A new unit's first assignments as the writer thread answers them: `createdAt` alone when every row was new and
 * stored as asked (the common case: the main thread rebuilds the rows from what it asked), else the stored rows.
 */
export type StoredAssignments = { createdAt: number } | { assignments: Assignment[] };

/**
 * The Choose API's programs for the SQLite writer thread (server/storage/sqlite/writer-thread.ts), by name. Their
 * arguments are posted to the thread, so they are plain values: first assignments as one flat array, exposure sets
 * as the values of their rows.
 */
export const CHOOSE_WRITER_PROGRAMS = {
  /** Insert-if-absent on (project, experience, unit), the write first (assignmentsInsertEachProgram). */
  *assignments(packed: PackedAssignments, now: number): SqlProgram<StoredAssignments> {
    const assignments = yield* assignmentsInsertEachProgram(unpackAssignments(packed), now);
    return assignments === null ? { createdAt: now } : { assignments };
  },
  /** A first visit's check, first assignments and exposure row (firstVisitProgram), one single-row insert per pair. */
  firstVisit(
    visit: { project: string; profileId: string; targeting: boolean }, packed: PackedAssignments, exposureRow: SqlValue[] | null,
    now: number,
  ): SqlProgram<FirstVisitOutcome> {
    return firstVisitProgram(visit, unpackAssignments(packed), exposureRow, now, 'each');
  },
  /** One row per exposure set (exposureSetParams), one prepared statement looped. */
  *exposures(rows: SqlValue[][]): SqlProgram<void> {
    for (const row of rows) yield op(`${INSERT_EXPOSURE_SETS} VALUES (?, ?, ?, ?, ?, ?, ?)`, ...row);
  },
};
