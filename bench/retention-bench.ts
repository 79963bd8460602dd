// Ingestion while retention deletes: the ingestion bench's load (batches of 50 new events, 10 connections) against two
// service nodes on the same kind of database, both holding a year-old backlog of 1,000,000 events: one with a
// retention of 30 days that sweeps the backlog during the load, one without (the peer: the same service, the same
// data, nothing deleted). Rounds alternate which goes first; the medians of events acknowledged per second are
// compared (goal: retention on ≥ 0.95 of off). The bench checks that the sweep ran: the backlog shrank during the
// rounds, and the new events were stored.
import { askServer } from './server-ipc.js';
import { load, median, postgresAvailable, startServer, type Mode, type Server } from './ingest-bench.js';

export interface RetentionBenchOptions {
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
  oldEvents?: number;
}

export interface RetentionSide {
  driver: 'SQLite' | 'PostgreSQL';
  off: number[];
  on: number[];
  ratio: number;
  /** Old events the sweeping node deleted while the rounds ran. */
  deleted: number;
  /** Old events at the start. */
  backlog: number;
}

export interface RetentionBenchResult {
  sides: RetentionSide[];
  connections: number;
  skipped?: string;
}

async function side(mode: Mode, options: Required<RetentionBenchOptions>): Promise<RetentionSide> {
  const args = [`--old-events=${options.oldEvents}`];
  const off = await startServer(mode, args);
  const on = await startServer(mode, [...args, '--retention']);
  try {
    const backlog = await askServer(on.child, 'old');
    const rates: Record<'off' | 'on', number[]> = { off: [], on: [] };
    const servers: [keyof typeof rates, Server][] = [['off', off], ['on', on]];
    for (const [, server] of servers) await load(server, 2, options.connections, 50);
    for (let round = 0; round < options.rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const [name, server] of order) rates[name].push((await load(server, options.secondsPerRound, options.connections, 50)).eventsPerSecond);
    }
    const left = await askServer(on.child, 'old');
    const stored = await askServer(on.child, 'stored');
    if (!(left < backlog)) throw new Error(`the retention sweep deleted nothing (${left} of ${backlog} old events left)`);
    if (!(stored - left > 0)) throw new Error('the node with retention stored no new events');
    return {
      driver: mode === 'svc' ? 'SQLite' : 'PostgreSQL', off: rates.off, on: rates.on, ratio: median(rates.on) / median(rates.off),
      deleted: backlog - left, backlog,
    };
  } finally {
    off.child.kill('SIGTERM');
    on.child.kill('SIGTERM');
  }
}

/** @example const r = await runRetentionBench({ rounds: 3 }); */
export async function runRetentionBench(options: RetentionBenchOptions = {}): Promise<RetentionBenchResult> {
  const resolved: Required<RetentionBenchOptions> = {
    rounds: options.rounds ?? 3, secondsPerRound: options.secondsPerRound ?? 8, connections: options.connections ?? 10,
    oldEvents: options.oldEvents ?? 1_000_000,
  };
  const skipped = await postgresAvailable();
  const sides = [await side('svc', resolved)];
  if (!skipped) sides.push(await side('svc-pg', resolved));
  return { sides, connections: resolved.connections, ...(skipped ? { skipped } : {}) };
}

export function formatRetentionBench(r: RetentionBenchResult): string {
  const rate = (n: number): string => Math.round(n).toLocaleString('en-US');
  const rows = [
    ['database', 'retention off: events/s (median)', 'retention on: events/s (median)', 'on / off', 'rounds off', 'rounds on', 'old events deleted meanwhile'],
    ...r.sides.map((s) => [
      s.driver, rate(median(s.off)), rate(median(s.on)), s.ratio.toFixed(3), s.off.map(rate).join(' / '), s.on.map(rate).join(' / '),
      `${rate(s.deleted)} of ${rate(s.backlog)}`,
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [
    `## Ingestion while retention deletes a year-old backlog (${r.connections} connections, batches of 50, alternating rounds)`,
    '',
    line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...rows.slice(1).map(line),
    '',
    ...r.sides.map((s) => `${s.driver}: retention on / off = ${s.ratio.toFixed(3)} (goal ≥ 0.95: ${s.ratio >= 0.95 ? 'met' : 'missed'})`),
    ...(r.skipped ? [r.skipped] : []),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatRetentionBench(await runRetentionBench({
    rounds: Number(process.env.BENCH_ROUNDS ?? 3), secondsPerRound: Number(process.env.BENCH_SECONDS ?? 8),
  })));
}
