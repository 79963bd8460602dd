// The SQLite writer thread (server/storage/sqlite/writer-thread.ts) with the Choose API's programs, on a real file:
// what one turn sends shares a transaction, and a request that fails is undone alone.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exposureSetParams } from '../../server/choose/exposure-programs.js';
import { SqliteWriterThread } from '../../server/storage/sqlite/writer-thread.js';
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

  it('refuses a program its entry does not serve, and runs nothing after close()', async () => {
    const thread = new SqliteWriterThread(sqlite().file, ENTRY);
    await assert.rejects(thread.run('drop-everything', []), /no writer program named drop-everything/);
    await thread.close();
    assert.equal(thread.failed, true);
    await assert.rejects(thread.run('exposures', [[row('p-4')]]), /not running/);
  });
});
