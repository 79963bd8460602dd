// A server for the choose bench, run as a forked child so the two servers do not share an event loop:
//   --mode=svc   the real service (buildApp, durable SQLite in a temp dir, 20 experiments, exposures committed before each answer);
//                the returning bench profiles bench-profile-0…N-1 (--profiles=N) carry `plan: "pro"` in storage,
//                so the 5 targeted experiments read real stored attributes and match (20 choices, as bare)
//   --mode=bare  a bare node:http server that reads and JSON.parses the same bodies and answers the same
//                shape of JSON (20 choices) without choosing anything
//   --mode=fastify  the framework's floor: a Fastify app with one route on the same path that parses the body
//                (Fastify's own JSON parser) and answers bare's JSON: what svc would cost if choosing were free
//   --mode=durable  the durable floor: that Fastify route, plus the cheapest writes that keep the Choose API's promise
//                (a unit's first assignments stored before its first answer, an exposure row per new session, both
//                committed before the answer): what svc would cost if choosing were free and storing were not
//   --mode=growthbook  the named peer on that floor: the durable floor choosing each answer with GrowthBook's SDK
//                (GrowthBookClient.evalFeature for the 20 experiments, the request's unit, device and the profiles'
//                `plan`), each choice's JSON text built once: a Choose server built on GrowthBook, with no identity,
//                stored targeting, dedupe or per-experience rows
// It sends {port} once listening and answers the bench's questions over IPC (server-ipc.ts).
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { GrowthBookClient, type FeatureApiResponse } from '@growthbook/growthbook';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { ServiceEvent } from '../wire/event.js';
import { ATTRIBUTES, NAMES, growthbookFeatures, svcExperiments } from './choose-experiments.js';
import { answerBenchQuestions } from './server-ipc.js';
import { ingestBatch } from '../server/programs.js';
import { SCHEMA } from '../server/schema.js';

const mode = process.argv.find((a) => a.startsWith('--mode='))?.slice('--mode='.length) ?? 'svc';

async function startSvc(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-choose-bench-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
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

/**
 * The durable floor. One SQLite connection on the main thread (WAL, synchronous=NORMAL: svc's Choose writes are
 * committed, not synced, before the answer), no writer thread, no validation, no identity or targeting reads.
 * A unit's first assignments are ONE row keyed (project, unit), inserted if absent: the cheapest form of the
 * guarantee (svc stores a row per experience). A unit this process has seen is answered from memory, as svc's
 * assignment cache does; an unseen one is read by its key first. A new session's exposures are one row, as svc's.
 * Every write of a turn of the event loop shares one transaction, committed before its answers.
 */
async function startDurableFloor(evaluate?: (unit: string, device: string | undefined) => string[]): Promise<number> {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'svc-choose-floor-')), 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(`
    CREATE TABLE unit_assignments (project TEXT NOT NULL, unit TEXT NOT NULL, assignments TEXT NOT NULL,
      created_at INTEGER NOT NULL, PRIMARY KEY (project, unit)) WITHOUT ROWID;
    CREATE TABLE exposures (id INTEGER PRIMARY KEY, project TEXT NOT NULL, profile_id TEXT NOT NULL, session_id TEXT,
      device TEXT, ts INTEGER NOT NULL, choice_count INTEGER NOT NULL, choices TEXT NOT NULL);
    CREATE INDEX exposures_time ON exposures (project, ts);`);
  const stored = db.prepare('SELECT assignments FROM unit_assignments WHERE project = ? AND unit = ?').pluck();
  const assign = db.prepare('INSERT INTO unit_assignments VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING');
  const expose = db.prepare('INSERT INTO exposures (project, profile_id, session_id, device, ts, choice_count, choices) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  // Choosing is free here: every unit gets the answer's variations.
  const variations = JSON.stringify(Object.fromEntries(CHOICES.map((c) => [c.name, c.variation])));
  const pairs = JSON.stringify(CHOICES.map((c) => [c.name, c.variation]));
  const known = new Set<string>();
  const sessions = new Set<string>();
  let committed: (() => void)[] | null = null;
  const inTurnTransaction = (write: () => void): Promise<void> => {
    if (committed === null) {
      begin.run();
      const waiting: (() => void)[] = (committed = []);
      setImmediate(() => {
        commit.run();
        committed = null;
        for (const answer of waiting) answer();
      });
    }
    write();
    const waiting = committed;
    return new Promise((resolve) => waiting.push(resolve));
  };
  const remember = (set: Set<string>, key: string): void => {
    if (set.size >= 100_000) set.clear();
    set.add(key);
  };

  const app = Fastify();
  const answer = JSON.stringify({ choices: CHOICES });
  const choiceJson = new Map(svcExperiments().flatMap((e) => (e.variations ?? []).map((v) =>
    [`${e.name}\u0000${v.name}`, JSON.stringify({ name: e.name, group: 'bench', variation: v.name, body: v.body })] as const)));
  app.post('/v1/:org/projects/:project/optimization/choose-api', async (request, reply) => {
    const body = request.body as { identification: { profileId: string }; sessionId?: string; device?: string };
    const project = 'acme/shop';
    const unit = body.identification.profileId;
    // With an evaluator, each answer is chosen: the variation keys, in NAMES' order, joined from each choice's JSON
    // text built once (as svc builds a config choice's JSON at compile), so only the evaluation is added.
    const keys = evaluate?.(unit, body.device);
    const writes: Promise<void>[] = [];
    if (!known.has(unit)) {
      if (stored.get(project, unit) === undefined) {
        const stores = keys ? JSON.stringify(Object.fromEntries(NAMES.map((name, i) => [name, keys[i]]))) : variations;
        writes.push(inTurnTransaction(() => assign.run(project, unit, stores, Date.now())));
      }
      remember(known, unit);
    }
    const session = `${unit}\u0000${body.sessionId ?? ''}`;
    if (!sessions.has(session)) {
      remember(sessions, session);
      const exposed = keys ? JSON.stringify(NAMES.map((name, i) => [name, keys[i]])) : pairs;
      writes.push(inTurnTransaction(() => expose.run(project, unit, body.sessionId ?? null, body.device ?? null, Date.now(), CHOICES.length, exposed)));
    }
    if (writes.length > 0) await Promise.all(writes);
    reply.type('application/json; charset=utf-8');
    return keys ? `{"choices":[${keys.map((key, i) => choiceJson.get(`${NAMES[i]}\u0000${key}`)).join(',')}]}` : answer;
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** GrowthBook's evaluation of the 20 experiments per request (each one's variation key), as a Choose server built on GrowthBook's SDK runs it. */
function growthbookEvaluation(): (unit: string, device: string | undefined) => string[] {
  const gb = new GrowthBookClient();
  gb.initSync({ payload: { features: growthbookFeatures() as FeatureApiResponse['features'] } });
  return (unit, device) => {
    const user = { attributes: { id: unit, deviceType: device, ...ATTRIBUTES } };
    return NAMES.map((name) => gb.evalFeature(name, user).experimentResult?.key ?? 'control');
  };
}

const starts: Record<string, () => Promise<number>> = {
  svc: startSvc, bare: startBare, fastify: startFastify, durable: () => startDurableFloor(),
  growthbook: () => startDurableFloor(growthbookEvaluation()),
};
const port = await (starts[mode] ?? startSvc)();
answerBenchQuestions();
process.send?.({ port });
// Ends with a normal exit on SIGINT, so that a server run under `node --cpu-prof` (bench/choose-ab.ts --prof) writes
// its profile.
process.on('SIGINT', () => process.exit(0));
