// When the model applier runs its passes: the scheduling alone, over a chunk runner that records its calls (the
// chunks themselves, on SQLite and PostgreSQL, are model-inbox.test.ts's).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CHUNK_EVENTS, ModelApplier } from '../../server/recommendations/model-applier.js';
import type { AppliedChunk } from '../../server/recommendations/model-inbox.js';

/** An inbox of `rows` model-event counts; each chunk takes rows up to `maxEvents` (at least one). */
function inbox(options: { waitingAtStart?: number[]; failWith?: () => Error | undefined } = {}) {
  const rows: number[] = [...(options.waitingAtStart ?? [])];
  const chunks: number[] = [];
  return {
    rows,
    chunks,
    applyChunk: async (maxEvents: number): Promise<AppliedChunk> => {
      const error = options.failWith?.();
      if (error) throw error;
      let events = 0;
      let taken = 0;
      while (rows.length > 0 && (taken === 0 || events + rows[0]! <= maxEvents)) {
        events += rows.shift()!;
        taken++;
      }
      chunks.push(events);
      return { rows: taken, events, more: rows.length > 0 };
    },
    waiting: async (): Promise<boolean> => rows.length > 0,
  };
}

describe('model applier scheduling', () => {
  it('lets model events gather, and runs at once for a visitor whose own events wait', async () => {
    const box = inbox();
    const applier = new ModelApplier({ ...box, gatherMs: 60_000 });
    try {
      await applier.settle();
      box.rows.push(3);
      applier.added(3, ['visitor-a']);
      box.rows.push(2);
      applier.added(2, ['visitor-b']);
      await applier.settle({ profileId: 'visitor-c' });
      assert.deepEqual(box.chunks, [], 'a visitor without waiting events does not run a pass');
      assert.equal(applier.behind, 5);
      await applier.settle({ profileId: 'visitor-a' });
      assert.deepEqual(box.chunks, [5], 'one pass, one chunk with everything gathered');
      assert.equal(applier.behind, 0);
      await applier.settle({ profileId: 'visitor-b' });
      assert.deepEqual(box.chunks, [5], 'visitor-b was in that pass');
    } finally {
      await applier.close();
    }
  });

  it('runs without waiting once a chunk\'s worth has gathered, and applies the rest on close', async () => {
    const box = inbox();
    const applier = new ModelApplier({ ...box, gatherMs: 60_000 });
    box.rows.push(CHUNK_EVENTS);
    applier.added(CHUNK_EVENTS, ['bulk']);
    box.rows.push(1);
    applier.added(1, ['late']);
    await applier.close();
    assert.deepEqual(box.chunks.reduce((a, b) => a + b, 0), CHUNK_EVENTS + 1);
    assert.equal(box.rows.length, 0);
    assert.equal(applier.behind, 0);
  });

  it('applies what the inbox held at start before any settle resolves', async () => {
    const box = inbox({ waitingAtStart: [4, 4] });
    const applier = new ModelApplier({ ...box, gatherMs: 60_000 });
    try {
      await applier.settle({ profileId: 'anyone' });
      assert.deepEqual(box.rows, []);
    } finally {
      await applier.close();
    }
  });

  it('reports failing passes, keeps the events counted as behind, and recovers on the next settle', async () => {
    let broken = true;
    const warnings: unknown[] = [];
    const box = inbox({ failWith: () => (broken ? new Error('disk on fire') : undefined) });
    const applier = new ModelApplier({ ...box, gatherMs: 60_000, logger: { warn: (...args: unknown[]) => warnings.push(args) } });
    try {
      box.rows.push(7);
      applier.added(7, ['v']);
      await applier.settle({ profileId: 'v' });
      assert.equal(applier.failing, true);
      assert.equal(applier.behind, 7);
      assert.equal(warnings.length, 1);
      broken = false;
      await applier.settle({ profileId: 'v' });
      assert.equal(applier.failing, false);
      assert.equal(applier.behind, 0);
      assert.deepEqual(box.chunks, [7]);
    } finally {
      await applier.close();
    }
  });
});
