// Child process of ingest-nodes.test.ts: a real app on the database it is given (a SQLite file or a PostgreSQL URL),
// listening on a free port, which it reports; it runs until it is killed (SIGKILL: no close, nothing flushed on the
// way out) or asked to stop (SIGTERM: a graceful close).
import { dirname } from 'node:path';
import { buildApp } from '../../../server/app.js';
import { openStorage } from '../../../server/storage/open-storage.js';
import { SCHEMA } from '../../../server/schema.js';

const [location] = process.argv.slice(2) as [string];
const storage = await openStorage(location.startsWith('postgres') ? { dataDir: '', databaseUrl: location } : { dataDir: dirname(location) }, SCHEMA);
const app = await buildApp({
  storage,
  config: { organizations: { acme: { projects: { shop: {
    apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], limits: { writeKeyPerSecond: 1_000_000 },
  } } } } },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 });
process.once('SIGTERM', () => {
  void app.close().then(() => storage.close()).then(() => process.exit(0));
});
