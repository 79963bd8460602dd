// The batching exposure writer over real SQLite, with the clock faked at the boundary (STYLE 12).
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it, mock } from 'node:test';
import { ExposureWriter } from '../../server/choose/exposure-writer.js';
import type { ExposureRow, Storage } from '../../server/storage/storage.js';
import { SQLITE_DRIVER } from './helpers/storage-drivers.js';
import { useStorage } from './helpers/use-test-app.js';

const P = 'acme/writer';

function rows(n: number, experience = 'exp'): ExposureRow[] {
  return Array.from({ length: n }, (_, i) => ({ project: P, profileId: `p-${i}`, experience, variation: 'a' }));
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('ExposureWriter', () => {
  const h = useStorage(SQLITE_DRIVER);
  let written = 0;

  beforeEach(async () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    written = await h.storage.countExposures(P);
  });
  afterEach(() => mock.timers.reset());

  const newRows = async () => (await h.storage.countExposures(P)) - written;

  it('holds rows until the flush interval has passed, then writes them in one batch', async () => {
    const writer = new ExposureWriter(h.storage, { flushIntervalMs: 1000 });
    writer.add(rows(3));
    mock.timers.tick(999);
    await settle();
    assert.equal(await newRows(), 0);
    mock.timers.tick(1);
    await settle();
    assert.equal(await newRows(), 3);
    assert.equal(writer.pending, 0);
  });

  it('writes at once when a full batch is buffered', async () => {
    const writer = new ExposureWriter(h.storage, { flushIntervalMs: 1000, maxBatch: 500 });
    writer.add(rows(499));
    await settle();
    assert.equal(await newRows(), 0);
    writer.add(rows(1));
    await settle();
    assert.equal(await newRows(), 500);
  });

  it('keeps the rows of a failed write and writes them on the next attempt', async () => {
    let failures = 1;
    const flaky: Storage = Object.create(h.storage) as Storage;
    flaky.recordExposures = (batch) => (failures-- > 0 ? Promise.reject(new Error('down')) : h.storage.recordExposures(batch));
    const warnings: string[] = [];
    const writer = new ExposureWriter(flaky, {
      flushIntervalMs: 1000,
      logger: { warn: (_d, m) => warnings.push(m), error: (_d, m) => warnings.push(m) },
    });
    writer.add(rows(4));
    mock.timers.tick(1000);
    await settle();
    assert.equal(await newRows(), 0);
    assert.equal(writer.pending, 4);
    assert.deepEqual(warnings, ['Exposure write failed; retrying later']);
    mock.timers.tick(1000);
    await settle();
    assert.equal(await newRows(), 4);
  });

  it('close() writes everything buffered without waiting for the timer', async () => {
    const writer = new ExposureWriter(h.storage, { flushIntervalMs: 60_000 });
    writer.add(rows(7));
    await writer.close();
    assert.equal(await newRows(), 7);
    // Rows arriving after close are written straight away rather than waiting for a timer nobody runs.
    writer.add(rows(2));
    await settle();
    assert.equal(await newRows(), 9);
  });
});
