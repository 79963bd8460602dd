// Ingestion while retention deletes: the ingestion bench's load (batches of 50 new events, 10 connections) against two
// service nodes on the same kind of database, both holding a year-old backlog of 1,000,000 events: one with a
// retention of 30 days that sweeps the backlog during the load, one without (the peer: the same service, the same
// data, nothing deleted). Rounds alternate which goes first, and only the server under load runs (the other is
// stopped); the medians of events acknowledged per second are compared (goal: retention on ≥ 0.95 of off). The bench
// checks that the sweep ran: the backlog shrank during every measured round, and the new events were stored.
import { askServer } from './server-ipc.js';
import { load, median, postgresAvailable, startServer, type Server } from './ingest-bench.js';
import { goalMark } from './goal-mark.js';

export interface RetentionBenchOptions {
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
  /** Old events each node holds at the start (default 1,000,000). */
  oldEvents?: number;
}

export interface RetentionSide {
  driver: 'SQLite' | 'PostgreSQL';
  off: number[];
  on: number[];
  ratio: number;
  /** Old events the sweeping node deleted, in all and during each measured round. */
  deleted: number;
  deletedPerRound: number[];
  /** Old events at the start. */
  backlog: number;
}

export interface RetentionBenchResult {
  sides: RetentionSide[];
  connections: number;
  skipped?: string;
}

/** Old events per node: far more than a sweep deletes during the rounds, so it deletes throughout. */
const BACKLOG = 1_000_000;

async function side(mode: 'svc' | 'svc-pg', options: Required<RetentionBenchOptions>): Promise<RetentionSide> {
  const args = [`--old-events=${options.oldEvents ?? BACKLOG}`];
  const off = await startServer(mode, args);
  const on = await startServer(mode, [...args, '--retention']);
  try {
    const backlog = await askServer(on.child, 'old');
    const rates: Record<'off' | 'on', number[]> = { off: [], on: [] };
    const deletedPerRound: number[] = [];
    const servers: [keyof typeof rates, Server][] = [['off', off], ['on', on]];
    // Only the server under load runs: the other is stopped (SIGSTOP), so the sweeping node's deletes never take the
    // two cores from its peer's round, and it sweeps only while it is measured.
    const measure = async (name: keyof typeof rates, server: Server, seconds: number): Promise<number> => {
      const other = server === on ? off : on;
      other.child.kill('SIGSTOP');
      try {
        const before = name === 'on' ? await askServer(on.child, 'old') : 0;
        const rate = (await load(server, seconds, options.connections, 50)).eventsPerSecond;
        if (name === 'on') deletedPerRound.push(before - await askServer(on.child, 'old'));
        return rate;
      } finally {
        other.child.kill('SIGCONT');
      }
    };
    for (const [name, server] of servers) await measure(name, server, 2);
    deletedPerRound.length = 0;
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const [name, server] of order) rates[name].push(await measure(name, server, options.secondsPerRound));
    }
    const left = await askServer(on.child, 'old');
    const stored = await askServer(on.child, 'stored');
    if (deletedPerRound.some((n) => n <= 0)) throw new Error(`a round ran without the sweep deleting (${deletedPerRound.join(', ')} old events per round)`);
    if (!(stored - left > 0)) throw new Error('the node with retention stored no new events');
    return {
      driver: mode === 'svc' ? 'SQLite' : 'PostgreSQL', off: rates.off, on: rates.on, ratio: median(rates.on) / median(rates.off),
      deleted: backlog - left, backlog, deletedPerRound,
    };
  } finally {
    off.child.kill('SIGCONT');
    on.child.kill('SIGCONT');
    off.child.kill('SIGTERM');
    on.child.kill('SIGTERM');
  }
}

/** @example const r = await runRetentionBench({ rounds: 3 }); */
export async function runRetentionBench(options: RetentionBenchOptions = {}): Promise<RetentionBenchResult> {
  const resolved = {
    rounds: options.rounds ?? 5, secondsPerRound: options.secondsPerRound ?? 8, connections: options.connections ?? 10, oldEvents: options.oldEvents,
  } as Required<RetentionBenchOptions>;
  const skipped = await postgresAvailable();
  const sides = [await side('svc', resolved)];
  if (!skipped) sides.push(await side('svc-pg', resolved));
  return { sides, connections: resolved.connections, ...(skipped ? { skipped } : {}) };
}

export function formatRetentionBench(r: RetentionBenchResult): string {
  const rate = (n: number): string => Math.round(n).toLocaleString('en-US');
  const rows = [
    ['database', 'retention off: events/s (median)', 'retention on: events/s (median)', 'on / off', 'rounds off', 'rounds on', 'old events deleted per round', 'deleted in all'],
    ...r.sides.map((s) => [
      s.driver, rate(median(s.off)), rate(median(s.on)), s.ratio.toFixed(3), s.off.map(rate).join(' / '), s.on.map(rate).join(' / '),
      s.deletedPerRound.map(rate).join(' / '), `${rate(s.deleted)} of ${rate(s.backlog)}`,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [
    `## Ingestion while retention deletes a year-old backlog (${r.connections} connections, batches of 50, alternating rounds)`,
    '',
    line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line),
    '',
    ...r.sides.map((s) => `${s.driver}: retention on / off = ${s.ratio.toFixed(3)} (goal ${goalMark(s.ratio >= 0.95, '≥ 0.95')})`),
    ...(r.skipped ? [r.skipped] : []),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatRetentionBench(await runRetentionBench({
    rounds: Number(process.env.BENCH_RETENTION_ROUNDS ?? 5), secondsPerRound: Number(process.env.BENCH_SECONDS ?? 8),
  })));
}
