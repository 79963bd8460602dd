// The SQLite WAL under many group commits: a worker thread checkpoints it (the main connection's commits do
// not), its size stays within the bound, and everything acknowledged is there after a restart or a crash,
// whoever checkpointed what.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { openSqliteStorage, type SqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from '../helpers/events.js';
import { ingestBatch } from '../../../server/programs.js';
import { countEvents } from '../helpers/stored-rows.js';
import { forkHelper } from '../helpers/fork-helper.js';
import { SCHEMA } from '../../../server/schema.js';

const P = 'acme/shop';
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tempFile(): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-wal-'));
  dirs.push(dir);
  return join(dir, 'svc.db');
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
}

/** `groups` rounds of 10 concurrent batches of 50 fresh events (one group commit each); returns every event. */
async function ingestGroups(storage: SqliteStorage, groups: number, afterEach: () => void = () => {}): Promise<ServiceEvent[]> {
  const all: ServiceEvent[] = [];
  for (let g = 0; g < groups; g++) {
    const batches = Array.from({ length: 10 }, (_, i) => Array.from({ length: 50 }, () => makeEvent({ profileId: `wal-${g}-${i}` })));
    await Promise.all(batches.map((batch) => ingestBatch(storage, P, 'web', batch)));
    all.push(...batches.flat());
    afterEach();
  }
  return all;
}

/**
 * Waits for a background thread's effect. A worker thread runs on its own clock (fake timers cannot drive it),
 * so this polls, and fails the test past `timeoutMs`.
 */
async function eventually(check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`not reached within ${timeoutMs} ms`);
    await delay(25);
  }
}

describe('SQLite WAL checkpoints', () => {
  it('copies committed pages into the database file from a thread while the commits themselves never checkpoint', async () => {
    const file = tempFile();
    // A bound the test never reaches: the main connection does not checkpoint at all.
    const storage = await openSqliteStorage(file, SCHEMA, { walBoundPages: 1_000_000 });
    const before = sizeOf(file);
    await ingestGroups(storage, 10);
    await eventually(() => sizeOf(file) > before + 1_000_000);
    await storage.close();
  });

  it('keeps the WAL file within its bound under many commits', async () => {
    const file = tempFile();
    const boundPages = 100;
    const storage = await openSqliteStorage(file, SCHEMA, { walBoundPages: boundPages });
    const pageSize = 4096;
    let largest = 0;
    await ingestGroups(storage, 60, () => {
      largest = Math.max(largest, sizeOf(`${file}-wal`));
    });
    await storage.close();
    // The bound, plus what one group commit (500 events) appends before the check that follows it.
    const oneGroupPages = 400;
    assert.ok(largest > 0, 'the WAL was used');
    assert.ok(
      largest <= WAL_HEADER + (boundPages + oneGroupPages) * (pageSize + FRAME_HEADER),
      `WAL grew to ${largest} bytes`,
    );
  });

  it('has every acknowledged event after a restart, and refuses them all as duplicates', async () => {
    const file = tempFile();
    const first = await openSqliteStorage(file, SCHEMA, { walBoundPages: 100 });
    const events = await ingestGroups(first, 20);
    await first.close();
    const reopened = await openSqliteStorage(file, SCHEMA, { walBoundPages: 100 });
    assert.equal(await countEvents(reopened, P), events.length);
    assert.deepEqual(await ingestBatch(reopened, P, 'web', events.slice(0, 500)), { accepted: 0, duplicates: 500, identityChanged: false, handedOn: 0 });
    await reopened.close();
  });

  it('has every acknowledged event after the process is killed without closing', async () => {
    const file = tempFile();
    const { firstMessage, exited } = forkHelper<{ accepted: number }>('ingest-then-crash.ts', [file, '100']);
    const { accepted } = await firstMessage;
    assert.equal(await exited, 'SIGKILL');
    assert.equal(accepted, 10_000);
    const reopened = await openSqliteStorage(file, SCHEMA);
    assert.equal(await countEvents(reopened, P), accepted);
    await reopened.close();
  });

  it('needs no checkpoint thread for an in-memory database', async () => {
    const storage = await openSqliteStorage(':memory:', SCHEMA);
    await ingestGroups(storage, 2);
    assert.equal(await countEvents(storage, P), 1000);
    await storage.close();
  });
});
