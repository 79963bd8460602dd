// What a node's death can lose of the webhooks' queue: nothing. A service process queues a webhook (committed), leases
// it, and is killed with SIGKILL before it connects, or while the receiver holds its request; a service started on the
// same database sends it once the dead node's lease lapses, with the same webhook-id (at least once: the receiver may
// see it twice, and tells by the id). On SQLite and PostgreSQL.
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import { forkHelper } from '../helpers/fork-helper.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useDatabase } from '../helpers/use-test-app.js';
import { attemptsOf, deliveriesOf, until } from '../helpers/webhook-fixtures.js';
import { startReceiver, verified } from '../helpers/webhook-receiver.js';

interface Queued { messageId: string; secret: string; endpointId: string }

for (const driver of DRIVERS) {
  for (const mode of ['before-send', 'mid-send'] as const) {
    describe(`a node killed with SIGKILL ${mode === 'before-send' ? 'before it sends' : 'while it sends'} a webhook (${driver.name})`, () => {
      const h = useDatabase(driver);

      it('the next node on the database delivers it, with the same webhook-id', async () => {
        let child: ChildProcess | undefined;
        // While it sends: the receiver holds the dead node's request, unanswered; it answers the next one.
        const receiver = await startReceiver((_request, index) => {
          if (mode === 'mid-send' && index === 0) {
            child!.kill('SIGKILL');
            return 'hang';
          }
          return 200;
        });
        try {
          const helper = forkHelper<Queued>('webhook-then-crash.ts', [h.db.location, mode, String(receiver.port)]);
          child = helper.child;
          const { messageId, secret, endpointId } = await helper.firstMessage;
          assert.equal(await helper.exited, 'SIGKILL');
          assert.equal(receiver.received.length, mode === 'before-send' ? 0 : 1);

          const storage = await h.db.open();
          const app = await buildApp({
            config: testConfig(), storage,
            webhooks: { allowLoopback: true, pollMs: 20, lookup: async () => [{ address: '127.0.0.1', family: 4 }] },
          });
          try {
            const endpoint = { project: 'acme/shop', id: endpointId, secret };
            const [delivery] = await until(() => deliveriesOf(storage, endpoint), (d) => d[0]?.status === 'succeeded', 'delivered');
            assert.equal(delivery!.messageId, messageId);
            assert.deepEqual((await attemptsOf(storage, delivery!.id)).map((a) => a.status), [200], 'the dead node recorded no attempt');
            assert.equal(receiver.received.length, mode === 'before-send' ? 1 : 2);
            for (const request of receiver.received) {
              assert.equal(request.headers['webhook-id'], messageId);
              verified(secret, request);
            }
          } finally {
            await app.close();
            await storage.close();
          }
        } finally {
          await receiver.close();
        }
      });
    });
  }
}
