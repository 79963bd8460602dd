// The batching exposure writer over real SQLite, with the clock faked at the boundary (STYLE 12).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { ExposureWriter } from '../../server/choose/exposure-writer.js';
import { storageChooseStore, type ExposureSink } from '../../server/choose/choose-store.js';
import type { ExposureSet } from '../../server/choose/exposure-programs.js';
import { SQLITE_DRIVER } from './helpers/storage-drivers.js';
import { useStorage } from './helpers/use-test-app.js';
import { countExposures, recordExposures } from './helpers/stored-rows.js';

const P = 'acme/writer';

/** n answers' exposure sets of one choice each, added to the writer. */
function addSets(writer: ExposureWriter, n: number): void {
  for (let i = 0; i < n; i++) {
    const set: ExposureSet = { project: P, profileId: `p-${i}`, sessionId: 's', choices: [{ name: 'exp', variation: 'a' }] };
    writer.add(set);
  }
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ExposureWriter', () => {
  const h = useStorage(SQLITE_DRIVER);
  let written = 0;

  beforeEach(async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    written = await countExposures(h.storage, P);
  });
  afterEach(() => mock.timers.reset());

  const newExposures = async () => (await countExposures(h.storage, P)) - written;

  it('holds sets until the flush interval has passed, then writes them in one batch', async () => {
    const writer = new ExposureWriter(storageChooseStore(h.storage), { flushIntervalMs: 1000 });
    addSets(writer, 3);
    mock.timers.tick(999);
    await settle();
    assert.equal(await newExposures(), 0);
    mock.timers.tick(1);
    await settle();
    assert.equal(await newExposures(), 3);
    assert.equal(writer.pending, 0);
  });

  it('writes at once when a full batch of sets is buffered', async () => {
    const writer = new ExposureWriter(storageChooseStore(h.storage), { flushIntervalMs: 1000, maxBatch: 500 });
    addSets(writer, 499);
    await settle();
    assert.equal(await newExposures(), 0);
    addSets(writer, 1);
    await settle();
    assert.equal(await newExposures(), 500);
  });

  it('keeps the sets of a failed write and writes them on the next attempt', async () => {
    let failures = 1;
    const flaky: ExposureSink = {
      recordExposures: (batch) => (failures-- > 0 ? Promise.reject(new Error('down')) : recordExposures(h.storage, batch)),
    };
    const warnings: string[] = [];
    const writer = new ExposureWriter(flaky, {
      flushIntervalMs: 1000,
      logger: { warn: (_d, m) => warnings.push(m), error: (_d, m) => warnings.push(m) },
    });
    addSets(writer, 4);
    mock.timers.tick(1000);
    await settle();
    assert.equal(await newExposures(), 0);
    assert.equal(writer.pending, 4);
    assert.deepEqual(warnings, ['Exposure write failed; retrying later']);
    mock.timers.tick(1000);
    await settle();
    assert.equal(await newExposures(), 4);
  });

  it('close() writes everything buffered without waiting for the timer', async () => {
    const writer = new ExposureWriter(storageChooseStore(h.storage), { flushIntervalMs: 60_000 });
    addSets(writer, 7);
    await writer.close();
    assert.equal(await newExposures(), 7);
    // Sets arriving after close are written straight away rather than waiting for a timer nobody runs.
    // (The mocked timer is never ticked, so only that immediate write can store them; on SQLite it waits for the next
    // group commit, a turn of the event loop or two.)
    addSets(writer, 2);
    for (let turn = 0; turn < 10 && (await newExposures()) < 9; turn++) await settle();
    assert.equal(await newExposures(), 9);
  });
});
