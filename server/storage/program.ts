import type { SqlProgram } from './sql-program.js';

// Named programs: a domain says what a program needs of the database (its lane), the storage decides where it runs.
// A domain never names a thread, a driver or a way around a failure: the storage runs each lane its own way (on
// SQLite, a lane may have a thread with its own connection; on PostgreSQL, the pool) and falls back by itself.

/**
 * What a program needs of the database:
 * - `interactive`: a visitor's answer waits for its commit (Choose's first assignments and exposures). Committed ahead
 *   of bulk writes, answered once committed without waiting for the disk: a crash of the process loses none of it, a
 *   crash of the machine may lose the last ones.
 * - `bulk`: writes nobody is waiting on to answer a page (ingestion), answered once on disk, and
 *   grouped with the writes that arrive meanwhile.
 * - `background`: writes of derived data nobody waits for (results' exposure index, the recommendation models' upkeep),
 *   which a crash may lose because they are done again: committed without waiting for the disk, behind a visitor's
 *   writes.
 * - `report`: a long read (experiment results), in one snapshot, off the event loop that answers requests.
 */
export type Lane = 'interactive' | 'bulk' | 'background' | 'report';

/**
 * A program the storage places by its `name` (unique across the service): `make` builds it from plain arguments
 * (structured-cloneable: the storage may hand them to another thread).
 */
export interface NamedProgram<A extends unknown[] = unknown[], T = unknown> {
  readonly name: string;
  readonly lane: Lane;
  readonly make: (...args: A) => SqlProgram<T>;
}

/**
 * A bulk program that stores many inputs at once (ingestion's batches): the storage may run it with one input or with
 * several that arrived together, in one transaction; each input is answered its own result, in order.
 */
export interface GroupProgram<I = unknown, R = unknown> {
  readonly name: string;
  readonly lane: 'bulk';
  readonly make: (inputs: readonly I[]) => SqlProgram<R[]>;
  /** Rows an input writes: what bounds a group. */
  readonly rows: (input: I) => number;
}

/** Every program the service runs, by name: what a storage's threads serve (the composition root lists them). */
export type ProgramTable = ReadonlyMap<string, NamedProgram | GroupProgram>;

/** @example const ASSIGN = program('choose.assignments', 'interactive', (packed: PackedAssignments) => …); */
export function program<A extends unknown[], T>(name: string, lane: Lane, make: (...args: A) => SqlProgram<T>): NamedProgram<A, T> {
  return { name, lane, make };
}

/** @example const INGEST = groupProgram('ingest.batches', (inputs: IngestInput[]) => …, (input) => input.events.length); */
export function groupProgram<I, R>(
  name: string, make: (inputs: readonly I[]) => SqlProgram<R[]>, rows: (input: I) => number,
): GroupProgram<I, R> {
  return { name, lane: 'bulk', make, rows };
}

/** The table of `programs` by name; a name given twice throws (a thread would run the wrong one). */
export function programTable(programs: readonly (NamedProgram<never[], unknown> | GroupProgram<never, unknown>)[]): ProgramTable {
  const table = new Map<string, NamedProgram | GroupProgram>();
  for (const p of programs) {
    if (table.has(p.name)) throw new Error(`two programs are named ${p.name}`);
    table.set(p.name, p as NamedProgram | GroupProgram);
  }
  return table;
}

/**
 * The module `name` beside the module at `moduleUrl`: `<name>.mjs` beside the bundled dist/server.mjs (esbuild
 * builds each such module as an entry of its own), `<name>.ts` when running from source under tsx.
 * @example const PROGRAMS_MODULE = moduleBeside(import.meta.url, 'programs');
 */
export function moduleBeside(moduleUrl: string, name: string): URL {
  return new URL(`./${name}${moduleUrl.endsWith('.ts') ? '.ts' : '.mjs'}`, moduleUrl);
}
