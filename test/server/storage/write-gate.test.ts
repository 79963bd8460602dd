// The write gate between a SQLite file's writer threads (server/storage/sqlite/write-gate.ts): an interactive
// writer (Choose) never starts while a bulk transaction (ingestion) is under way, a bulk writer stands aside while an
// interactive one is announced, and never for good. Real worker threads blocking on the real gate, in a process of
// their own (helpers/write-gate-scenario.ts); each "write" runs until the scenario lets it finish, and the order of
// starts (10 × writer + 1) and ends (+ 2) is read from shared memory.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
import { BULK_YIELD_MS } from '../../../server/storage/sqlite/write-gate.js';

const SCENARIO = new URL('../helpers/write-gate-scenario.ts', import.meta.url).pathname;

async function run(scenario: string): Promise<{ whileFirstInside: number[]; all: number[] }> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', SCENARIO, scenario], { timeout: 30_000 });
  return JSON.parse(stdout) as { whileFirstInside: number[]; all: number[] };
}

describe('the write gate: interactive writes first, bulk ones never for good', () => {
  it('an interactive write waits for the bulk transaction under way, then runs', async () => {
    const { whileFirstInside, all } = await run('bulk-first');
    assert.deepEqual(whileFirstInside, [11], 'nothing else while the bulk transaction runs');
    assert.deepEqual(all, [11, 12, 21, 22]);
  });

  it('a bulk write stands aside while an interactive one is under way, and takes its turn after it', async () => {
    const { whileFirstInside, all } = await run('interactive-first');
    assert.deepEqual(whileFirstInside, [11], 'the bulk writer stood aside');
    assert.deepEqual(all, [11, 12, 21, 22]);
  });

  it(`a bulk write stands aside for at most ${BULK_YIELD_MS} ms: an interactive writer that stays does not starve it`, async () => {
    // The interactive write is released only once the bulk one has started: the scenario ends only if it did.
    const { whileFirstInside, all } = await run('no-starvation');
    assert.deepEqual(whileFirstInside, [11, 21]);
    assert.deepEqual([...all].sort(), [11, 12, 21, 22]);
  });
});
