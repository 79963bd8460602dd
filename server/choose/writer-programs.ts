import { op, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { assignmentAnswers, assignmentReadProgram, unpackAssignments, type Assignment, type PackedAssignments } from './assignment-programs.js';
import { INSERT_EXPOSURE_SETS } from './exposure-programs.js';

const INSERT_ASSIGNMENT = `INSERT INTO assignments (project, experience, unit, variation, hash_version, created_at)
  VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (project, experience, unit) DO NOTHING`;

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
  /**
   * Insert-if-absent on (project, experience, unit), the write first (the thread's transactions take the lock anyway):
   * one prepared single-row statement per pair, so nothing is returned when every pair is new (a new visitor); only
   * when a pair was stored before are the stored rows read, and `created` tells which this program inserted.
   */
  *assignments(packed: PackedAssignments, now: number): SqlProgram<StoredAssignments> {
    const v = packed.values;
    const inserted: boolean[] = [];
    for (let i = 0; i < v.length; i += 4) {
      const { changes } = yield op(INSERT_ASSIGNMENT, packed.project, v[i]!, v[i + 1]!, v[i + 2]!, v[i + 3]!, now);
      inserted.push(changes === 1);
    }
    if (inserted.every(Boolean)) return { createdAt: now };
    const inputs = unpackAssignments(packed);
    const stored = assignmentAnswers(inputs, yield* assignmentReadProgram(inputs));
    return { assignments: stored.map((row, i) => ({ ...row, created: inserted[i]! })) };
  },
  /** One row per exposure set (exposureSetParams), one prepared statement looped. */
  *exposures(rows: SqlValue[][]): SqlProgram<void> {
    for (const row of rows) yield op(`${INSERT_EXPOSURE_SETS} VALUES (?, ?, ?, ?, ?, ?, ?)`, ...row);
  },
};
