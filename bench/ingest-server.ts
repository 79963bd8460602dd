// A server for the ingestion bench, run as a forked child so that its RSS and CPU time are its own:
//   --mode=svc       the real service (buildApp, durable SQLite in a temp dir, rate limits lifted)
//   --mode=svc-pg    the real service on PostgreSQL (a fresh database)
//   --mode=floor     the durable floor on SQLite: node:http, JSON.parse, then one transaction of prepared
//                    `INSERT OR IGNORE` per event into a table with the service's event columns keyed
//                    (project, event_id) and no other index; WAL, synchronous=NORMAL
//   --mode=floor-pg  the same floor on PostgreSQL: one multi-row `INSERT … ON CONFLICT DO NOTHING` per batch (its own
//                    transaction), through a pool as large as the service's
//   --mode=bare      node:http that reads and JSON.parses the same bodies, then discards them (the transport alone)
//   --max-pending=N  (svc modes) the service's bound on events held but not committed (backpressure)
//   --old-events=N   (svc modes) N events received 400 days ago stored before the start (retention-bench.ts)
//   --retention      (svc modes) the project keeps events 30 days, swept every second from the start
// It sends {port} once listening and answers the bench's questions (RSS, CPU time) over IPC (server-ipc.ts).
import Database from 'better-sqlite3';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { buildApp } from '../server/app.js';
import { openPostgresStorage } from '../server/storage/postgres/postgres-storage.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../server/storage/storage.js';
import type { ServiceEvent } from '../wire/event.js';
import { answerBenchQuestions } from './server-ipc.js';
import { traceMainThread } from './main-thread-trace.js';
import { op } from '../server/storage/sql-program.js';
import { svcExperiments } from './choose-experiments.js';
import { SCHEMA } from '../server/schema.js';

const mode = process.argv.find((a) => a.startsWith('--mode='))?.slice('--mode='.length) ?? 'svc';
const maxPending = process.argv.find((a) => a.startsWith('--max-pending='))?.slice('--max-pending='.length);
const PG_ROOT = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const PROJECT = 'acme/shop';
const oldEvents = Number(process.argv.find((a) => a.startsWith('--old-events='))?.slice('--old-events='.length) ?? 0);
const OLD_AT = Date.now() - 400 * 86_400_000;

/** `count` events received 400 days ago, written in one statement (what a year of traffic left). */
function* prefillOld(dialect: 'sqlite' | 'postgres', count: number) {
  const numbers = dialect === 'sqlite'
    ? 'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) '
    : 'WITH n(i) AS (SELECT generate_series(1, ?::int)) ';
  const pad = dialect === 'sqlite' ? "printf('%010d', i)" : "lpad(i::text, 10, '0')";
  yield op(
    `${numbers}INSERT INTO events (${COLUMNS})
     SELECT ?, '00000000-0000-7000-8000-' || ${pad}, 'web', 'track', 'Clicked banner', 'old-' || (i % 5000), 'old-s-' || (i % 5000),
       'old-p', NULL, NULL, NULL, ?, ?, NULL, '{"type":"track","name":"Clicked banner","data":{"position":1}}' FROM n`,
    count, PROJECT, OLD_AT, OLD_AT,
  );
}

/** A fresh, empty PostgreSQL database for this mode (dropped and created again on every start). */
async function freshDatabase(name: string): Promise<string> {
  const admin = new pg.Client({ connectionString: PG_ROOT });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ROOT);
  url.pathname = `/${name}`;
  return url.toString();
}

/** The service's applier, once it runs: the bench waits for the models to catch up after each round. */
let models: { settle(): Promise<void> } | undefined;

/** The service's storage, once it runs: the mixed bench counts the events stored. */
let storage: Storage | undefined;

async function startSvc(opened: Storage): Promise<number> {
  storage = opened;
  if (oldEvents > 0) await opened.transaction(() => prefillOld(opened.dialect, oldEvents));
  const app = await buildApp({
    storage: opened,
    config: {
      organizations: { acme: { projects: { shop: {
        apiKeys: ['srv1.s3cret'], writeKeys: ['web1.p4ss'], sources: ['web'],
        // --choose: the choose bench's 20 experiments too, for the mixed load (mixed-load-bench.ts).
        ...(process.argv.includes('--choose') ? { experiences: svcExperiments() } : {}),
        // One key from one IP: the bench measures ingestion, not the 50/s browser budget.
        limits: { writeKeyPerSecond: 1_000_000 },
        ...(process.argv.includes('--retention') ? { retention: { eventsDays: 30 } } : {}),
      } } } },
    },
    ...(process.argv.includes('--retention') ? { retentionIntervalMs: 1000 } : {}),
    ...(maxPending ? { maxPendingEvents: Number(maxPending) } : {}),
  });
  models = app.svc.models;
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** A node:http server that parses each body and hands its batch to `store`; 200 with the counts, 400 if unparsable. */
async function startHttp(store: (batch: ServiceEvent[]) => number | Promise<number>): Promise<number> {
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let batch: ServiceEvent[];
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { batch?: ServiceEvent[] };
        batch = Array.isArray(body.batch) ? body.batch : [];
      } catch {
        res.writeHead(400);
        res.end();
        return;
      }
      Promise.resolve(batch).then(store).then((accepted) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ accepted, duplicates: batch.length - accepted }));
      }, () => {
        res.writeHead(503);
        res.end();
      });
    });
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  return typeof address === 'object' && address ? address.port : 0;
}

