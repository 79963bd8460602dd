// Interactive writes ahead of bulk ones, across the writer threads of one SQLite file. SQLite lets one connection
// write at a time; a connection that finds the write lock taken sleeps in its busy handler (1 ms, 2 ms, 5 ms … up to
// 100 ms a time) and tries again. Under a flood of event batches the ingestion thread takes the lock again as soon as
// it lets it go, so the Choose API's thread — whose commit a visitor's answer waits for — kept losing the race and
// slept for seconds (Choose p99 1.7 s beside saturated ingestion). The gate is two shared integers: an interactive
// writer announces itself and waits (woken, not polling) for a bulk writer's transaction to end; a bulk writer takes
// the gate (one bulk writer at a time: ingestion's and the background lane's threads share it) and gives it back at
// once while an interactive one is announced, for at most BULK_YIELD_MS, so that a steady stream of answers slows
// ingestion (whose clients send again) but never stops it.

/** `interactive`: a request is waiting for this commit (Choose). `bulk`: nobody is (event batches, derived writes). */
export type WriteRole = 'interactive' | 'bulk';

const INTERACTIVE_WAITING = 0;
const BULK_HOLDING = 1;
/** The longest a bulk writer stands aside for interactive ones before it takes its turn anyway. */
export const BULK_YIELD_MS = 250;

const gates = new Map<string, SharedArrayBuffer>();

/** The gate shared by every writer thread of the database `file` (main thread: passed to each in its workerData). */
export function gateFor(file: string): SharedArrayBuffer {
  let gate = gates.get(file);
  if (!gate) {
    gate = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
    gates.set(file, gate);
  }
  return gate;
}

/**
 * Runs `write` (one transaction) in its turn: an interactive writer after any bulk transaction under way, a bulk
 * writer once no interactive one is waiting (or it has stood aside BULK_YIELD_MS). Each side announces itself before
 * it looks at the other, so they cannot both miss each other. Worker threads only: it blocks while it waits.
 */
export function inTurn<T>(gate: SharedArrayBuffer | undefined, role: WriteRole, write: () => T): T {
  if (gate === undefined) return write();
  const g = new Int32Array(gate);
  if (role === 'interactive') {
    Atomics.add(g, INTERACTIVE_WAITING, 1);
    try {
      while (Atomics.load(g, BULK_HOLDING) === 1) Atomics.wait(g, BULK_HOLDING, 1, BULK_YIELD_MS);
      return write();
    } finally {
      Atomics.sub(g, INTERACTIVE_WAITING, 1);
      Atomics.notify(g, INTERACTIVE_WAITING);
    }
  }
  const until = performance.now() + BULK_YIELD_MS;
  for (;;) {
    // One bulk writer at a time (ingestion's thread and the background lane's): a second one that went on to SQLite's
    // busy handler would hold the flag while it slept there, and the first one's release would clear the flag while
    // the second then held SQLite's lock, so that an interactive writer met that lock in the busy handler, which polls
    // and loses to whoever asks next.
    while (Atomics.compareExchange(g, BULK_HOLDING, 0, 1) !== 0) Atomics.wait(g, BULK_HOLDING, 1);
    const waiting = Atomics.load(g, INTERACTIVE_WAITING);
    const left = until - performance.now();
    if (waiting === 0 || left <= 0) break;
    // Stand aside: let the announced interactive writers in, then try again.
    Atomics.store(g, BULK_HOLDING, 0);
    Atomics.notify(g, BULK_HOLDING);
    Atomics.wait(g, INTERACTIVE_WAITING, waiting, left);
  }
  try {
    return write();
  } finally {
    Atomics.store(g, BULK_HOLDING, 0);
    Atomics.notify(g, BULK_HOLDING);
  }
}
