// ChooseService.answer() in process, without HTTP, for each kind of request of the Choose bench's mix: a returning
// visitor in its session (caches hold everything: no promise), one starting a session (its exposures written), a new
// visitor (its first assignments and exposures written), on durable SQLite with the writer thread, 64 answers in
// flight. The service is first run through more new visitors than its caches hold (a node that has run a while).
// Prints µs of wall time and of CPU (all threads) per answer, request parsing and validation included: the cost of
// choosing apart from the network's, which on a shared machine is the steadier measure for deciding a change
// (`bench/choose-ab.ts` measures the whole server).
// `node --import tsx bench/choose-service-bench.ts [--answers=20000] [--fill=60000]`
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AuthResult } from '../server/auth/authenticate.js';
import { ChooseService } from '../server/choose/choose-service.js';
import { validateChooseRequest } from '../server/choose/validate-choose-request.js';
import { ConfigStore } from '../server/config/config-store.js';
import { validateConfig } from '../server/config/validate-config.js';
import { CanonicalProfileCache } from '../server/identity/canonical-profile-cache.js';
import { ingestBatch } from '../server/programs.js';
import { ServiceMetrics } from '../server/metrics/service-metrics.js';
import { FeedService } from '../server/recommendations/feed-service.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../wire/event.js';
import { ATTRIBUTES, NAMES, svcExperiments } from './choose-experiments.js';
import { SCHEMA } from '../server/schema.js';

const arg = (name: string, fallback: number): number =>
  Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback);
const ANSWERS = arg('answers', 20_000);
const FILL = arg('fill', 60_000);
const PROFILES = 1000;
const IN_FLIGHT = 64;

const dir = mkdtempSync(join(tmpdir(), 'svc-choose-service-bench-'));
const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
// The returning profiles carry `plan: "pro"`, stored as the SDK's events store it.
const events: ServiceEvent[] = Array.from({ length: PROFILES }, (_, i) => ({
  eventId: randomUUID(), type: 'track', name: 'Plan seen', profileId: `bench-profile-${i}`, sessionId: 'seed',
  pageId: 'seed', timestamp: new Date().toISOString(), userAttributes: ATTRIBUTES,
}));
for (let i = 0; i < events.length; i += 500) await ingestBatch(storage, 'acme/shop', 'web', events.slice(i, i + 500));
const config = new ConfigStore(validateConfig({ organizations: { acme: { projects: { shop: {
  apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], experiences: svcExperiments(),
} } } } }));
const project = config.projects()[0]!;
const silent = { warn: () => undefined, error: () => undefined, info: () => undefined, debug: () => undefined };
const choose = new ChooseService({
  storage, feeds: new FeedService(storage), canonicalProfiles: new CanonicalProfileCache(Date.now), now: Date.now,
  metrics: new ServiceMetrics(), logger: silent,
});
await choose.warm([project]);
const auth = { kind: 'apiKey', key: project.config.apiKeys[0], project } as unknown as AuthResult;

const body = (profileId: string, sessionId: string): string =>
  JSON.stringify({ identification: { sourceId: 'web', profileId }, names: NAMES, device: 'desktop', sessionId });

/** Answers `count` requests made by `make`, at most IN_FLIGHT at a time; µs of wall time and CPU per answer. */
async function answer(count: number, make: (i: number) => string): Promise<{ wall: number; cpu: number }> {
  const start = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  const inFlight: Promise<string>[] = [];
  for (let i = 0; i < count; i++) {
    const answered = choose.answer(auth, validateChooseRequest(JSON.parse(make(i))));
    if (typeof answered !== 'string') inFlight.push(answered);
    if (inFlight.length >= IN_FLIGHT) await Promise.all(inFlight.splice(0));
  }
  await Promise.all(inFlight);
  const used = process.cpuUsage(cpu);
  return { wall: Number(process.hrtime.bigint() - start) / 1000 / count, cpu: (used.user + used.system) / count };
}

let fresh = 0;
let session = 1;
await answer(FILL, () => body(`bench-fill-${fresh++}`, 'fill'));
await answer(PROFILES, (i) => body(`bench-profile-${i}`, 's0'));
const kinds: [string, (i: number) => string][] = [
  ['returning visitor, in its session', (i) => body(`bench-profile-${i % PROFILES}`, 's0')],
  ['returning visitor, a new session', (i) => body(`bench-profile-${i % PROFILES}`, `s${session++}`)],
  ['new visitor', () => body(`bench-new-${fresh++}`, 'first')],
];
console.log(`| request | wall µs per answer | CPU µs per answer (all threads) |`);
console.log('|---|---|---|');
for (const [name, make] of kinds) {
  await answer(ANSWERS / 4, make);
  const { wall, cpu } = await answer(ANSWERS, make);
  console.log(`| ${name} | ${wall.toFixed(1)} | ${cpu.toFixed(1)} |`);
}
await choose.close();
await storage.close();
rmSync(dir, { recursive: true, force: true });
