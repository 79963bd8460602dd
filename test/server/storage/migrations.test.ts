// Migrations carry stored data forward: a database left at an older schema version, with rows in it, opens at
// the latest version with those rows readable through the storage. Run on SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';
import { migrateUpTo } from '../helpers/migrate-up-to.js';
import { DRIVERS, type TestDatabase } from '../helpers/storage-drivers.js';
import { countExposures, firstAssignment, firstAssignments, getAssignment, readExposures, recordExposures } from '../helpers/stored-rows.js';


for (const driver of DRIVERS) {
  describe(`migrations (${driver.name})`, () => {
    let db: TestDatabase;
    let storage: Storage | undefined;
    before(async () => {
      db = await driver.create();
    });
    after(async () => {
      await storage?.close();
      await db.destroy();
    });

    it('5: exposures stored one per row become sets of one choice, each readable as before', async () => {
      const exec = await migrateUpTo(db, 4);
      await exec(`INSERT INTO exposures (project, profile_id, experience, variation, session_id, device, ts) VALUES
        ('acme/shop', 'p1', 'hero', 'bold', 's1', 'mobile', 1700000000000),
        ('acme/shop', 'p1', 'welcome', NULL, 's1', 'mobile', 1700000000000),
        ('acme/shop', 'p2', 'hero', 'control', NULL, NULL, 1700000000500),
        ('acme/blog', 'p9', 'hero', 'bold', 's9', 'desktop', 1700000000900)`);
      storage = await db.open();
      assert.equal(await countExposures(storage, 'acme/shop'), 3);
      assert.deepEqual(await readExposures(storage, 'acme/shop'), [
        { profileId: 'p1', experience: 'hero', variation: 'bold', sessionId: 's1', device: 'mobile', time: 1700000000000 },
        { profileId: 'p1', experience: 'welcome', variation: null, sessionId: 's1', device: 'mobile', time: 1700000000000 },
        { profileId: 'p2', experience: 'hero', variation: 'control', sessionId: null, device: null, time: 1700000000500 },
      ]);
      // New sets land after the migrated rows.
      await recordExposures(storage, [{ project: 'acme/shop', profileId: 'p3', time: 1700000001000, choices: [{ name: 'hero', variation: 'bold' }] }]);
      assert.deepEqual((await readExposures(storage, 'acme/shop')).map((e) => e.profileId), ['p1', 'p1', 'p2', 'p3']);
      assert.equal(await countExposures(storage, 'acme/blog'), 1);
    });

    it('6: assignments keyed by unit first keep every stored assignment, still first-wins', async () => {
      await storage?.close();
      storage = undefined;
      await db.destroy();
      db = await driver.create();
      const exec = await migrateUpTo(db, 5);
      await exec(`INSERT INTO assignments (project, experience, unit, variation, hash_version, created_at) VALUES
        ('acme/shop', 'hero', 'p1', 'bold', 2, 1700000000000),
        ('acme/shop', 'footer', 'p1', 'a', 1, 1700000000100),
        ('acme/shop', 'hero', 'p2', 'control', 2, 1700000000200),
        ('acme/blog', 'hero', 'p1', 'control', 2, 1700000000300)`);
      storage = await db.open();
      const stored = await getAssignment(storage, 'acme/shop', 'footer', 'p1');
      assert.deepEqual(stored && [stored.variation, stored.hashVersion, stored.createdAt], ['a', 1, 1700000000100]);
      assert.equal((await getAssignment(storage, 'acme/blog', 'hero', 'p1'))?.variation, 'control');
      // Stored rows win over new proposals; a new pair is inserted next to them.
      const answers = await firstAssignments(storage, [
        { project: 'acme/shop', experience: 'hero', unit: 'p1', variation: 'control', hashVersion: 2 },
        { project: 'acme/shop', experience: 'hero', unit: 'p2', variation: 'bold', hashVersion: 2 },
        { project: 'acme/shop', experience: 'new-exp', unit: 'p1', variation: 'x', hashVersion: 2 },
      ]);
      assert.deepEqual(answers.map((a) => [a.variation, a.created]), [['bold', false], ['control', false], ['x', true]]);
      assert.equal((await firstAssignment(storage, { project: 'acme/shop', experience: 'new-exp', unit: 'p1', variation: 'y', hashVersion: 2 })).variation, 'x');
    });

    it('21: stored emails are trimmed and lower-cased; two suppressed spellings of one address keep the first', async () => {
      await storage?.close();
      storage = undefined;
      await db.destroy();
      db = await driver.create();
      const exec = await migrateUpTo(db, 20);
      await exec(`INSERT INTO consents (project, profile_id, category, action, valid_until, email, event_id, ts, received_at) VALUES
        ('acme/shop', 'p1', 'default', 'accept', 1900000000000, 'Pat.X@Example.com', 'e1', 1, 1),
        ('acme/shop', 'p2', 'default', 'accept', 1900000000000, '  PAT.X@EXAMPLE.COM ', 'e2', 2, 2),
        ('acme/shop', 'p3', 'default', 'accept', 1900000000000, NULL, 'e3', 3, 3),
        ('acme/shop', 'p4', 'default', 'accept', 1900000000000, '   ', 'e4', 4, 4)`);
      await exec(`INSERT INTO suppressions (project, kind, value, request_id, created_at) VALUES
        ('acme/shop', 'email', 'Dup@Example.com', 'er_late', 200),
        ('acme/shop', 'email', 'dup@example.com ', 'er_early', 100),
        ('acme/shop', 'email', 'DUP@EXAMPLE.COM', 'er_later', 300),
        ('acme/blog', 'email', 'Dup@Example.com', 'er_blog', 400),
        ('acme/shop', 'profile', 'Prof-Case', 'er_profile', 500)`);
      await exec(`INSERT INTO privacy_requests (id, project, kind, subject_kind, subject, status, step, counts, key_id, created_at, updated_at, lease_until)
        VALUES ('ex_1', 'acme/shop', 'export', 'email', ' Ask@Example.COM', 'done', 'done', '{}', 'adm1', 1, 1, 0),
               ('ex_2', 'acme/shop', 'export', 'userId', 'User-Case', 'done', 'done', '{}', 'adm1', 1, 1, 0)`);
      storage = await db.open();
      const read = (sql: string) => storage!.run(function* () {
        // BIGINT comes back as text from PostgreSQL: created_at as a number, as SQLite answers it.
        return (yield op(sql)).rows.map((r) => Object.entries(r).map(([column, v]) => (column === 'created_at' ? Number(v) : v)));
      });
      assert.deepEqual(await read('SELECT profile_id, email FROM consents ORDER BY id'), [
        ['p1', 'pat.x@example.com'], ['p2', 'pat.x@example.com'], ['p3', null], ['p4', null],
      ]);
      assert.deepEqual(await read('SELECT project, kind, value, request_id, created_at FROM suppressions ORDER BY project, kind, value'), [
        ['acme/blog', 'email', 'dup@example.com', 'er_blog', 400],
        ['acme/shop', 'email', 'dup@example.com', 'er_early', 100],
        ['acme/shop', 'profile', 'Prof-Case', 'er_profile', 500],
      ]);
      assert.deepEqual(await read('SELECT id, subject FROM privacy_requests ORDER BY id'), [['ex_1', 'ask@example.com'], ['ex_2', 'User-Case']]);
    });
  });
}
