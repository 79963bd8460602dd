// The Choose API while an experiment is being managed: the same load against the same server, in alternating rounds,
// once undisturbed and once while a client changes one experiment's weights through the management API every
// second (each change is a write, a revision bump and a recompiled project config on the node). The mix is the
// Choose bench's realistic one, a fifth of requests from new visitors. Goal: the ratio stays 1.0 within noise.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { openPostgresStorage } from '../server/storage/postgres/postgres-storage.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import { firstVisits, load, median, startServer, type Server } from './choose-bench.js';
import { svcExperiments } from './choose-experiments.js';
import type { Storage } from '../server/storage/storage.js';
import { SCHEMA } from '../server/schema.js';
import { goalMark } from './goal-mark.js';

export interface ManagementBenchOptions {
  rounds?: number;
  secondsPerRound?: number;
  connections?: number;
  profiles?: number;
}

interface Side {
  rps: number[];
  p99: number[];
  cpu: number[];
}

export interface ManagementBenchResult {
  quiet: Side;
  writing: Side;
  writes: number;
  failedWrites: number;
  /** Median over rounds of requests/s while writing / requests/s undisturbed. */
  ratio: number;
  errors: number;
}

const NEW_VISITOR_SHARE = 0.2;

/** Changes exp-00's weights once a second (50/50 ↔ 60/40) until stopped; counts the writes and the failures. */
function startWriter(server: Server): { stop: () => Promise<{ writes: number; failed: number }> } {
  const [experience] = svcExperiments();
  let writes = 0;
  let failed = 0;
  let inFlight: Promise<void> = Promise.resolve();
  const write = (): void => {
    const split = writes % 2 === 0 ? [60, 40] : [50, 50];
    const body = { ...experience, variations: experience!.variations!.map((v, i) => ({ ...v, weight: split[i]! })) };
    inFlight = fetch(`http://127.0.0.1:${server.port}/v1/acme/projects/shop/experiences/${experience!.name}`, {
      method: 'PUT', headers: { authorization: 'Bearer admbench.s3cret', 'content-type': 'application/json' }, body: JSON.stringify(body),
    }).then(
      (res) => {
        if (res.ok) writes++;
        else failed++;
      },
      () => void failed++,
    );
  };
  write();
  const timer = setInterval(write, 1000);
  return {
    stop: async () => {
      clearInterval(timer);
      await inFlight;
      return { writes, failed };
    },
  };
}

export async function runManagementBench(options: ManagementBenchOptions = {}): Promise<ManagementBenchResult> {
  const rounds = options.rounds ?? 5;
  const seconds = options.secondsPerRound ?? 5;
  const connections = options.connections ?? 10;
  const profiles = options.profiles ?? 1000;
  const server = await startServer('svc', profiles);
  const quiet: Side = { rps: [], p99: [], cpu: [] };
  const writing: Side = { rps: [], p99: [], cpu: [] };
  let writes = 0;
  let failedWrites = 0;
  let errors = 0;
  try {
    await firstVisits(server, connections, profiles);
    await load(server, 2, connections, profiles, NEW_VISITOR_SHARE);
    for (let round = 0; round < rounds; round++) {
      // Alternate which goes first, so drift on a shared machine hits both alike.
      for (const withWrites of round % 2 === 0 ? [false, true] : [true, false]) {
        const writer = withWrites ? startWriter(server) : undefined;
        const r = await load(server, seconds, connections, profiles, NEW_VISITOR_SHARE);
        if (writer) {
          const done = await writer.stop();
          writes += done.writes;
          failedWrites += done.failed;
        }
        errors += r.errors;
        const into = withWrites ? writing : quiet;
        into.rps.push(r.rps);
        into.p99.push(r.p99);
        into.cpu.push(r.cpu);
      }
    }
  } finally {
    server.child.kill('SIGTERM');
  }
  const ratio = median(writing.rps.map((rps, i) => rps / quiet.rps[i]!));
  return { quiet, writing, writes, failedWrites, ratio, errors };
}

