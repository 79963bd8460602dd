// On a SQLite file, experiment results are computed by a reader thread: the event loop keeps answering other requests
// meanwhile. (On the main thread, a request sent during the computation could only be answered after it.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ExposureSet } from '../../../server/choose/exposure-programs.js';
import { recordExposures } from '../helpers/stored-rows.js';
import { SQLITE_DRIVER } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

describe('results off the event loop (SQLite)', () => {
  const config = testConfig();
  config.organizations.acme!.projects.shop!.experiences!.push({
    name: 'big', variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }],
  });
  const h = useApp(SQLITE_DRIVER, { config });

  it('answers a health check sent while results are being computed before the results', async () => {
    // Enough exposures that the computation takes a while (stored directly: this test is about where it runs).
    const sets: ExposureSet[] = [];
    for (let i = 0; i < 40_000; i++) {
      sets.push({ project: 'acme/shop', profileId: `p${i}`, sessionId: `s${i}`, device: 'desktop', time: 1_000 + i, choices: [{ name: 'big', variation: i % 2 ? 'a' : 'b' }] });
    }
    for (let i = 0; i < sets.length; i += 5000) await recordExposures(h.storage, sets.slice(i, i + 5000));
    const order: string[] = [];
    const results = h.app.inject({ method: 'GET', url: '/v1/acme/projects/shop/experiences/big/results?apiKey=srv1.s3cret' })
      .then((res) => { order.push('results'); return res; });
    // Sent once the results request has been handed to the thread.
    await new Promise((resolve) => setImmediate(resolve));
    const health = h.app.inject({ method: 'GET', url: '/healthz' }).then((res) => { order.push('health'); return res; });
    const [r, hc] = await Promise.all([results, health]);
    assert.equal(r.statusCode, 200, r.body);
    assert.equal((r.json() as { units: number }).units, 40_000);
    assert.equal(hc.statusCode, 200);
    assert.deepEqual(order, ['health', 'results']);
  });
});
