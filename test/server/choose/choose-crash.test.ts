// What a crash can lose (README): nothing a Choose caller was answered. The service process is killed (SIGKILL) right
// after its last answer; every answered visitor's first assignments and exposures are in the database, on both drivers.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forkHelper } from '../helpers/fork-helper.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { getAssignment, readExposures } from '../helpers/stored-rows.js';
import { useDatabase } from '../helpers/use-test-app.js';

interface Answered { profileId: string; variations: Record<string, string> }

for (const driver of DRIVERS) {
  describe(`a crash right after Choose answers (${driver.name})`, () => {
    const h = useDatabase(driver);

    it('loses none of the answered first assignments and exposures', async () => {
      const { firstMessage, exited } = forkHelper<{ answered: Answered[] }>('choose-then-crash.ts', [h.db.location, '60']);
      const { answered } = await firstMessage;
      assert.equal(await exited, 'SIGKILL');
      assert.equal(answered.length, 60);

      const storage = await h.db.open();
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
