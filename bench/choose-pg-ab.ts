// Paired runs of two checkouts' Choose API on PostgreSQL with every request from a new visitor (20 experiments, 64
// requests in flight through app.inject, so no socket or load generator is measured): answers per second and this
// process's CPU time per answer (PostgreSQL's own is not counted).
// `node --import tsx bench/choose-pg-ab.ts --a=../before --b=. [--pairs=3] [--answers=3000]`; each run is a child
// process on a database of its own (created on the local server, dropped after).
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const arg = (name: string, fallback: string): string =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;

interface Run { tree: string; perSecond: number; cpuUs: number }

/** One run in this process: the tree's own app, storage and test database helper. */
async function runTree(tree: string, answers: number): Promise<Run> {
  const from = (path: string) => import(pathToFileURL(resolve(tree, path)).href);
  const { buildApp } = await from('server/app.ts');
  const { postgresDatabase } = await from('test/server/helpers/storage-drivers.ts');
  const { svcExperiments, NAMES } = await from('bench/choose-experiments.ts');
  const db = await postgresDatabase();
  const storage = await db.open();
  const app = await buildApp({
    storage,
    config: { organizations: { acme: { projects: { shop: {
      apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], experiences: svcExperiments(),
    } } } } },
  });
  let visitors = 0;
  const answer = async (): Promise<void> => {
    const profileId = `pg-new-${visitors++}`;
    const response = await app.inject({
      method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret',
      payload: { identification: { sourceId: 'web', profileId }, names: NAMES, device: 'desktop', sessionId: `${profileId}-s` },
    });
    if (response.statusCode !== 200) throw new Error(response.body);
  };
  const load = async (total: number): Promise<void> => {
    let left = total;
    await Promise.all(Array.from({ length: 64 }, async () => {
      while (left-- > 0) await answer();
    }));
  };
  try {
    await load(500);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await load(answers);
    const seconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    return { tree, perSecond: answers / seconds, cpuUs: (used.user + used.system) / answers };
  } finally {
    await app.close();
    await db.destroy();
  }
}

const child = process.argv.find((a) => a.startsWith('--run='));
if (child) {
  process.stdout.write(JSON.stringify(await runTree(child.slice('--run='.length), Number(arg('answers', '3000')))));
} else {
  const trees = { A: resolve(arg('a', '.')), B: resolve(arg('b', '.')) };
  const pairs = Number(arg('pairs', '3'));
  const ratios: { perSecond: number; cpu: number }[] = [];
  for (let i = 0; i < pairs; i++) {
    const runs: Partial<Record<'A' | 'B', Run>> = {};
    // Alternating order, as bench/choose-ab.ts does.
    for (const side of i % 2 === 0 ? ['A', 'B'] as const : ['B', 'A'] as const) {
      const out = execFileSync(process.execPath, ['--import', 'tsx', import.meta.filename, `--run=${trees[side]}`, `--answers=${arg('answers', '3000')}`]);
      runs[side] = JSON.parse(out.toString()) as Run;
      console.log(`${side} ${Math.round(runs[side].perSecond)} answers/s, ${Math.round(runs[side].cpuUs)} µs CPU per answer`);
    }
    ratios.push({ perSecond: runs.B!.perSecond / runs.A!.perSecond, cpu: runs.B!.cpuUs / runs.A!.cpuUs });
  }
  console.log(`B / A answers/s per pair: ${ratios.map((r) => r.perSecond.toFixed(3)).join(' / ')}`);
  console.log(`B / A CPU per answer per pair: ${ratios.map((r) => r.cpu.toFixed(3)).join(' / ')}`);
}
