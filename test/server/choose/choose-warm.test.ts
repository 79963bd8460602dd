// Warming the Choose API at start (what the CLI does): it compiles, starts the writer thread and prepares the reads of a
// first visit, and writes nothing; the first visitor is then answered as usual.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countEvents, countExposures } from '../helpers/stored-rows.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { basic, testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';
import { op } from '../../../server/storage/sql-program.js';
import { num } from '../../../server/storage/sql-values.js';

for (const driver of DRIVERS) {
  describe(`warming the Choose API (${driver.name})`, () => {
    const config = testConfig();
    config.organizations.acme!.projects.shop!.experiences!.push({
      name: 'warm-test', variations: [{ name: 'a', weight: 50, body: { v: 'a' } }, { name: 'b', weight: 50, body: { v: 'b' } }],
    });
    const h = useApp(driver, { config, warm: true });

    it('writes nothing, and the first visitor after it is answered and stored', async () => {
      const assignments = () => h.storage.run(function* () {
        return num((yield op('SELECT COUNT(*) AS n FROM assignments')).rows[0]!.n);
      });
      assert.equal(await assignments(), 0);
      assert.equal(await countExposures(h.storage, 'acme/shop'), 0);
      assert.equal(await countEvents(h.storage, 'acme/shop'), 0);
      const res = await h.app.inject({
        method: 'POST', url: '/v1/acme/projects/shop/optimization/choose-api', headers: { authorization: basic('web1.p4ss') },
        payload: { identification: { sourceId: 'web', profileId: 'first-visitor' }, names: ['warm-test'], sessionId: 's1' },
      });
      assert.equal(res.statusCode, 200, res.body);
      assert.equal((res.json() as { choices: unknown[] }).choices.length, 1);
      assert.equal(await assignments(), 1);
      assert.equal(await countExposures(h.storage, 'acme/shop'), 1);
    });
  });
}
