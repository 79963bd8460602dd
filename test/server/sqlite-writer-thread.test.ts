// The SQLite writer thread (server/storage/sqlite/writer-thread.ts) with the Choose API's programs, on a real file:
// what one turn sends shares a transaction, a request that fails is undone alone, and a thread that cannot start
// leaves the writes to the storage.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exposureSetParams } from '../../server/choose/exposure-programs.js';
import { SqliteWriterThread, WriterThreadUnavailable } from '../../server/storage/sqlite/writer-thread.js';
import { ThreadChooseStore } from '../../server/choose/thread-choose-store.js';
import { storageChooseStore } from '../../server/choose/choose-store.js';
import type { SqliteStorage } from '../../server/storage/sqlite/sqlite-storage.js';
import { SQLITE_DRIVER } from './helpers/storage-drivers.js';
import { useStorage } from './helpers/use-test-app.js';
import { readExposures } from './helpers/stored-rows.js';

const ENTRY = new URL('../../server/choose/choose-writer.ts', import.meta.url);
const row = (profileId: string) => exposureSetParams({ project: 'acme/thread', profileId, sessionId: 's', choices: [{ name: 'e', variation: 'a' }] }, 1_700_000_000_000);

describe('SqliteWriterThread', () => {
  const h = useStorage(SQLITE_DRIVER);
  const sqlite = () => h.storage as SqliteStorage;

  it('commits the requests of one turn; a failing one is undone alone and rejects', async () => {
    const thread = new SqliteWriterThread(sqlite().file, ENTRY);
    try {
      const bad = row('p-bad');
      bad[0] = null; // project is NOT NULL
      const results = await Promise.allSettled([
        thread.run('exposures', [[row('p-1')]]),
        thread.run('exposures', [[row('p-2'), bad]]),
        thread.run('exposures', [[row('p-3')]]),
      ]);
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
      assert.deepEqual((await readExposures(h.storage, 'acme/thread')).map((e) => e.profileId).sort(), ['p-1', 'p-3']);
    } finally {
      await thread.close();
    }
  });

  it('a thread that cannot start fails at once, and the Choose writes go to the storage instead', async () => {
    // A URL the Worker constructor refuses as it is called (not later, as an 'error' event).
    const unstartable = new URL('http://example.invalid/choose-writer.mjs');
    const thread = new SqliteWriterThread(sqlite().file, unstartable);
    await assert.rejects(thread.run('exposures', [[row('p-5')]]), WriterThreadUnavailable);
    assert.equal(thread.failed, true, 'callers take their other way from now on');
    await assert.rejects(thread.run('exposures', [[row('p-5')]]), WriterThreadUnavailable);
    await thread.close();

    const store = new ThreadChooseStore(sqlite().file, storageChooseStore(h.storage), unstartable);
    await store.warm();
    const [assignment] = await store.getOrCreateAssignments([{ project: 'acme/fallback', experience: 'e', unit: 'p-6', variation: 'a', hashVersion: 2 }]);
    assert.equal(assignment?.variation, 'a');
    assert.equal(assignment?.created, true);
    await store.recordExposures([{ project: 'acme/fallback', profileId: 'p-6', sessionId: 's', choices: [{ name: 'e', variation: 'a' }] }]);
    assert.deepEqual((await readExposures(h.storage, 'acme/fallback')).map((e) => e.profileId), ['p-6']);
    await store.close();
  });

  it('refuses a program its entry does not serve, and runs nothing after close()', async () => {
    const thread = new SqliteWriterThread(sqlite().file, ENTRY);
    await assert.rejects(thread.run('drop-everything', []), /no writer program named drop-everything/);
    await thread.close();
    assert.equal(thread.failed, true);
    await assert.rejects(thread.run('exposures', [[row('p-4')]]), /not running/);
  });
});
