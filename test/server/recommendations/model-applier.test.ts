// When the model applier runs its passes: the scheduling alone, over a chunk runner that records its calls (the
// chunks themselves, on SQLite and PostgreSQL, are model-inbox.test.ts's).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ModelApplier } from '../../../server/recommendations/model-applier.js';
import { CHUNK_EVENTS } from '../../../server/recommendations/model-inbox.js';
import type { AppliedChunk } from '../../../server/recommendations/model-inbox.js';

/** An inbox of `rows` model-event counts; each chunk takes rows up to `maxEvents` (at least one). */
function inbox(options: { waitingAtStart?: number[]; failWith?: () => Error | undefined } = {}) {
  const rows: number[] = [...(options.waitingAtStart ?? [])];
  const chunks: number[] = [];
  const calls = { attempts: 0 };
  return {
    rows,
    chunks,
    calls,
    applyChunk: async (maxEvents: number): Promise<AppliedChunk> => {
      calls.attempts++;
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
    waiting: async (): Promise<number> => rows.reduce((a, b) => a + b, 0),
  };
}

/**
 * An applier polling every 5 ms over an inbox whose passes fail until `heal()`, once `events` model events of one
 * visitor were stored and the pass their read ran failed.
 */
async function afterFailedPass(events: number) {
  let broken = true;
  const box = inbox({ failWith: () => (broken ? new Error('connection lost') : undefined) });
  const applier = new ModelApplier({ ...box, gatherMs: 60_000, pollMs: 5 });
  box.rows.push(events);
  applier.added(events, 'acme/shop', ['v']);
  await applier.settle({ project: 'acme/shop', profileId: 'v' });
  assert.equal(applier.failing, true);
  return { box, applier, heal: () => { broken = false; } };
}

describe('model applier scheduling', () => {
  it('lets model events gather, and runs at once for a visitor whose own events wait', async () => {
    const box = inbox();
    const applier = new ModelApplier({ ...box, gatherMs: 60_000, pollMs: 60_000 });
    try {
      await applier.settle();
      box.rows.push(3);
      applier.added(3, 'acme/shop', ['visitor-a']);
      box.rows.push(2);
      applier.added(2, 'acme/shop', ['visitor-b']);
      await applier.settle({ project: 'acme/shop', profileId: 'visitor-c' });
      assert.deepEqual(box.chunks, [], 'a visitor without waiting events does not run a pass');
      assert.equal(applier.behind, 5);
      await applier.settle({ project: 'acme/shop', profileId: 'visitor-a' });
      assert.deepEqual(box.chunks, [5], 'one pass, one chunk with everything gathered');
      assert.equal(applier.behind, 0);
      await applier.settle({ project: 'acme/shop', profileId: 'visitor-b' });
      assert.deepEqual(box.chunks, [5], 'visitor-b was in that pass');
    } finally {
      await applier.close();
    }
  });

  it('runs without waiting once a chunk\'s worth has gathered, and applies the rest on close', async () => {
    const box = inbox();
    const applier = new ModelApplier({ ...box, gatherMs: 60_000, pollMs: 60_000 });
    box.rows.push(CHUNK_EVENTS);
    applier.added(CHUNK_EVENTS, 'acme/shop', ['bulk']);
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(box.chunks, [CHUNK_EVENTS], 'the pass started without waiting for the gathering time');
    box.rows.push(1);
    applier.added(1, 'acme/shop', ['late']);
    await applier.close();
    assert.deepEqual(box.chunks, [CHUNK_EVENTS, 1]);
    assert.deepEqual(box.chunks.reduce((a, b) => a + b, 0), CHUNK_EVENTS + 1);
    assert.equal(box.rows.length, 0);
    assert.equal(applier.behind, 0);
  });

  it('applies what the inbox held at start before any settle resolves', async () => {
    const box = inbox({ waitingAtStart: [4, 4] });
    const applier = new ModelApplier({ ...box, gatherMs: 60_000, pollMs: 60_000 });
    try {
      await applier.settle({ project: 'acme/shop', profileId: 'anyone' });
      assert.deepEqual(box.rows, []);
    } finally {
      await applier.close();
    }
  });

  it('reports failing passes, leaves their retries to the poll, and recovers', async () => {
    let broken = true;
    const warnings: unknown[] = [];
    const box = inbox({ failWith: () => (broken ? new Error('disk on fire') : undefined) });
    const applier = new ModelApplier({ ...box, gatherMs: 60_000, pollMs: 60_000, logger: { warn: (...args: unknown[]) => warnings.push(args) } });
    try {
      box.rows.push(7);
      applier.added(7, 'acme/shop', ['v']);
      await applier.settle({ project: 'acme/shop', profileId: 'v' });
      assert.equal(applier.failing, true);
      assert.equal(applier.behind, 7);
      assert.equal(warnings.length, 1);
      // More events, past a chunk's worth, and a visitor's read: none of them retries the failing pass.
      box.rows.push(CHUNK_EVENTS);
      applier.added(CHUNK_EVENTS, 'acme/shop', ['v']);
      await applier.settle({ project: 'acme/shop', profileId: 'v' });
      assert.equal(box.calls.attempts, 1);
      broken = false;
      await applier.settle();
      assert.equal(applier.failing, false);
      assert.equal(applier.behind, 0);
      assert.deepEqual(box.chunks.reduce((a, b) => a + b, 0), CHUNK_EVENTS + 7);
    } finally {
      await applier.close();
    }
  });

  it('ends a pass after what it was behind at its start: behind follows the backlog while events keep coming', async () => {
    const box = inbox();
    const overstated: number[] = [];
    let intake = 6;
    const applier: ModelApplier = new ModelApplier({
      ...box,
      // Another chunk's worth arrives while each chunk is applied, six times: the inbox never empties meanwhile.
      applyChunk: async (maxEvents) => {
        // As a transaction does, answer later: the batches below are stored while the chunk runs.
        await new Promise((resolve) => setImmediate(resolve));
        const backlog = box.rows.reduce((a, b) => a + b, 0);
        if (applier.behind > backlog) overstated.push(applier.behind - backlog);
        if (intake-- > 0) {
          box.rows.push(CHUNK_EVENTS);
          applier.added(CHUNK_EVENTS, 'acme/shop', ['steady']);
        }
        return box.applyChunk(maxEvents);
      },
      gatherMs: 60_000, pollMs: 60_000,
    });
    try {
      box.rows.push(CHUNK_EVENTS);
      applier.added(CHUNK_EVENTS, 'acme/shop', ['steady']);
      // Each settle waits for what was stored when it was called; the batches stored meanwhile need another.
      while (intake > 0 || box.rows.length > 0) await applier.settle();
      assert.deepEqual(overstated, [], 'behind never counted events already applied');
      assert.equal(box.chunks.length, 7);
      assert.deepEqual(box.rows, []);
      assert.equal(applier.behind, 0);
    } finally {
      await applier.close();
    }
  });

  it('a visitor\'s settle waits past a crash\'s rows, stored while the startup read was on its way', async () => {
    for (const own of [10, CHUNK_EVENTS]) {
      const box = inbox({ waitingAtStart: [CHUNK_EVENTS] });
      let release!: () => void;
      const startupRead = new Promise<void>((resolve) => (release = resolve));
      let first = true;
      const applier = new ModelApplier({
        ...box,
        waiting: async () => {
          // What the read saw; it answers later, after the visitor's batch was stored.
          const seen = box.rows.reduce((a, b) => a + b, 0);
          if (first) {
            first = false;
            await startupRead;
          }
          return seen;
        },
        gatherMs: 60_000, pollMs: 60_000,
      });
      try {
        box.rows.push(own);
        // A chunk's worth would start a pass at once: it waits for the startup's look.
        applier.added(own, 'acme/shop', ['v']);
        await new Promise((resolve) => setImmediate(resolve));
        release();
        await applier.settle({ project: 'acme/shop', profileId: 'v' });
        assert.deepEqual(box.rows, [], `the visitor's ${own} events too, behind the crash's`);
        assert.equal(applier.behind, 0);
      } finally {
        await applier.close();
      }
    }
  });

  it('an empty inbox ends a failure whose rows another node applied', { timeout: 10_000 }, async () => {
    const { box, applier, heal } = await afterFailedPass(30);
    try {
      // Another node's poll took the rows (or the failed pass had committed them after all).
      box.rows.length = 0;
      heal();
      while (applier.failing) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(applier.behind, 0);
      assert.equal(box.calls.attempts, 1, 'no pass was needed');
    } finally {
      await applier.close();
    }
  });

  it('close() applies this node\'s events and ends while other nodes keep the inbox full', { timeout: 10_000 }, async () => {
    const box = inbox();
    let taken = 0;
    const applier = new ModelApplier({
      ...box,
      // Every chunk is full and more wait behind it: other nodes' rows keep coming.
      applyChunk: async (maxEvents) => {
        taken += maxEvents;
        return { rows: 1, events: maxEvents, more: true };
      },
      waiting: async () => 3 * CHUNK_EVENTS,
      gatherMs: 60_000, pollMs: 60_000,
    });
    await applier.settle();
    applier.added(10, 'acme/shop', ['v']);
    await applier.close();
    assert.equal(applier.behind, 0);
    assert.equal(taken, 4 * CHUNK_EVENTS, 'what the inbox held at start, then one chunk for this node\'s events');
  });

  it('retries failing passes from its poll', async () => {
    const { box, applier, heal } = await afterFailedPass(3);
    try {
      heal();
      while (applier.behind > 0) await new Promise((resolve) => setTimeout(resolve, 5));
      assert.equal(applier.failing, false);
      assert.deepEqual(box.rows, []);
    } finally {
      await applier.close();
    }
  });
});
