// The questions a bench asks its forked server children over IPC, both sides in one place.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

/**
 * What a bench server answers: its RSS in bytes, its CPU time so far (user + system, µs, all threads), the time its
 * main thread's event loop was busy so far (µs, wall clock: what bounds a server whose main thread is saturated), or — once the
 * work it accepted has all been done (the service's recommendation models caught up) — 1.
 */
export type ServerQuestion = 'rss' | 'cpu' | 'busy' | 'settled' | 'stored' | 'old';

/**
 * Bench side: sends `question` to the child and resolves with the number it answers under that key.
 * @example const cpuBefore = await askServer(child, 'cpu');
 */
export function askServer(child: ChildProcess, question: ServerQuestion): Promise<number> {
  return new Promise((resolve) => {
    const onMessage = (m: unknown): void => {
      if (typeof m === 'object' && m !== null && question in m) {
        child.off('message', onMessage);
        resolve(Number((m as Record<string, unknown>)[question]));
      }
    };
    child.on('message', onMessage);
    child.send(question);
  });
}

/**
 * Server side: answers the bench's questions (askServer) for as long as the process runs. `settle` resolves once what
 * the server accepted has all been done (none: at once); `stored` counts the events the server has stored, `old` those
 * a retention should delete.
 */
export function answerBenchQuestions(
  settle: () => Promise<void> = () => Promise.resolve(), stored: () => Promise<number> = () => Promise.resolve(NaN),
  old: () => Promise<number> = () => Promise.resolve(NaN),
): void {
  process.on('message', (message) => {
    if (message === 'old') void old().then((count) => process.send?.({ old: count }));
    if (message === 'stored') void stored().then((count) => process.send?.({ stored: count }));
    if (message === 'settled') void settle().then(() => process.send?.({ settled: 1 }));
    if (message === 'rss') process.send?.({ rss: process.memoryUsage().rss });
    if (message === 'busy') process.send?.({ busy: performance.eventLoopUtilization().active * 1000 });
    if (message === 'cpu') {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpu: user + system });
    }
  });
}

/**
 * Forks the bench server `script` (beside this file, run with tsx) with `args`, and resolves once it sends its port.
 * @example const { child, port } = await forkBenchServer('choose-server.ts', ['--mode=svc']);
 */
export function forkBenchServer(script: string, args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(join(import.meta.dirname, script), args, { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${script} ${args.join(' ')} exited with ${String(code)}`)));
    child.on('message', (m: unknown) => {
      if (typeof m === 'object' && m !== null && 'port' in m) resolve({ child, port: Number((m as { port: number }).port) });
    });
  });
}
