// Child process of sqlite-wal.test.ts: stores batches on a SQLite file, reports how many events were
// acknowledged, then dies by SIGKILL — no close(), no final checkpoint, possibly in the middle of one.
import { randomUUID } from 'node:crypto';
import { openSqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import { makeEvent } from './events.js';
import { ingestBatch } from '../../../server/programs.js';
import { SCHEMA } from '../../../server/schema.js';

const [file, walBoundPages] = process.argv.slice(2) as [string, string];
const storage = await openSqliteStorage(file, SCHEMA, { walBoundPages: Number(walBoundPages) });
let accepted = 0;
for (let round = 0; round < 20; round++) {
  const batches = Array.from({ length: 10 }, () => Array.from({ length: 50 }, () => makeEvent({ profileId: `crash-${randomUUID()}` })));
  const results = await Promise.all(batches.map((batch) => ingestBatch(storage, 'acme/shop', 'web', batch)));
  for (const r of results) accepted += r.accepted;
}
process.send?.({ accepted }, () => process.kill(process.pid, 'SIGKILL'));
