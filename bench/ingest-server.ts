// A server for the ingestion bench, run as a forked child so that its RSS is its own:
//   --mode=svc   the real service (buildApp, durable SQLite in a temp dir, rate limits lifted)
//   --mode=bare  a bare node:http server that reads and JSON.parses the same bodies, then discards them
//   --mode=fastify  the framework's floor: a Fastify app with one route on the same path that parses the body
//                (Fastify's own JSON parser) and discards it: what svc would cost if validating and storing were free
// It sends {port} once listening and answers the bench's questions (RSS, CPU time) over IPC (server-ipc.ts).
import Fastify from 'fastify';
import { createServer } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../server/app.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import { answerBenchQuestions } from './server-ipc.js';

const mode = process.argv.find((a) => a.startsWith('--mode='))?.slice('--mode='.length) ?? 'svc';

async function startSvc(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-'));
  const storage = await openSqliteStorage(join(dir, 'svc.db'));
  const app = await buildApp({
    storage,
    config: {
      organizations: { acme: { projects: { shop: {
        apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
        // One key from one IP: the bench measures ingestion, not the 50/s browser budget.
        limits: { writeKeyPerSecond: 1_000_000 },
      } } } },
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

async function startBare(): Promise<number> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { batch?: unknown[] };
        const n = Array.isArray(body.batch) ? body.batch.length : 0;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accepted: n, duplicates: 0 }));
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
  app.post<{ Body: { batch?: unknown[] } }>('/v1/:org/projects/:project/sources/:sourceId/track', async (request) => {
    const n = Array.isArray(request.body.batch) ? request.body.batch.length : 0;
    return { accepted: n, duplicates: 0 };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

const port = await (mode === 'bare' ? startBare() : mode === 'fastify' ? startFastify() : startSvc());
answerBenchQuestions();
process.send?.({ port });
