// Two nodes on one database, each with its dispatcher looking every 20 ms (and, on PostgreSQL, told of every delivery
// queued): each of many events reaches the receiver exactly once, its one attempt recorded once. The leases (rows
// locked and skipped on PostgreSQL; one writer at a time on SQLite's shared file) let one node take each delivery.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import type { Storage } from '../../../server/storage/storage.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useStorage } from '../helpers/use-test-app.js';
import { attemptsOf, deliveriesOf, emitFeedChanged, insertEndpoint, until } from '../helpers/webhook-fixtures.js';
import { startReceiver, verified } from '../helpers/webhook-receiver.js';

const EVENTS = 60;

for (const driver of DRIVERS) {
  describe(`webhooks sent by two nodes of one database (${driver.name})`, () => {
    const h = useStorage(driver);

    it(`delivers each of ${EVENTS} events exactly once`, async () => {
      // A receiver a little slow to answer: both nodes have sends under way at once.
      const receiver = await startReceiver(() => new Promise((resolve) => setTimeout(() => resolve(200), 10)));
      const other: Storage = await h.db.open();
      const options = { config: testConfig(), webhooks: { allowLoopback: true, pollMs: 20 } };
      const nodes = [await buildApp({ ...options, storage: h.storage }), await buildApp({ ...options, storage: other })];
      try {
        const endpoint = await insertEndpoint(h.storage, { url: `${receiver.origin}/hook` });
        // Queued from both nodes' connections, several at once.
        const sent = await Promise.all(Array.from({ length: EVENTS }, (_, i) => emitFeedChanged(i % 2 === 0 ? h.storage : other, `feed-${i}`)));
        await until(() => deliveriesOf(h.storage, endpoint), (d) => d.length === EVENTS && d.every((x) => x.status === 'succeeded'), 'all delivered');
        // Both dispatchers closed: no send is under way any more, and none can begin.
        await Promise.all(nodes.map((app) => app.close()));
        const ids = receiver.received.map((request) => String(request.headers['webhook-id']));
        assert.equal(ids.length, EVENTS);
        assert.deepEqual([...ids].sort(), [...sent].sort());
        for (const request of receiver.received) verified(endpoint.secret, request);
        for (const delivery of await deliveriesOf(h.storage, endpoint)) {
          assert.deepEqual((await attemptsOf(h.storage, delivery.id)).map((a) => [a.attempt, a.status]), [[1, 200]]);
        }
      } finally {
        await Promise.all(nodes.map((app) => app.close()));
        await other.close();
        await receiver.close();
      }
    });
  });
}
