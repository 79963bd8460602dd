// Paired runs of two checkouts' ingestion servers, alternating, to decide a change by measurement:
// `node --import tsx bench/ingest-ab.ts --a=../before --b=. [--mode=svc|svc-pg] [--pairs=4] [--seconds=6] [--connections=10]`.
// Each side is that checkout's bench/ingest-server.ts (the real service, durable, a fresh database each start) under
// the ingestion bench's load (batches of 50 fresh events from one browser each, a fifth of them product views). Each
// run ends when the server has done all it accepted (the models caught up), so the figure is what a node sustains.
// Prints events/s and the server's CPU time per request for each run, then B relative to A per pair (pairs alternate
// which side runs first) and the medians.
import { fork } from 'node:child_process';
import { resolve } from 'node:path';
import { load, median, type Server } from './ingest-bench.js';
import { askServer } from './server-ipc.js';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const trees = { A: resolve(arg('a', '.')), B: resolve(arg('b', '.')) };
const mode = arg('mode', 'svc');
const pairs = Number(arg('pairs', '4'));
const seconds = Number(arg('seconds', '6'));
const connections = Number(arg('connections', '10'));
const BATCH = 50;

/** That checkout's ingestion server, started fresh. */
function start(tree: string): Promise<Server> {
  const child = fork(resolve(tree, 'bench/ingest-server.ts'), [`--mode=${mode}`], {
    execArgv: ['--import', 'tsx'], cwd: tree, stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  return new Promise((done, fail) => {
    child.once('exit', (code) => fail(new Error(`${tree}: ingest-server exited with ${String(code)}`)));
    child.on('message', (m: unknown) => {
      if (typeof m !== 'object' || m === null || !('port' in m)) return;
      done({
        child, port: Number((m as { port: number }).port), rss: () => askServer(child, 'rss'), cpu: () => askServer(child, 'cpu'),
        settled: () => askServer(child, 'settled'),
      });
    });
  });
}

async function run(side: 'A' | 'B'): Promise<{ sustained: number; cpu: number }> {
  const server = await start(trees[side]);
  try {
    // A short warm-up (statements prepared, threads started), then the measured load.
    await load(server, 1, connections, BATCH);
    const r = await load(server, seconds, connections, BATCH);
    if (r.errors > 0) throw new Error(`${side}: ${r.errors} errors`);
    const sustained = (r.eventsPerSecond * seconds) / (seconds + r.catchUpSeconds);
    console.log(`${side} ${Math.round(r.eventsPerSecond)} events/s acknowledged, ${Math.round(sustained)} sustained, ${r.cpuUsPerRequest.toFixed(0)} µs CPU per request`);
    return { sustained, cpu: r.cpuUsPerRequest };
  } finally {
    server.child.kill();
  }
}

const ratios: number[] = [];
const cpu: number[] = [];
for (let i = 0; i < pairs; i++) {
  const order: ('A' | 'B')[] = i % 2 === 0 ? ['A', 'B'] : ['B', 'A'];
  const got: Record<string, { sustained: number; cpu: number }> = {};
  for (const side of order) got[side] = await run(side);
  // Every run stored events: a side that did nothing would show as 0 events/s here, not as a ratio.
  if (!(got.A!.sustained > 0 && got.B!.sustained > 0)) throw new Error('a side stored nothing');
  ratios.push(got.B!.sustained / got.A!.sustained);
  cpu.push(got.B!.cpu / got.A!.cpu);
}
console.log(`\nB / A sustained events/s per pair (${mode}, ${pairs} pairs of ${seconds} s, ${connections} connections): `
  + `${ratios.map((r) => r.toFixed(3)).join(' / ')}; median ${median(ratios).toFixed(3)}`);
console.log(`B / A CPU per request per pair: ${cpu.map((r) => r.toFixed(3)).join(' / ')}; median ${median(cpu).toFixed(3)}`);
