// The mixed load's slow requests laid against what the server's storage and main thread did at the time (the trace
// of server/storage/sqlite/write-trace.ts and bench/main-thread-trace.ts): which event coincides with a stall.
import type autocannon from 'autocannon';
import { existsSync, readFileSync } from 'node:fs';
import type { TraceEntry } from '../server/storage/sqlite/write-trace.js';

/** A request that took `ms` from `start` (ms since the epoch, the bench's clock; the server shares the machine's). */
export interface SlowRequest {
  lane: 'Choose' | 'batch';
  start: number;
  ms: number;
}

/** Choose answers at least this slow start a stall of the timeline. */
const STALL_MS = 200;
/** Batches at least this slow are shown beside them. */
const SLOW_BATCH_MS = 300;
/** The stalls shown per run: the slowest ones. */
const STALLS_SHOWN = 3;
/** Trace lines shown per stall: the longest ones. */
const ENTRIES_SHOWN = 12;

/** Records `instance`'s responses of `lane` that took at least STALL_MS (Choose) or SLOW_BATCH_MS (batches). */
export function recordSlow(instance: autocannon.Instance, lane: SlowRequest['lane'], into: SlowRequest[]): void {
  const min = lane === 'Choose' ? STALL_MS : SLOW_BATCH_MS;
  instance.on('response', (_client, _status, _bytes, responseTime) => {
    if (responseTime >= min) into.push({ lane, start: Date.now() - responseTime, ms: responseTime });
  });
}

/** The trace's lines that overlap [from, to]. */
export function readTrace(file: string, from: number, to: number): TraceEntry[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8').split('\n').filter((line) => line !== '')
    .map((line) => JSON.parse(line) as TraceEntry)
    .filter((entry) => entry.at < to && entry.at + entry.ms > from);
}

interface Stall {
  from: number;
  to: number;
  requests: SlowRequest[];
}

/** Slow Choose answers whose times overlap, joined; the slowest first. */
function stallsOf(slow: readonly SlowRequest[]): Stall[] {
  const stalls: Stall[] = [];
  for (const request of slow.filter((r) => r.lane === 'Choose').sort((a, b) => a.start - b.start)) {
    const last = stalls.at(-1);
    if (last !== undefined && request.start <= last.to) {
      last.to = Math.max(last.to, request.start + request.ms);
      last.requests.push(request);
    } else {
      stalls.push({ from: request.start, to: request.start + request.ms, requests: [request] });
    }
  }
  const slowest = (s: Stall): number => Math.max(...s.requests.map((r) => r.ms));
  return stalls.sort((a, b) => slowest(b) - slowest(a));
}

const ms = (n: number): string => `${Math.round(n).toLocaleString('en')} ms`;

/** A trace line as text: its thread, what it was and its parts. */
function describe(entry: TraceEntry): string {
  const parts: string[] = [];
  if (entry.what === 'transaction') {
    parts.push(`gate ${ms(Number(entry.gate))}, begin ${ms(Number(entry.begin))}, statements ${ms(Number(entry.statements))}, commit ${ms(Number(entry.commit))}`);
    parts.push(Object.entries(entry.programs as Record<string, number>).map(([name, n]) => `${name} ×${n}`).join(', '));
  }
  if (entry.what === 'checkpoint') parts.push(`WAL ${String(entry.log)} pages, ${String(entry.checkpointed)} copied${entry.busy ? ', busy' : ''}`);
  if (entry.what === 'delay') parts.push(`that second's loop delay: max ${ms(Number(entry.max))}, p99 ${ms(Number(entry.p99))}`);
  return `${entry.thread} ${entry.what}${parts.length > 0 ? ` (${parts.join('; ')})` : ''}`;
}

/**
 * The run's slowest stalls, each with the trace lines that overlap it (at most ENTRIES_SHOWN, the longest), and the
 * longest line of each kind over the whole run. Times are seconds from `runStart`.
 */
export function formatTimeline(runStart: number, slow: readonly SlowRequest[], trace: readonly TraceEntry[]): string[] {
  const at = (t: number): string => `+${((t - runStart) / 1000).toFixed(3)} s`;
  const lines: string[] = [];
  const stalls = stallsOf(slow);
  if (stalls.length === 0) lines.push(`  no Choose answer took ${ms(STALL_MS)} or more`);
  for (const stall of stalls.slice(0, STALLS_SHOWN)) {
    const slowest = stall.requests.reduce((a, b) => (b.ms > a.ms ? b : a));
    const batches = slow.filter((r) => r.lane === 'batch' && r.start < stall.to && r.start + r.ms > stall.from);
    const slowestBatch = batches.reduce<SlowRequest | undefined>((a, b) => (a === undefined || b.ms > a.ms ? b : a), undefined);
    lines.push(
      `  stall ${at(stall.from)} – ${at(stall.to)}: ${stall.requests.length} Choose answers ≥ ${ms(STALL_MS)}, the slowest ${ms(slowest.ms)} from ${at(slowest.start)}` +
        (slowestBatch ? `; ${batches.length} batches ≥ ${ms(SLOW_BATCH_MS)}, the slowest ${ms(slowestBatch.ms)} from ${at(slowestBatch.start)}` : ''),
    );
    const during = trace.filter((e) => e.at < stall.to && e.at + e.ms > stall.from).sort((a, b) => b.ms - a.ms).slice(0, ENTRIES_SHOWN);
    for (const entry of during.sort((a, b) => a.at - b.at)) lines.push(`    ${at(entry.at)} ${ms(entry.ms).padStart(9)}  ${describe(entry)}`);
  }
  const longest = new Map<string, TraceEntry>();
  for (const entry of trace) {
    const kind = `${entry.thread} ${entry.what}`;
    if ((longest.get(kind)?.ms ?? -1) < entry.ms) longest.set(kind, entry);
  }
  if (longest.size > 0) {
    lines.push(`  longest of the run: ${[...longest].sort(([a], [b]) => a.localeCompare(b)).map(([kind, e]) => `${kind} ${ms(e.ms)} at ${at(e.at)}`).join('; ')}`);
  }
  return lines;
}
