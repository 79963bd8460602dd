// The first Choose answer after a start: the service (dist/server.mjs, the shipped svc.config.json, a fresh SQLite
// directory) is started, and as soon as /healthz answers, a new visitor asks for the homepage group — then 20 more new
// visitors, one at a time. The ratio is the first answer's time over the median of the later ones (the same server,
// warm): how much a visitor arriving right after a deploy or a restart waits beyond the usual. Each round is a new
// process. The CLI warms the Choose API before it listens (compiled config, writer thread, prepared reads).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FirstAnswerRound {
  readyMs: number;
  firstMs: number;
  warmMedianMs: number;
}

const AUTH = `Basic ${Buffer.from('web1:p4ss').toString('base64')}`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function round(port: number): Promise<FirstAnswerRound> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-first-answer-'));
  const started = performance.now();
  const child = spawn(process.execPath, ['dist/server.mjs'], {
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir, LOG_LEVEL: 'warn', DATABASE_URL: '' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  try {
    for (;;) {
      try {
        if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const readyMs = performance.now() - started;
    const ask = async (profileId: string): Promise<number> => {
      const t = performance.now();
      const res = await fetch(`http://127.0.0.1:${port}/v1/acme/projects/shop/optimization/choose-api`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: AUTH },
        body: JSON.stringify({ identification: { sourceId: 'web', profileId }, groups: ['homepage'], device: 'desktop', sessionId: `s-${profileId}` }),
      });
      if (!res.ok) throw new Error(`choose answered ${res.status}`);
      await res.text();
      return performance.now() - t;
    };
    const firstMs = await ask('first');
    const later: number[] = [];
    for (let i = 0; i < 20; i++) later.push(await ask(`later-${i}`));
    return { readyMs, firstMs, warmMedianMs: median(later) };
  } finally {
    child.kill();
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function runFirstAnswerBench(rounds = 5): Promise<FirstAnswerRound[]> {
  const results: FirstAnswerRound[] = [];
  for (let i = 0; i < rounds; i++) results.push(await round(18_000 + Math.floor(Math.random() * 2000)));
  return results;
}

export function formatFirstAnswerBench(rounds: FirstAnswerRound[]): string {
  const first = median(rounds.map((r) => r.firstMs));
  const warm = median(rounds.map((r) => r.warmMedianMs));
  return [
    '## First Choose answer after a start (new visitor, homepage group, dist/server.mjs with the shipped config)',
    '',
    '| start → healthy (p50) | first answer (p50) | later answers (p50) | first / later |',
    '|---:|---:|---:|---:|',
    `| ${median(rounds.map((r) => r.readyMs)).toFixed(0)} ms | ${first.toFixed(1)} ms | ${warm.toFixed(1)} ms | ${(first / warm).toFixed(1)}× |`,
    '',
    `${rounds.length} starts, each a new process on a new SQLite directory.`,
  ].join('\n');
}
