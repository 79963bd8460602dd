// Child process of privacy-requests.test.ts: a service node on the test's database stores a crowd's events and one
// person's among them, is asked to erase that person, and dies by SIGKILL right after the erasure's first committed
// chunk of events — no close(), its lease still held. It reports the request's id and what it had erased.
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { ingestBatch } from '../../../server/programs.js';
import { SCAN_CHUNK } from '../../../server/privacy/person-rows.js';
import { openPostgresStorage } from '../../../server/storage/postgres/postgres-storage.js';
import { openSqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../../../wire/event.js';
import { makeEvent } from './events.js';
import { SCHEMA } from '../../../server/schema.js';

const [driver, location, configJson, profileId] = process.argv.slice(2) as [string, string, string, string];
const storage = driver === 'sqlite' ? await openSqliteStorage(location, SCHEMA) : await openPostgresStorage(location, SCHEMA);
const events: ServiceEvent[] = [];
for (let i = 0; i < SCAN_CHUNK * 2 + 500; i++) events.push(makeEvent({ profileId: `crowd-${i % 300}`, sessionId: `crowd-s-${i % 300}` }));
for (let i = 0; i < 40; i++) events.push(makeEvent({ profileId, sessionId: `${profileId}-s` }));
for (let i = 0; i < events.length; i += 1000) await ingestBatch(storage, 'acme/shop', 'web', events.slice(i, i + 1000));

const app = await buildApp({
  config: JSON.parse(configJson) as ServiceConfigFile,
  storage,
  privacy: {
    afterChunk: (request) => {
      if (request.step === 'events' && request.cursor !== '' && request.cursor !== null) {
        process.send?.({ id: request.id, erased: request.counts.events ?? 0 }, () => process.kill(process.pid, 'SIGKILL'));
      }
    },
  },
});
const created = await app.inject({
  method: 'POST', url: '/v1/acme/projects/shop/privacy/erasures', headers: { authorization: 'Bearer adm1.s3cret' },
  payload: { profileId, sourceId: 'web' },
});
if (created.statusCode !== 202) throw new Error(created.body);
