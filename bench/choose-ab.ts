// Paired runs of two checkouts' Choose servers, alternating, to decide an optimization (a cache, a code path) by
// measurement: `node --import tsx bench/choose-ab.ts --a=../before --b=. [--share=0] [--pairs=3] [--seconds=6] [--connections=10] [--warm=2]`.
// Each side is that checkout's bench/choose-server.ts (--mode=svc, 1,000 returning profiles with stored attributes)
// under the choose bench's request mix; `--share` is the share of requests from new visitors. Prints requests/s, the
// server's CPU time per request (all threads) and its main thread's busy time per request (event loop utilization:
// what bounds a server whose main thread is saturated, as at 64 connections) for each run, then the means and B
// relative to A per pair (pairs alternate which side runs first). Both sides must have bench/server-ipc.ts's 'busy'
// question: copy this checkout's file into an older tree's bench/.
// `--prof` writes each server's CPU profile to ./prof (node --cpu-prof).
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { NAMES } from './choose-experiments.js';
import { askServer } from './server-ipc.js';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const trees = { A: resolve(arg('a', '.')), B: resolve(arg('b', '.')) };
const share = Number(arg('share', '0'));
const pairs = Number(arg('pairs', '3'));
const seconds = Number(arg('seconds', '6'));
// Seconds of load before measuring: long enough, a server whose per-node caches are full (a node that has run a while).
const warm = Number(arg('warm', '2'));
const profile = process.argv.includes('--prof');
const BROWSER_UA = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

/** The choose bench's mix: returning visitors continue a session or start one (a quarter), new ones are new. */
function requestBody(state: { newVisitors: number; sessions: Map<number, number> }): string {
  if (Math.random() < share) {
    const profileId = `ab-new-${process.pid}-${state.newVisitors++}`;
    return JSON.stringify({ identification: { sourceId: 'web', profileId }, names: NAMES, device: 'desktop', sessionId: `${profileId}-s` });
  }
  const visitor = Math.floor(Math.random() * 1000);
  let session = state.sessions.get(visitor) ?? 0;
  if (Math.random() < 0.25) state.sessions.set(visitor, ++session);
  return JSON.stringify({
    identification: { sourceId: 'web', profileId: `bench-profile-${visitor}` }, names: NAMES, device: 'desktop', sessionId: `ab-${visitor}-${session}`,
  });
}

async function start(tree: string): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(resolve(tree, 'bench/choose-server.ts'), ['--mode=svc', '--profiles=1000'], {
    execArgv: ['--import', 'tsx', ...(profile ? ['--cpu-prof', '--cpu-prof-dir=prof'] : [])],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((ready, fail) => {
    child.once('exit', (code) => fail(new Error(`${tree}: server exited with ${String(code)}`)));
    child.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'port' in m) ready(Number((m as { port: number }).port));
    });
  });
  return { child, port };
}

async function run(tree: string): Promise<{ rps: number; cpu: number; busy: number }> {
  const { child, port } = await start(tree);
  const state = { newVisitors: 0, sessions: new Map<number, number>() };
  const load = (duration: number) => autocannon({
    url: `http://127.0.0.1:${port}/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret`,
    method: 'POST', connections: Number(arg('connections', '10')), duration,
    // A browser's request: the service reads its User-Agent for results' browser breakdown.
    headers: { 'content-type': 'application/json', 'user-agent': BROWSER_UA },
    requests: [{ setupRequest: (req) => ({ ...req, body: requestBody(state) }) }],
  });
  try {
    await load(warm);
    const before = await askServer(child, 'cpu');
    const busyBefore = await askServer(child, 'busy');
    const result = await load(seconds);
    const cpu = (await askServer(child, 'cpu') - before) / Math.max(1, result.requests.total);
    const busy = (await askServer(child, 'busy') - busyBefore) / Math.max(1, result.requests.total);
    if (result.non2xx > 0) throw new Error(`${tree}: ${result.non2xx} answers were not 2xx`);
    return { rps: result.requests.total / seconds, cpu, busy };
  } finally {
    // SIGINT lets --cpu-prof write its profile (the bench server exits on it).
    child.kill(profile ? 'SIGINT' : 'SIGTERM');
  }
}

const results: Record<'A' | 'B', { rps: number; cpu: number; busy: number }[]> = { A: [], B: [] };
for (let i = 0; i < pairs; i++) {
  // Each pair in the other order than the last, so a drift during a pair (a neighbour, the page cache) favours
  // neither side.
  for (const side of i % 2 === 0 ? ['A', 'B'] as const : ['B', 'A'] as const) {
    const r = await run(trees[side]);
    results[side].push(r);
    console.log(`${side} ${Math.round(r.rps)} requests/s, ${r.cpu.toFixed(1)} µs CPU per request, main thread busy ${r.busy.toFixed(1)} µs per request`);
  }
}
const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
const cpuA = mean(results.A.map((r) => r.cpu));
const cpuB = mean(results.B.map((r) => r.cpu));
const perPair = results.B.map((b, i) => b.cpu / results.A[i]!.cpu);
function medianOf(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  return sorted.length % 2 ? sorted[(sorted.length - 1) / 2]! : (sorted[sorted.length / 2 - 1]! + sorted[sorted.length / 2]!) / 2;
}
const median = medianOf(perPair);
console.log(`\n| side | tree | requests/s (mean) | CPU/request (mean) |\n|---|---|---|---|`);
console.log(`| A | ${trees.A} | ${Math.round(mean(results.A.map((r) => r.rps)))} | ${cpuA.toFixed(1)} µs |`);
console.log(`| B | ${trees.B} | ${Math.round(mean(results.B.map((r) => r.rps)))} | ${cpuB.toFixed(1)} µs |`);
console.log(`B / A CPU per request: ${(cpuB / cpuA).toFixed(3)} (new visitors ${Math.round(share * 100)} %, ${pairs} pairs of ${seconds} s)`);
// One pair's ratio moves by ±10 % on a shared two-core machine: a change is decided by the pairs that agree.
const rpsPairs = results.B.map((b, i) => b.rps / results.A[i]!.rps);
const busyPairs = results.B.map((b, i) => b.busy / results.A[i]!.busy);
console.log(`B / A requests/s per pair: ${rpsPairs.map((r) => r.toFixed(3)).join(' / ')}; median ${medianOf(rpsPairs).toFixed(3)}`);
console.log(`B / A main thread busy per request, per pair: ${busyPairs.map((r) => r.toFixed(3)).join(' / ')}; median ${medianOf(busyPairs).toFixed(3)}`);
console.log(`CPU per pair: ${perPair.map((r) => r.toFixed(3)).join(' / ')}; median ${median.toFixed(3)}; B cheaper in ${perPair.filter((r) => r < 1).length} of ${pairs}`);
