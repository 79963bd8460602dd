// Child process of choose-crash.test.ts: a real app on the database it is given (a SQLite file or a PostgreSQL URL)
// answers Choose requests of new visitors over HTTP, reports the answers it sent, then dies by SIGKILL at once — no
// close(), nothing flushed on the way out.
import { buildApp } from '../../../server/app.js';
import { openStorage } from '../../../server/storage/open-storage.js';
import { dirname } from 'node:path';
import { SCHEMA } from '../../../server/schema.js';

const [location, visitors] = process.argv.slice(2) as [string, string];
const storage = await openStorage(location.startsWith('postgres') ? { dataDir: '', databaseUrl: location } : { dataDir: dirname(location) }, SCHEMA);
const app = await buildApp({
  storage,
  config: { organizations: { acme: { projects: { shop: {
    apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
    experiences: ['hero', 'footer', 'checkout'].map((name) => ({
      name, variations: [{ name: 'a', weight: 50, body: { v: 'a' } }, { name: 'b', weight: 50, body: { v: 'b' } }],
    })),
  } } } } },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
const port = typeof address === 'object' && address !== null ? address.port : 0;

const answered: { profileId: string; variations: Record<string, string> }[] = [];
await Promise.all(Array.from({ length: Number(visitors) }, async (_, i) => {
  const profileId = `crash-${i}`;
  const response = await fetch(`http://127.0.0.1:${port}/v1/acme/projects/shop/optimization/choose-api?apiKey=srv1.s3cret`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identification: { sourceId: 'web', profileId }, names: ['hero', 'footer', 'checkout'], sessionId: `${profileId}-s` }),
  });
  if (response.status !== 200) throw new Error(`choose answered ${response.status}`);
  const { choices } = (await response.json()) as { choices: { name: string; variation: string }[] };
  answered.push({ profileId, variations: Object.fromEntries(choices.map((c) => [c.name, c.variation])) });
}));
process.send?.({ answered }, () => process.kill(process.pid, 'SIGKILL'));
