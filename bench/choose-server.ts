// A server for the choose bench, run as a forked child so the two servers do not share an event loop:
//   --mode=svc   the real service (buildApp, durable SQLite in a temp dir, 20 experiments, exposures committed before each answer);
//                the returning bench profiles bench-profile-0…N-1 (--profiles=N) carry `plan: "pro"` in storage,
//                so the 5 targeted experiments read real stored attributes and match (20 choices, as bare)
//   --mode=bare  a bare node:http server that reads and JSON.parses the same bodies and answers the same
//                shape of JSON (20 choices) without choosing anything
//   --mode=fastify  the framework's floor: a Fastify app with one route on the same path that parses the body
//                (Fastify's own JSON parser) and answers bare's JSON: what svc would cost if choosing were free
// It sends {port} once listening and answers the bench's questions over IPC (server-ipc.ts).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import Fastify from 'fastify';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../src/event.js';
import { ATTRIBUTES, NAMES, svcExperiments } from './choose-experiments.js';
import { answerBenchQuestions } from './server-ipc.js';
import { ingestBatch } from '../server/ingest/event-store.js';

const mode = process.argv.find((a) => a.startsWith('--mode='))?.slice('--mode='.length) ?? 'svc';

async function startSvc(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-choose-bench-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'));
  const profiles = Number(process.argv.find((a) => a.startsWith('--profiles='))?.slice('--profiles='.length) ?? 1000);
  // Stored the way the SDK's events store them (ingestion), not written around the service.
  const events: ServiceEvent[] = Array.from({ length: profiles }, (_, i) => ({
    eventId: randomUUID(), type: 'track', name: 'Plan seen', profileId: `bench-profile-${i}`, sessionId: 'seed',
    pageId: 'seed', timestamp: new Date().toISOString(), userAttributes: ATTRIBUTES,
  }));
  for (let i = 0; i < events.length; i += 500) await ingestBatch(storage, 'acme/shop', 'web', events.slice(i, i + 500));
  const app = await buildApp({
    storage,
    config: {
      // The admin key: the management bench changes an experiment while the Choose API is under load.
      organizations: { acme: { adminKeys: ['admbench.s3cret'], projects: { shop: {
        apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'], experiences: svcExperiments(),
      } } } },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

const CHOICES = NAMES.map((name) => ({
  name, group: 'bench', variation: 'control', body: { title: `${name} control`, color: 'blue' },
}));

async function startBare(): Promise<number> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        JSON.parse(Buffer.concat(chunks).toString('utf8'));
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
        res.end(JSON.stringify({ choices: CHOICES }));
      } catch {
        res.writeHead(400);
        res.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

async function startFastify(): Promise<number> {
  const app = Fastify();
  const answer = JSON.stringify({ choices: CHOICES });
  app.post('/v1/:org/projects/:project/optimization/choose-api', async (_request, reply) => {
    reply.type('application/json; charset=utf-8');
    return answer;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

const port = await (mode === 'bare' ? startBare() : mode === 'fastify' ? startFastify() : startSvc());
answerBenchQuestions();
process.send?.({ port });
// Ends with a normal exit on SIGINT, so that a server run under `node --cpu-prof` (bench/choose-ab.ts --prof) writes
// its profile.
process.on('SIGINT', () => process.exit(0));
