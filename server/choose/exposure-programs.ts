import type { SqlValue } from '../storage/sql-program.js';

/**
 * One choice recorded as served: its experience's `name`, and its variation (none for personalization and feeds).
 * The shape of a Choose answer's choice, so an answer's choices are recorded as they are.
 */
export interface ExposedChoice {
  name: string;
  variation?: string | null;
}

/**
 * The exposures of one Choose answer (each choice served is recorded): who, in which session, on
 * which device and when, and every choice of the answer that is recorded. Stored as ONE row, its choices as
 * JSON, so an answer of 20 choices is one insert rather than 20 (see migration 5).
 */
export interface ExposureSet {
  project: string;
  profileId: string;
  sessionId?: string | null;
  device?: string | null;
  /** Epoch milliseconds; defaults to now. */
  time?: number;
  /** What results break down by (exposureContext): JSON text, or null. */
  context?: string | null;
  choices: readonly ExposedChoice[];
}

/** The insert of exposure sets (migration 5), without its VALUES: one row per set, its choices as JSON pairs. */
export const INSERT_EXPOSURE_SETS = 'INSERT INTO exposures (project, profile_id, session_id, device, ts, choice_count, choices, context)';

/**
 * One exposure set's row for INSERT_EXPOSURE_SETS (8 values): the set's choices become `[["experience",
 * "variation"], …]`, a null variation for a choice without one. Used by every write of exposure rows,
 * so all write the same row.
 */
export function exposureSetParams(set: ExposureSet, now: number): SqlValue[] {
  // Joined into one flat string: the storage may clone the row for another connection, and a tree of appended pieces
  // would be flattened there first.
  const pairs = new Array<string>(set.choices.length);
  for (let i = 0; i < set.choices.length; i++) pairs[i] = pairJson(set.choices[i]!);
  return [set.project, set.profileId, set.sessionId ?? null, set.device ?? null, set.time ?? now, set.choices.length, `[${pairs.join(',')}]`,
    set.context ?? null];
}

/** `["experience","variation"]`, null for a choice without a variation. */
function pairJson(choice: ExposedChoice): string {
  return `[${JSON.stringify(choice.name)},${choice.variation == null ? 'null' : JSON.stringify(choice.variation)}]`;
}
