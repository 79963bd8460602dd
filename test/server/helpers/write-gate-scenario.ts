// Run as a process of its own by write-gate.test.ts (worker threads inside node:test's process lost its event loop):
// two writer threads on one real gate, each "write" logging its start and end and running until this script releases
// it. Prints the log (10 × writer + 1 started, + 2 ended) as JSON. Scenarios:
//   bulk-first         a bulk write under way, then an interactive one; released in order
//   interactive-first  an interactive write under way, then a bulk one; released in order
//   no-starvation      an interactive write under way that is never released until the bulk one has started
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { transformSync } from 'esbuild';

// The module as the threads run it, as JavaScript (it imports nothing): esbuild strips its types.
const GATE_MODULE = `data:text/javascript,${encodeURIComponent(transformSync(
  readFileSync(new URL('../../../server/storage/sqlite/write-gate.ts', import.meta.url), 'utf8'), { loader: 'ts', format: 'esm' },
).code)}`;

const gate = new SharedArrayBuffer(8);
const log = new SharedArrayBuffer(64);
const release = new SharedArrayBuffer(16);
const l = new Int32Array(log);
const r = new Int32Array(release);
const entries = (): number[] => Array.from(l.slice(1, 1 + Atomics.load(l, 0)));

function writer(id: number, role: string): Promise<void> {
  const code = `
    const { workerData } = await import('node:worker_threads');
    const { inTurn } = await import(${JSON.stringify(GATE_MODULE)});
    const { id, role, gate, log, release } = workerData;
    const l = new Int32Array(log);
    const r = new Int32Array(release);
    const note = (what) => { const at = Atomics.add(l, 0, 1) + 1; Atomics.store(l, at, id * 10 + what); };
    inTurn(gate, role, () => {
      note(1);
      while (Atomics.load(r, id) === 0) Atomics.wait(r, id, 0, 20000);
      note(2);
    });`;
  const worker = new Worker(`import(${JSON.stringify(`data:text/javascript,${encodeURIComponent(code)}`)})`, { eval: true, workerData: { id, role, gate, log, release } });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', () => resolve());
  });
}

async function until(entry: number): Promise<void> {
  for (let waited = 0; !entries().includes(entry); waited += 5) {
    if (waited > 10_000) throw new Error(`never logged ${entry}: ${entries().join(' ')}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function let_(id: number): void {
  Atomics.store(r, id, 1);
  Atomics.notify(r, id);
}

const scenario = process.argv[2];
const [firstRole, secondRole] = scenario === 'bulk-first' ? ['bulk', 'interactive'] : ['interactive', 'bulk'];
const first = writer(1, firstRole);
await until(11);
const second = writer(2, secondRole);
if (scenario === 'no-starvation') {
  await until(21);
} else {
  // Every chance for the second writer to (wrongly) start while the first is inside.
  await new Promise((resolve) => setTimeout(resolve, 100));
}
const whileFirstInside = entries();
let_(1);
if (scenario !== 'no-starvation') await until(21);
let_(2);
await Promise.all([first, second]);
console.log(JSON.stringify({ whileFirstInside, all: entries() }));
