// Child process of webhook-crash.test.ts: a real app on the database it is given (a SQLite file or a PostgreSQL URL)
// queues a webhook (committed) to an endpoint on the test's receiver, leases it, and dies by SIGKILL — no close(),
// nothing recorded. `before-send`: it dies while resolving the receiver's host, before connecting; `mid-send`: the
// receiver has the request when the test kills it, before the answer is recorded. It reports the message id and the
// endpoint's secret first.
import { dirname } from 'node:path';
import { buildApp } from '../../../server/app.js';
import { SCHEMA } from '../../../server/schema.js';
import { openStorage } from '../../../server/storage/open-storage.js';
import { testConfig } from './test-config.js';
import { emitFeedChanged, insertEndpoint } from './webhook-fixtures.js';

const [location, mode, port] = process.argv.slice(2) as [string, 'before-send' | 'mid-send', string];
const storage = await openStorage(location.startsWith('postgres') ? { dataDir: '', databaseUrl: location } : { dataDir: dirname(location) }, SCHEMA);
let queued: Promise<{ messageId: string; secret: string; endpointId: string }> | undefined;
await buildApp({
  storage,
  config: testConfig(),
  webhooks: {
    allowLoopback: true,
    pollMs: 20,
    // A short lease, so that the next node takes the delivery over soon (shorter than an attempt's deadline: this
    // node dies long before either).
    leaseMs: 300,
    timeoutMs: 60_000,
    async lookup() {
      const report = await queued!;
      if (mode === 'before-send') {
        process.send?.(report, () => process.kill(process.pid, 'SIGKILL'));
        return new Promise(() => undefined);
      }
      process.send?.(report);
      return [{ address: '127.0.0.1', family: 4 }];
    },
  },
});
queued = (async () => {
  const endpoint = await insertEndpoint(storage, { url: `http://receiver.example.test:${port}/hook` });
  return { messageId: await emitFeedChanged(storage, 'crash'), secret: endpoint.secret, endpointId: endpoint.id };
})();
await queued;
// Alive until killed: by itself (before-send) or by the test (mid-send).
setInterval(() => undefined, 1000);
