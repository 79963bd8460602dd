import type { SqlProgram } from './sql-program.js';

// One async interface over both drivers (better-sqlite3 embedded, PostgreSQL at scale). Every guard that
// must hold across nodes (event idempotency, first assignment, identity links) is a unique key enforced by
// the database, never an in-memory set (DESIGN 4). `project` is always `${org}/${project}`.

export interface AssignmentInput {
  project: string;
  experience: string;
  /** The unit of assignment: a profile id, or a session id for `stickiness: "session"`. */
  unit: string;
  variation: string;
  hashVersion: number;
}

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

/**
 * One choice recorded as served: its experience's `name`, and its variation (none for personalization and feeds).
 * The shape of a Choose answer's choice, so an answer's choices are recorded as they are.
 */
export interface ExposedChoice {
  name: string;
  variation?: string | null;
}

/**
 * The exposures of one Choose answer (DESIGN 3.5: each choice served is recorded): who, in which session, on
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
  choices: readonly ExposedChoice[];
}

/** One exposure as read back: a choice of an ExposureSet with the set's profile, session, device and time. */
export interface ExposureRow {
  profileId: string;
  experience: string;
  variation: string | null;
  sessionId: string | null;
  device: string | null;
  time: number;
}

/** A stored event as read back (tests, feeds, the end-to-end check). */
export interface Storage {
  readonly dialect: 'sqlite' | 'postgres';
  /** Runs pending migrations (idempotent; safe when several nodes start at once). */
  migrate(): Promise<void>;
  /** Cheap round trip for the health check. */
  ping(): Promise<void>;
  close(): Promise<void>;

  /**
   * Runs a domain's program outside any transaction: reads, and writes whose statements each stand alone
   * (insert-if-absent under a unique key). The program is made anew if the driver has to run it again.
   */
  run<T>(make: () => SqlProgram<T>): Promise<T>;
  /**
   * Runs a program as one transaction, durable once the promise resolves. On SQLite the transactions that arrive in
   * one turn of the event loop share one commit (group commit, each in a savepoint of its own, so a failing one fails
   * alone); `rows` is its size, which bounds a group. On PostgreSQL each is a transaction of its own.
   */
  transaction<T>(make: () => SqlProgram<T>, rows?: number): Promise<T>;

  /**
   * Insert-if-absent of a first assignment, atomic in the database (INSERT … ON CONFLICT DO NOTHING then
   * SELECT): every node and every concurrent call gets the same stored row.
   */
  getOrCreateAssignment(input: AssignmentInput): Promise<Assignment>;
  /**
   * The batch form: one insert-if-absent for all of a request's experiments, answers in the order asked
   * (all `project` fields must be equal).
   */
  getOrCreateAssignments(inputs: readonly AssignmentInput[]): Promise<Assignment[]>;
  /** The stored assignment, if any, without creating one. */
  getAssignment(project: string, experience: string, unit: string): Promise<Assignment | null>;
  /** Inserts exposure sets in one transaction, one row each (callers batch them; DESIGN 4). */
  recordExposures(sets: readonly ExposureSet[]): Promise<void>;
  /** Exposures (choices, not sets) stored for the project. */
  countExposures(project: string): Promise<number>;
  /** The project's exposures, one per choice, in the order they were stored (tests, results). */
  readExposures(project: string): Promise<ExposureRow[]>;
}
