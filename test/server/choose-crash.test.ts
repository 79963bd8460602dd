// What a crash can lose (README): nothing a Choose caller was answered. The service process is killed (SIGKILL) right
// after its last answer; every answered visitor's first assignments and exposures are in the database, on both drivers.
import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DRIVERS, type TestDatabase } from './helpers/storage-drivers.js';
import { getAssignment, readExposures } from './helpers/stored-rows.js';

interface Answered { profileId: string; variations: Record<string, string> }

for (const driver of DRIVERS) {
  describe(`a crash right after Choose answers (${driver.name})`, () => {
    let db: TestDatabase;
    before(async () => {
      db = await driver.create();
    });
    after(() => db.destroy());

    it('loses none of the answered first assignments and exposures', async () => {
      const child = fork(join(import.meta.dirname, 'helpers', 'choose-then-crash.ts'), [db.location, '60'], {
        execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      const report = new Promise<Answered[]>((resolve) => child.once('message', (m) => resolve((m as { answered: Answered[] }).answered)));
      const exit = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      const answered = await report;
      assert.equal(await exit, 'SIGKILL');
      assert.equal(answered.length, 60);

      const storage = await db.open();
      try {
        const exposures = await readExposures(storage, 'acme/shop');
        for (const { profileId, variations } of answered) {
          for (const [experience, variation] of Object.entries(variations)) {
            assert.equal((await getAssignment(storage, 'acme/shop', experience, profileId))?.variation, variation, `${profileId} ${experience}`);
            assert.ok(exposures.some((e) => e.profileId === profileId && e.experience === experience && e.variation === variation), `exposure ${profileId} ${experience}`);
          }
        }
      } finally {
        await storage.close();
      }
    });
  });
}
