// The exposure writer over real SQLite: an answer's exposures are stored before it is sent, a turn's answers in one
// write; the retry clock is faked at the boundary (mock timers, never a sleep).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { ExposureWriter } from '../../../server/choose/exposure-writer.js';
import { chooseStore, type ExposureSink } from '../../../server/choose/choose-store.js';
import type { ExposureSet } from '../../../server/choose/exposure-programs.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useStorage } from '../helpers/use-test-app.js';
import { countExposures } from '../helpers/stored-rows.js';

const P = 'acme/writer';

/** n answers' exposure sets of one choice each, added to the writer in this turn; resolves when every add() has. */
function addSets(writer: ExposureWriter, n: number): Promise<void[]> {
  return Promise.all(Array.from({ length: n }, (_, i) => {
    const set: ExposureSet = { project: P, profileId: `p-${i}`, sessionId: 's', choices: [{ name: 'exp', variation: 'a' }] };
    return writer.add(set);
  }));
}

describe('ExposureWriter', () => {
  const h = useStorage(SQLITE_DRIVER);
  let written = 0;
  /** The writes the sink was asked for (their sizes), over the real storage. */
  let writes: number[] = [];
  let sink: ExposureSink;

  beforeEach(async () => {
    written = await countExposures(h.storage, P);
    writes = [];
    const store = chooseStore(h.storage);
    sink = { recordExposures: (sets) => (writes.push(sets.length), store.recordExposures(sets)) };
  });
  afterEach(() => mock.timers.reset());

  const newExposures = async () => (await countExposures(h.storage, P)) - written;

  it('stores the sets of one turn in one write, before their add() resolves', async () => {
    const writer = new ExposureWriter(sink);
    await addSets(writer, 3);
    assert.equal(await newExposures(), 3);
    assert.deepEqual(writes, [3]);
    await addSets(writer, 2);
    assert.deepEqual(writes, [3, 2]);
  });

  it('splits a turn of many answers into writes of at most maxBatch sets', async () => {
    const writer = new ExposureWriter(sink, { maxBatch: 500 });
    await addSets(writer, 1200);
    assert.deepEqual(writes, [500, 500, 200]);
    assert.equal(await newExposures(), 1200);
  });

  it('does not fail the answer when the write fails: the sets are parked and written on the next attempt', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let failures = 1;
    const flaky: ExposureSink = { recordExposures: (batch) => (failures-- > 0 ? Promise.reject(new Error('down')) : sink.recordExposures(batch)) };
    const warnings: string[] = [];
    const writer = new ExposureWriter(flaky, { retryIntervalMs: 1000, logger: { warn: (_d, m) => warnings.push(m), error: (_d, m) => warnings.push(m) } });
    await addSets(writer, 4);
    assert.equal(await newExposures(), 0);
    assert.equal(writer.pending, 4);
    assert.deepEqual(warnings, ['Exposure write failed; retrying later']);
    mock.timers.tick(1000);
    await writer.close();
    assert.equal(await newExposures(), 4);
    assert.equal(writer.pending, 0);
  });

  it("drops an erased profile's parked sets: the database back, only the others' are written", async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let failures = 1;
    const flaky: ExposureSink = { recordExposures: (batch) => (failures-- > 0 ? Promise.reject(new Error('down')) : sink.recordExposures(batch)) };
    const writer = new ExposureWriter(flaky, { retryIntervalMs: 1000, logger: { warn: () => undefined, error: () => undefined } });
    await addSets(writer, 3);
    assert.equal(writer.pending, 3);
    writer.forget(P, new Set(['p-1']));
    writer.forget('acme/other', new Set(['p-0']));
    assert.equal(writer.pending, 2);
    mock.timers.tick(1000);
    await writer.close();
    assert.equal(await newExposures(), 2);
  });

  it('close() waits for the writes under way and tries parked sets once more', async () => {
    let failures = 1;
    const flaky: ExposureSink = { recordExposures: (batch) => (failures-- > 0 ? Promise.reject(new Error('down')) : sink.recordExposures(batch)) };
    const writer = new ExposureWriter(flaky, { retryIntervalMs: 60_000 });
    void addSets(writer, 5);
    void addSets(writer, 2);
    await writer.close();
    assert.equal(await newExposures(), 7);
    assert.equal(writer.pending, 0);
  });

  it('after close() nothing is retried: what the database still refuses is reported lost, once', async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    let attempts = 0;
    const down: ExposureSink = { recordExposures: () => (attempts++, Promise.reject(new Error('down'))) };
    const errors: [unknown, string][] = [];
    const writer = new ExposureWriter(down, { retryIntervalMs: 1000, logger: { warn: () => undefined, error: (d, m) => errors.push([d, m]) } });
    await addSets(writer, 3);
    await writer.close();
    assert.equal(attempts, 2, 'the answers\' write, and one more try on close');
    mock.timers.tick(10_000);
    assert.equal(attempts, 2, 'no retry armed after close');
    assert.deepEqual(errors, [[{ exposureSets: 3 }, 'Exposures lost at shutdown: the database did not take them']]);
  });
});
