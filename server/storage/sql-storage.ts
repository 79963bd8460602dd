import { assignmentProgram, assignmentsProgram, toAssignment } from '../choose/assignment-programs.js';
import { exposureSetParams, INSERT_EXPOSURE_SETS } from '../choose/exposure-programs.js';
import { op, type SqlProgram, type SqlRow, type SqlValue } from './sql-program.js';
import { num } from './sql-values.js';
import type { Assignment, AssignmentInput, ExposureRow, ExposureSet, Storage } from './storage.js';

// The storage logic shared by both drivers. SQL here is the common subset of SQLite (≥ 3.35) and
// PostgreSQL: ON CONFLICT … DO NOTHING / DO UPDATE … WHERE, RETURNING, `?` placeholders (rewritten for pg).
// The domains' programs live with their domain (identity/, ingest/, choose/, recommendations/).

export abstract class SqlStorage implements Storage {
  abstract readonly dialect: 'sqlite' | 'postgres';
  abstract migrate(): Promise<void>;
  abstract ping(): Promise<void>;
  abstract close(): Promise<void>;
  /** Runs a fresh program from `make` (a driver may retry a transaction with a new one). */
  protected abstract execute<T>(make: () => SqlProgram<T>, transaction: boolean): Promise<T>;

  run<T>(make: () => SqlProgram<T>): Promise<T> {
    return this.execute(make, false);
  }

  transaction<T>(make: () => SqlProgram<T>, _rows?: number): Promise<T> {
    return this.execute(make, true);
  }

  /** A one-statement program. */
  private query(sql: string, ...params: SqlValue[]): Promise<SqlRow[]> {
    return this.execute(function* () {
      const { rows } = yield op(sql, ...params);
      return rows;
    }, false);
  }

  getOrCreateAssignment(input: AssignmentInput): Promise<Assignment> {
    const now = Date.now();
    return this.execute(() => assignmentProgram(input, now), false);
  }

  getOrCreateAssignments(inputs: readonly AssignmentInput[]): Promise<Assignment[]> {
    if (inputs.length === 0) return Promise.resolve([]);
    const now = Date.now();
    return this.execute(() => assignmentsProgram(inputs, now), false);
  }

  async getAssignment(project: string, experience: string, unit: string): Promise<Assignment | null> {
    const rows = await this.query(
      'SELECT experience, unit, variation, hash_version, created_at FROM assignments WHERE project = ? AND experience = ? AND unit = ?',
      project, experience, unit,
    );
    return rows[0] ? toAssignment(rows[0], false) : null;
  }

  async recordExposures(sets: readonly ExposureSet[]): Promise<void> {
    if (sets.length === 0) return;
    const now = Date.now();
    // Chunks keep the statement under both databases' bound-parameter limits.
    const chunkSize = 500;
    await this.execute(function* () {
      for (let i = 0; i < sets.length; i += chunkSize) {
        const chunk = sets.slice(i, i + chunkSize);
        const params: SqlValue[] = [];
        for (const set of chunk) params.push(...exposureSetParams(set, now));
        yield op(`${INSERT_EXPOSURE_SETS} VALUES ${chunk.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}`, ...params);
      }
    }, true);
  }

  async countExposures(project: string): Promise<number> {
    const rows = await this.query('SELECT COALESCE(SUM(choice_count), 0) AS n FROM exposures WHERE project = ?', project);
    return num(rows[0]?.n ?? 0);
  }

  async readExposures(project: string): Promise<ExposureRow[]> {
    const rows = await this.query(
      'SELECT profile_id, session_id, device, ts, choices FROM exposures WHERE project = ? ORDER BY id', project,
    );
    const exposures: ExposureRow[] = [];
    for (const row of rows) {
      const pairs = JSON.parse(String(row.choices)) as [string, string | null][];
      for (const [experience, variation] of pairs) {
        exposures.push({
          profileId: String(row.profile_id), experience, variation,
          sessionId: row.session_id === null ? null : String(row.session_id),
          device: row.device === null ? null : String(row.device), time: num(row.ts),
        });
      }
    }
    return exposures;
  }
}