export function formatManagementBench(r: ManagementBenchResult): string {
  const row = (name: string, s: Side): string =>
    `| ${name} | ${Math.round(median(s.rps)).toLocaleString('en-US')} | ${median(s.p99).toFixed(1)} | ${Math.round(median(s.cpu))} |`;
  // Within noise: the writes cost nothing the rounds can tell apart, so some paired round is not slower with them.
  const withinNoise = r.writing.rps.some((rps, i) => rps >= r.quiet.rps[i]!);
  return [
    '## Choose API while an experiment is changed every second (management API; a fifth new visitors)',
    '',
    '| run | requests/s (median) | p99 ms | CPU µs/request |',
    '|---|---|---|---|',
    row('undisturbed', r.quiet),
    row('one weight change per second', r.writing),
    '',
    `Ratio writing / undisturbed: **${r.ratio.toFixed(2)}×** (median of ${r.quiet.rps.length} paired rounds; goal ` +
      `${goalMark(withinNoise, '1.0 within noise: a paired round at 1.0 or above')}). ` +
      `${r.writes} changes written, ${r.failedWrites} failed; ${r.errors} Choose errors.`,
  ].join('\n');
}

/** Milliseconds from a management write's answer on one node until another node on the same database serves it. */
export interface PropagationResult {
  driver: 'sqlite' | 'postgres';
  medianMs: number;
  maxMs: number;
}

/**
 * Two nodes (two apps, two connections) on one database: a write through the first, then the second is asked every
 * 5 ms until it serves the change. SQLite nodes learn of it by polling (250 ms); PostgreSQL nodes by NOTIFY.
 */
export async function runPropagationBench(writes = 10): Promise<PropagationResult[]> {
  const config = () => ({
    organizations: { acme: { adminKeys: ['adm1.s3cret'], projects: { shop: { apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p'], sources: ['web'] } } } },
  });
  const run = Date.now().toString(36);
  const measure = async (driver: PropagationResult['driver'], open: () => Promise<Storage>): Promise<PropagationResult> => {
    const [first, second] = [await open(), await open()];
    const a = await buildApp({ config: config(), storage: first });
    const b = await buildApp({ config: config(), storage: second });
    const ms: number[] = [];
    try {
      for (let i = 0; i < writes; i++) {
        const name = `propagated-${run}-${i}`; // new names each run: the PostgreSQL database is kept between runs
        await a.inject({ method: 'PUT', url: `/v1/acme/projects/shop/experiences/${name}`, headers: { authorization: 'Bearer adm1.s3cret' }, payload: { body: { i } } });
        const answered = performance.now();
        for (;;) {
          const res = await b.inject({
            method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret',
            payload: { identification: { sourceId: 'web', profileId: 'p' }, names: [name] },
          });
          if ((res.json() as { choices: unknown[] }).choices.length > 0) break;
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        ms.push(performance.now() - answered);
      }
    } finally {
      await a.close();
      await b.close();
      await first.close();
      await second.close();
    }
    return { driver, medianMs: median(ms), maxMs: Math.max(...ms) };
  };
  const dir = mkdtempSync(join(tmpdir(), 'svc-propagation-'));
  const results = [await measure('sqlite', () => openSqliteStorage(join(dir, 'svc.db'), SCHEMA))];
  rmSync(dir, { recursive: true, force: true });
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/svc_bench_propagation';
  try {
    results.push(await measure('postgres', () => openPostgresStorage(url, SCHEMA)));
  } catch (error) {
    console.error(`propagation bench: PostgreSQL skipped (${String(error)})`);
  }
  return results;
}

export function formatPropagationBench(results: PropagationResult[]): string {
  return [
    '## A management write reaching another node on the same database',
    '',
    '| database | how the other node learns | median ms after the answer | max ms | goal |',
    '|---|---|---|---|---|',
    ...results.map((r) => `| ${r.driver} | ${r.driver === 'sqlite' ? 'polls the revision every 250 ms' : 'LISTEN/NOTIFY (and the poll)'} | ${Math.round(r.medianMs)} | ${Math.round(r.maxMs)} | `
      + `${goalMark(r.maxMs <= 1000, 'every write within 1 s')} |`),
  ].join('\n');
}
