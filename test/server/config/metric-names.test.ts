// A metric's name is one to a reader whatever its case: the management API, on SQLite and PostgreSQL, refuses a new
// metric named like one already there (from the file or the API) but for its case, and names the one there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const BASE = '/v1/acme/projects/shop';

function config(): ServiceConfigFile {
  const c = testConfig();
  c.organizations.acme!.adminKeys = [ADMIN];
  c.organizations.acme!.projects.shop!.metrics = [{ name: 'purchase', event: 'Product ordered', type: 'count' }];
  return c;
}

for (const driver of DRIVERS) {
  describe(`metric names (${driver.name})`, () => {
    const h = useApp(driver, () => ({ config: config() }));
    const put = (name: string, headers: Record<string, string> = {}) => h.app.inject({
      method: 'PUT', url: `${BASE}/metrics/${encodeURIComponent(name)}`, headers: { authorization: `Bearer ${ADMIN}`, ...headers },
      payload: { event: 'Product ordered', type: 'count' },
    });
    const names = async () => (await h.app.inject({ method: 'GET', url: `${BASE}/metrics`, headers: { authorization: `Bearer ${ADMIN}` } }))
      .json().metrics.map((m: { name: string }) => m.name) as string[];

    for (const [existing, asked, how] of [['purchase', 'Purchase', 'from the file'], ['signup', 'SignUp', 'made through the API']]) {
      it(`refuses ${asked} beside ${existing} ${how}: 409 metric_name_taken, naming ${existing}`, async () => {
        if (existing === 'signup') assert.equal((await put('signup')).statusCode, 201);
        for (const headers of [{}, { 'if-none-match': '*' }] as Record<string, string>[]) {
          const res = await put(asked, headers);
          assert.equal(res.statusCode, 409, res.body);
          assert.equal(res.json().error.code, 'metric_name_taken');
          assert.match(res.json().error.message, new RegExp(`"${existing}"`));
        }
        assert.ok(!(await names()).includes(asked));
        assert.equal((await put(existing)).statusCode, 200, 'the metric itself is still written');
      });
    }
  });
}
