import { insertRows, op, type SqlProgram, type SqlRow } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';

/** A first assignment to store if the unit has none yet. */
export interface AssignmentInput {
  project: string;
  experience: string;
  /** The unit of assignment: a profile id, or a session id for `stickiness: "session"`. */
  unit: string;
  variation: string;
  hashVersion: number;
}

/** A unit's stored assignment. */
export interface Assignment {
  experience: string;
  unit: string;
  variation: string;
  hashVersion: number;
  /** Epoch milliseconds of the first assignment. */
  createdAt: number;
  /** True when this call stored it; false when an earlier (possibly concurrent) call had. */
  created: boolean;
}

// First assignments as SQL programs: insert-if-absent under the unique key (project, experience, unit), so
// every node and every restart agrees on a unit's variation once it is stored.

export function toAssignment(row: SqlRow, created: boolean): Assignment {
  return {
    experience: str(row.experience),
    unit: str(row.unit),
    variation: str(row.variation),
    hashVersion: num(row.hash_version),
    createdAt: num(row.created_at),
    created,
  };
}

/** An assignment's key in the programs' maps: `${experience}\0${unit}`. */
function assignmentId(experience: string, unit: string): string {
  return `${experience}\u0000${unit}`;
}

/** Stored rows for every (experience, unit) pair of the lists, keyed by assignmentId. */
function* storedAssignments(
  project: string, experiences: readonly string[], units: readonly string[], created: ReadonlySet<string>,
): SqlProgram<Map<string, Assignment>> {
  // IN lists on both key columns let both databases walk the primary key; an OR of (experience AND unit)
  // pairs made SQLite scan the whole table. A request has one or two units, so the cross product the IN
  // lists may match stays small; pairs nobody asked for are simply not looked up below.
  const { rows } = yield op(
    `SELECT experience, unit, variation, hash_version, created_at FROM assignments
     WHERE project = ? AND experience IN (${experiences.map(() => '?').join(', ')}) AND unit IN (${units.map(() => '?').join(', ')})`,
    project, ...experiences, ...units,
  );
  return new Map(rows.map((r) => {
    const id = assignmentId(str(r.experience), str(r.unit));
    return [id, toAssignment(r, created.has(id))];
  }));
}

/** A request's distinct assignment keys, and which of them are already stored (`assignmentReadProgram`). */
export interface AssignmentRead {
  project: string;
  /** Stored rows keyed by assignmentId; the rows written for `missing` are added to it. */
  byId: Map<string, Assignment>;
  /** Distinct inputs without a stored row, sorted by key (so concurrent callers lock in one order). */
  missing: AssignmentInput[];
}

const distinct = (pick: (r: AssignmentInput) => string, of: Iterable<AssignmentInput>): string[] => [...new Set([...of].map(pick))];

/**
 * The read half of `getOrCreateAssignments`: a returning unit (the common case) costs one indexed SELECT and
 * no write at all. A driver may run it outside any transaction: `missing` is only a hint of what to insert,
 * the insert-if-absent in `assignmentsInsertProgram` decides.
 */
export function* assignmentReadProgram(inputs: readonly AssignmentInput[]): SqlProgram<AssignmentRead> {
  const { project, unique } = distinctAssignments(inputs);
  const byId = yield* storedAssignments(
    project, distinct((r) => r.experience, unique.values()), distinct((r) => r.unit, unique.values()), new Set(),
  );
  return { project, byId, missing: sortedById([...unique.entries()].filter(([id]) => !byId.has(id))) };
}

/** The inputs' one project, and each (experience, unit) pair once, keyed by assignmentId. */
function distinctAssignments(inputs: readonly AssignmentInput[]): { project: string; unique: Map<string, AssignmentInput> } {
  const project = inputs[0]?.project ?? '';
  const unique = new Map<string, AssignmentInput>();
  for (const input of inputs) {
    if (input.project !== project) throw new Error('getOrCreateAssignments: all inputs must share one project');
    const id = assignmentId(input.experience, input.unit);
    if (!unique.has(id)) unique.set(id, input);
  }
  return { project, unique };
}

const compareIds = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Sorted by key, so concurrent callers lock in one order. */
function sortedById(entries: [string, AssignmentInput][]): AssignmentInput[] {
  return entries.sort(([a], [b]) => compareIds(a, b)).map(([, v]) => v);
}

/** The answers in the order asked, once `read.byId` holds every key (after the write, if any was missing). */
export function assignmentAnswers(inputs: readonly AssignmentInput[], read: AssignmentRead, written: readonly Assignment[] = []): Assignment[] {
  for (const assignment of written) {
    const id = assignmentId(assignment.experience, assignment.unit);
    if (!read.byId.has(id)) read.byId.set(id, assignment);
  }
  return inOrderAsked(inputs, read.byId);
}

/** The stored row of each input, in the order asked, from rows keyed by assignmentId. */
function inOrderAsked(inputs: readonly AssignmentInput[], byId: ReadonlyMap<string, Assignment>): Assignment[] {
  return inputs.map((input) => {
    const found = byId.get(assignmentId(input.experience, input.unit));
    if (!found) throw new Error('assignment vanished after insert-if-absent');
    return found;
  });
}

/**
 * Insert-if-absent of each first assignment (insertRows: a statement per row on SQLite, one on PostgreSQL), the write
 * first: null when every pair was new and is stored as asked (a new visitor: nothing is returned or read back), else
 * the stored rows in the order asked, `created` where this program inserted the row.
 */
export function* assignmentsInsertProgram(inputs: readonly AssignmentInput[], now: number): SqlProgram<Assignment[] | null> {
  // In key order, so that concurrent callers lock in one order (two tabs of one visitor).
  const order = inputs.map((_, i) => i)
    .sort((a, b) => compareIds(assignmentId(inputs[a]!.experience, inputs[a]!.unit), assignmentId(inputs[b]!.experience, inputs[b]!.unit)));
  const { inserted: sorted = [] } = yield insertRows(
    'INSERT INTO assignments (project, experience, unit, variation, hash_version, created_at)',
    order.map((i) => [inputs[i]!.project, inputs[i]!.experience, inputs[i]!.unit, inputs[i]!.variation, inputs[i]!.hashVersion, now]),
    'ON CONFLICT (project, experience, unit) DO NOTHING', { columns: 'project, experience, unit', at: [0, 1, 2] },
  );
  const inserted: boolean[] = [];
  order.forEach((input, at) => {
    inserted[input] = sorted[at]!;
  });
  if (inserted.every(Boolean)) return null;
  const stored = assignmentAnswers(inputs, yield* assignmentReadProgram(inputs));
  return stored.map((row, i) => ({ ...row, created: inserted[i]! }));
}

/** One project's first assignments as one flat array (cheap to hand to the storage's lanes): see packAssignments. */
export interface PackedAssignments {
  project: string;
  /** `experience, unit, variation, hashVersion` per input, in order. */
  values: (string | number)[];
}

export function packAssignments(inputs: readonly AssignmentInput[]): PackedAssignments {
  const values: (string | number)[] = [];
  for (const input of inputs) values.push(input.experience, input.unit, input.variation, input.hashVersion);
  return { project: inputs[0]?.project ?? '', values };
}

export function unpackAssignments(packed: PackedAssignments): AssignmentInput[] {
  const inputs: AssignmentInput[] = [];
  const v = packed.values;
  for (let i = 0; i < v.length; i += 4) {
    inputs.push({ project: packed.project, experience: v[i] as string, unit: v[i + 1] as string, variation: v[i + 2] as string, hashVersion: v[i + 3] as number });
  }
  return inputs;
}
