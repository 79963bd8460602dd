// Ingestion throughput of the service (durable SQLite, batches of 50 events) next to a bare node:http server
// that only parses and discards the same bodies — the named peer, measured in the same run. Both servers run
// as forked children; autocannon drives them from this process over loopback. Rounds alternate A/B and the
// medians are compared (on two shared cores a single figure swings ±40%).
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';

export interface IngestBenchOptions {
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
  batchSize?: number;
}

export interface IngestBenchResult {
  svcEventsPerSecond: number[];
  bareEventsPerSecond: number[];
  svcMedian: number;
  bareMedian: number;
  ratio: number;
  svcRssAtRest: number;
  svcRssPeak: number;
  bareRssAtRest: number;
  bareRssPeak: number;
  errors: number;
  connections: number;
}

const AUTH = `Basic ${Buffer.from('web1:p4ss').toString('base64')}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/** A body of `size` fresh events: every request stores new rows (no duplicates make it cheaper). */
function body(size: number): string {
  const now = new Date().toISOString();
  const batch = Array.from({ length: size }, (_, i) => ({
    eventId: randomUUID(), type: i % 5 === 0 ? 'product' : 'track', name: i % 5 === 0 ? 'Product viewed' : 'Clicked banner',
    profileId: `bench-profile-${i % 17}`, sessionId: 'bench-session', pageId: 'bench-page', timestamp: now,
    data: i % 5 === 0 ? { productId: `p${i % 30}`, quantity: 1 } : { position: i, label: 'hero' },
  }));
  return JSON.stringify({ batch });
}

interface Server {
  child: ChildProcess;
  port: number;
  rss(): Promise<number>;
}

function startServer(mode: 'svc' | 'bare'): Promise<Server> {
  const child = fork(join(import.meta.dirname, 'ingest-server.ts'), [`--mode=${mode}`], {
    execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const rss = (): Promise<number> => new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      if (typeof m === 'object' && m !== null && 'rss' in m) {
        child.off('message', onMessage);
        resolve(Number((m as { rss: number }).rss));
      }
    };
    child.on('message', onMessage);
    child.send('rss');
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${String(code)}`)));
    child.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'port' in m) resolve({ child, port: Number((m as { port: number }).port), rss });
    });
  });
}

async function load(server: Server, seconds: number, connections: number, batchSize: number): Promise<{ eventsPerSecond: number; errors: number; peakRss: number }> {
  let peakRss = await server.rss();
  const sampler = setInterval(() => {
    server.rss().then((r) => { peakRss = Math.max(peakRss, r); }, () => undefined);
  }, 250);
  try {
    const result = await autocannon({
      url: `http://127.0.0.1:${server.port}/v1/acme/projects/shop/sources/web/track`,
      method: 'POST',
      connections,
      duration: seconds,
      headers: { authorization: AUTH, 'content-type': 'application/json' },
      requests: [{ setupRequest: (req) => ({ ...req, body: body(batchSize) }) }],
    });
    const ok = result['2xx'];
    return { eventsPerSecond: (ok * batchSize) / seconds, errors: result.non2xx + result.errors + result.timeouts, peakRss };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * Runs alternating rounds against both servers and returns medians and the ratio svc / bare (goal ≥ 0.5).
 * @example const r = await runIngestBench({ rounds: 3, secondsPerRound: 8 });
 */
export async function runIngestBench(options: IngestBenchOptions = {}): Promise<IngestBenchResult> {
  const rounds = options.rounds ?? 3;
  const seconds = options.secondsPerRound ?? 8;
  const connections = options.connections ?? 10;
  const batchSize = options.batchSize ?? 50;
  const svc = await startServer('svc');
  const bare = await startServer('bare');
  try {
    const svcRssAtRest = await svc.rss();
    const bareRssAtRest = await bare.rss();
    // Warm-up (JIT, SQLite page cache), not counted.
    await load(svc, 2, connections, batchSize);
    await load(bare, 2, connections, batchSize);
    const svcRates: number[] = [];
    const bareRates: number[] = [];
    let svcRssPeak = svcRssAtRest;
    let bareRssPeak = bareRssAtRest;
    let errors = 0;
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first so drift (thermal, neighbours) hits both alike.
      const order: ['svc' | 'bare', Server][] = round % 2 === 0 ? [['svc', svc], ['bare', bare]] : [['bare', bare], ['svc', svc]];
      for (const [name, server] of order) {
        const r = await load(server, seconds, connections, batchSize);
        errors += r.errors;
        if (name === 'svc') {
          svcRates.push(r.eventsPerSecond);
          svcRssPeak = Math.max(svcRssPeak, r.peakRss);
        } else {
          bareRates.push(r.eventsPerSecond);
          bareRssPeak = Math.max(bareRssPeak, r.peakRss);
        }
      }
    }
    const svcMedian = median(svcRates);
    const bareMedian = median(bareRates);
    return {
      svcEventsPerSecond: svcRates, bareEventsPerSecond: bareRates, svcMedian, bareMedian,
      ratio: svcMedian / bareMedian, svcRssAtRest, svcRssPeak, bareRssAtRest, bareRssPeak, errors, connections,
    };
  } finally {
    svc.child.kill('SIGTERM');
    bare.child.kill('SIGTERM');
  }
}

/** The result as the table `npm run bench` prints. */
export function formatIngestBench(r: IngestBenchResult): string {
  const mb = (b: number): string => `${(b / 1024 / 1024).toFixed(0)} MB`;
  const rate = (n: number): string => Math.round(n).toLocaleString('en-US');
  const rows = [
    ['server', 'events/s (median)', 'rounds', 'RSS at rest', 'RSS under load'],
    ['svc (Fastify + durable SQLite)', rate(r.svcMedian), r.svcEventsPerSecond.map(rate).join(' / '), mb(r.svcRssAtRest), mb(r.svcRssPeak)],
    ['bare node:http (parse + discard)', rate(r.bareMedian), r.bareEventsPerSecond.map(rate).join(' / '), mb(r.bareRssAtRest), mb(r.bareRssPeak)],
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  const line = (row: string[]): string => `| ${row.map((c, i) => c.padEnd(widths[i] as number)).join(' | ')} |`;
  return [
    `Ingestion: POST …/track, batches of 50 events, ${r.connections} connections, alternating A/B rounds`,
    line(rows[0]!), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, line(rows[1]!), line(rows[2]!),
    `ratio svc / bare = ${r.ratio.toFixed(2)} (goal ≥ 0.5)${r.errors ? `  — ${r.errors} non-2xx/errors` : ''}`,
  ].join('\n');
}
