// The SQLite threads (server/storage/sqlite/program-thread.ts) serving the service's named programs, on a real file:
// what one turn sends shares a transaction, a request that fails is undone alone, and a lane whose thread cannot run
// leaves its programs to the storage's own connection.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { chooseStore } from '../../../server/choose/choose-store.js';
import { exposureSetParams } from '../../../server/choose/exposure-programs.js';
import { PROGRAMS_MODULE } from '../../../server/programs.js';
import { openSqliteStorage, type SqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import { SqliteProgramThread, ThreadUnavailable } from '../../../server/storage/sqlite/program-thread.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { useStorage } from '../helpers/use-test-app.js';
import { readExposures } from '../helpers/stored-rows.js';
import { SCHEMA } from '../../../server/schema.js';

const row = (profileId: string) => exposureSetParams({ project: 'acme/thread', profileId, sessionId: 's', choices: [{ name: 'e', variation: 'a' }] }, 1_700_000_000_000);
const WRITER = { kind: 'writer', programs: PROGRAMS_MODULE.href } as const;

describe('SqliteProgramThread', () => {
  const h = useStorage(SQLITE_DRIVER);
  const sqlite = () => h.storage as SqliteStorage;

  it('commits the requests of one turn; a failing one is undone alone and rejects', async () => {
    const thread = new SqliteProgramThread(sqlite().file, WRITER);
    try {
      const bad = row('p-bad');
      bad[0] = null; // project is NOT NULL
      const results = await Promise.allSettled([
        thread.run('choose.exposures', [[row('p-1')]]),
        thread.run('choose.exposures', [[row('p-2'), bad]]),
        thread.run('choose.exposures', [[row('p-3')]]),
      ]);
      assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
      assert.deepEqual((await readExposures(h.storage, 'acme/thread')).map((e) => e.profileId).sort(), ['p-1', 'p-3']);
    } finally {
      await thread.close();
    }
  });

  it('a thread whose programs cannot load fails, and refuses later runs without sending them', async () => {
    const thread = new SqliteProgramThread(sqlite().file, { kind: 'writer', programs: 'http://example.invalid/programs.mjs' });
    await assert.rejects(thread.run('choose.exposures', [[row('p-5')]]));
    assert.equal(thread.failed, true, 'the storage runs the lane\'s programs itself from now on');
    await assert.rejects(thread.run('choose.exposures', [[row('p-5')]]), ThreadUnavailable);
    await thread.close();
  });

  it('a lane whose thread cannot run leaves the Choose writes to the storage\'s own connection', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-lanes-'));
    const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
    try {
      storage.hostPrograms(new URL('http://example.invalid/programs.mjs'));
      await storage.warm();
      const store = chooseStore(storage);
      const [assignment] = await store.getOrCreateAssignments([{ project: 'acme/fallback', experience: 'e', unit: 'p-6', variation: 'a', hashVersion: 2 }]);
      assert.equal(assignment?.variation, 'a');
      assert.equal(assignment?.created, true);
      await store.recordExposures([{ project: 'acme/fallback', profileId: 'p-6', sessionId: 's', choices: [{ name: 'e', variation: 'a' }] }]);
      assert.deepEqual((await readExposures(storage, 'acme/fallback')).map((e) => e.profileId), ['p-6']);
    } finally {
      await storage.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses a program its table does not hold, and runs nothing after close()', async () => {
    const thread = new SqliteProgramThread(sqlite().file, WRITER);
    await assert.rejects(thread.run('drop-everything', []), /no writer program named drop-everything/);
    await thread.close();
    assert.equal(thread.failed, true);
    await assert.rejects(thread.run('choose.exposures', [[row('p-4')]]), /not running/);
  });
});