/** The service's event columns, in its order (server/storage/migrations.ts). */
const COLUMNS = 'project, event_id, source_id, type, name, profile_id, session_id, page_id, user_id, account_id, product_id, ts, received_at, sent_at, payload';

/** The floor's table: the service's event columns, keyed (project, event_id), and no other index. */
function floorTable(int: 'INTEGER' | 'BIGINT'): string {
  return `CREATE TABLE events (project TEXT NOT NULL, event_id TEXT NOT NULL, source_id TEXT NOT NULL, type TEXT NOT NULL,
    name TEXT NOT NULL, profile_id TEXT NOT NULL, session_id TEXT NOT NULL, page_id TEXT NOT NULL, user_id TEXT, account_id TEXT,
    product_id TEXT, ts ${int} NOT NULL, received_at ${int} NOT NULL, sent_at ${int}, payload TEXT NOT NULL,
    PRIMARY KEY (project, event_id))`;
}

function row(e: ServiceEvent, now: number): unknown[] {
  const productId = e.type === 'product' && e.data?.productId != null ? String(e.data.productId) : null;
  return [PROJECT, e.eventId, 'web', e.type, e.name, e.profileId, e.sessionId, e.pageId, e.userId ?? null, e.accountId ?? null,
    productId, Date.parse(e.timestamp), now, null, JSON.stringify(e)];
}

function floorSqlite(): (batch: ServiceEvent[]) => number {
  const db = new Database(join(mkdtempSync(join(tmpdir(), 'svc-bench-floor-')), 'floor.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.exec(floorTable('INTEGER'));
  const insert = db.prepare(`INSERT OR IGNORE INTO events (${COLUMNS}) VALUES (${new Array(15).fill('?').join(', ')})`);
  return db.transaction((batch: ServiceEvent[]) => {
    const now = Date.now();
    let accepted = 0;
    for (const e of batch) accepted += insert.run(...row(e, now)).changes;
    return accepted;
  });
}

async function floorPostgres(): Promise<(batch: ServiceEvent[]) => Promise<number>> {
  const pool = new pg.Pool({ connectionString: await freshDatabase('svc_bench_ingest_floor'), max: 10 });
  await pool.query(floorTable('BIGINT'));
  return async (batch) => {
    if (batch.length === 0) return 0;
    const now = Date.now();
    const params = batch.flatMap((e) => row(e, now));
    const values = batch.map((_, i) => `(${Array.from({ length: 15 }, (_, c) => `$${i * 15 + c + 1}`).join(', ')})`).join(', ');
    const { rowCount } = await pool.query(`INSERT INTO events (${COLUMNS}) VALUES ${values} ON CONFLICT (project, event_id) DO NOTHING`, params);
    return rowCount ?? 0;
  };
}

async function start(): Promise<number> {
  switch (mode) {
    case 'svc':
      return startSvc(await openSqliteStorage(join(mkdtempSync(join(tmpdir(), 'svc-bench-')), 'svc.db'), SCHEMA));
    case 'svc-pg':
      return startSvc(await openPostgresStorage(await freshDatabase('svc_bench_ingest_svc'), SCHEMA));
    case 'floor':
      return startHttp(floorSqlite());
    case 'floor-pg':
      return startHttp(await floorPostgres());
    default:
      return startHttp((batch) => batch.length);
  }
}

const port = await start();
/** Events of the project received before `before` (all of them by default). */
function count(before = Number.MAX_SAFE_INTEGER): Promise<number> {
  if (!storage) return Promise.resolve(NaN);
  return storage.run(function* () {
    const { rows } = yield op('SELECT COUNT(*) AS n FROM events WHERE project = ? AND received_at < ?', PROJECT, before);
    return Number(rows[0]?.n);
  });
}
answerBenchQuestions(() => models?.settle() ?? Promise.resolve(), () => count(), () => count(OLD_AT + 1));
traceMainThread();
process.send?.({ port });
