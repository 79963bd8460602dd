// A bench server's main thread in the storage's trace (server/storage/sqlite/write-trace.ts, on when SVC_STORAGE_TRACE
// names a file): its garbage collection pauses, each stall of its event loop (a 10 ms timer that fired late), and each
// second whose event-loop delay (monitorEventLoopDelay) reached STALL_MS.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { TRACE_FILE, epochOf, traceEntry, traceGcPauses } from '../server/storage/sqlite/write-trace.js';

const TICK_MS = 10;
/** Shorter stalls of the event loop are not written. */
const STALL_MS = 30;

const round = (n: number): number => Math.round(n * 10) / 10;

/** Starts tracing the main thread if the storage traces (nothing otherwise). */
export function traceMainThread(): void {
  if (TRACE_FILE === undefined) return;
  traceGcPauses('main');
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    const late = now - last - TICK_MS;
    if (late >= STALL_MS) traceEntry({ at: epochOf(last + TICK_MS), ms: round(late), thread: 'main', what: 'lag' });
    last = now;
  }, TICK_MS).unref();
  const delay = monitorEventLoopDelay({ resolution: TICK_MS });
  delay.enable();
  setInterval(() => {
    const max = delay.max / 1e6;
    if (max >= STALL_MS) {
      traceEntry({ at: Date.now() - 1000, ms: 1000, thread: 'main', what: 'delay', max: round(max), p99: round(delay.percentile(99) / 1e6) });
    }
    delay.reset();
  }, 1000).unref();
}
