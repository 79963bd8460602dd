// What a SQLite file's writers did and when, for a load test to lay beside its slow requests: set SVC_STORAGE_TRACE to
// a file and every writer (the lanes' threads, the main connection, the checkpoint thread) appends one JSON line per
// slow transaction or checkpoint, and per garbage collection pause of its thread. Unset (the default), nothing is
// timed or written. Lines are short and appended with O_APPEND, so the threads of a process share the file.
import { appendFileSync } from 'node:fs';
import { PerformanceObserver, performance } from 'node:perf_hooks';

/** Where the trace goes; undefined: no trace. */
export const TRACE_FILE = process.env.SVC_STORAGE_TRACE || undefined;

/** Shorter transactions are not written: the trace is for what holds a lane up. */
const SLOW_TRANSACTION_MS = 20;
/** Shorter garbage collection pauses are not written. */
const SLOW_GC_MS = 10;

/** One line of the trace. `at`: when it started (ms since the epoch, fractional); `ms`: how long it took. */
export interface TraceEntry {
  at: number;
  ms: number;
  /** The thread: a lane's (`interactive`, `bulk`, `background`), `main` or `checkpoint`. */
  thread: string;
  /** `transaction`, `checkpoint`, `gc`, or what a bench adds (`lag`). */
  what: string;
  [detail: string]: unknown;
}

/** `performance.now()` of this thread as ms since the epoch (each thread has its own time origin). */
export const epochOf = (now: number): number => performance.timeOrigin + now;

/** Appends `entry` to the trace (nothing when tracing is off). */
export function traceEntry(entry: TraceEntry): void {
  if (TRACE_FILE !== undefined) appendFileSync(TRACE_FILE, `${JSON.stringify(entry)}\n`);
}

/** Where a group commit's time went (ms), filled in by commitGroup when asked. */
export interface CommitTiming {
  /** `BEGIN IMMEDIATE`: waiting for another connection's write lock in SQLite's busy handler. */
  begin: number;
  statements: number;
  /** `COMMIT`: the WAL's writes, its fsync (synchronous FULL) and an auto-checkpoint past the WAL's bound. */
  commit: number;
}

/** A fresh timing for commitGroup when tracing, else undefined (commitGroup then reads no clock). */
export const commitTiming = (): CommitTiming | undefined => (TRACE_FILE === undefined ? undefined : { begin: 0, statements: 0, commit: 0 });

/**
 * Writes a transaction of `thread` that started at `start` (performance.now()) if it took SLOW_TRANSACTION_MS or more:
 * the wait at the write gate, the commit's parts and what ran (program names and how many of each).
 */
export function traceTransaction(thread: string, start: number, gateWait: number, timing: CommitTiming | undefined, programs: Record<string, number>): void {
  if (timing === undefined) return;
  const ms = performance.now() - start;
  if (ms < SLOW_TRANSACTION_MS) return;
  const round = (n: number): number => Math.round(n * 10) / 10;
  traceEntry({
    at: epochOf(start), ms: round(ms), thread, what: 'transaction', gate: round(gateWait), begin: round(timing.begin),
    statements: round(timing.statements), commit: round(timing.commit), programs,
  });
}

/** Writes this thread's garbage collection pauses of SLOW_GC_MS or more under `thread`, while tracing. */
export function traceGcPauses(thread: string): void {
  if (TRACE_FILE === undefined) return;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.duration >= SLOW_GC_MS) traceEntry({ at: epochOf(entry.startTime), ms: Math.round(entry.duration * 10) / 10, thread, what: 'gc' });
    }
  });
  observer.observe({ entryTypes: ['gc'] });
}
