// The copy from SQLite into PostgreSQL (npm run copy-to-postgres) in rows per second, next to two floors measured in
// the same run on the same rows: a plain read of them from SQLite (what the copy reads), and PostgreSQL writing them
// itself (INSERT … SELECT inside the server: no network, no parameters, no checks). The source holds ROWS events and
// as many exposures (each with its exposures_unindexed row, from the trigger), written straight into a migrated file. The bench checks that the copy ran: the target's counts.
// `node --import tsx bench/copy-bench.ts [rows]` (default 100,000 of each; about a minute with both floors).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import pg from 'pg';
import { SCHEMA } from '../server/schema.js';
import { copySqliteToPostgres } from '../server/storage/copy/copy-sqlite-to-postgres.js';
import { openSqliteStorage } from '../server/storage/sqlite/sqlite-storage.js';

const ROWS = Number(process.argv[2] ?? 100_000);
const ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

async function source(file: string): Promise<void> {
  await (await openSqliteStorage(file, SCHEMA)).close();
  const db = new Database(file);
  const event = db.prepare(`INSERT INTO events (project, event_id, source_id, type, name, profile_id, session_id, page_id, ts, received_at, payload)
    VALUES ('acme/shop', ?, 'web', 'track', 'Page viewed', ?, ?, ?, ?, ?, ?)`);
  const exposure = db.prepare(`INSERT INTO exposures (project, profile_id, session_id, device, ts, choice_count, choices)
    VALUES ('acme/shop', ?, ?, 'desktop', ?, 1, ?)`);
  db.transaction(() => {
    for (let i = 0; i < ROWS; i++) {
      const profile = `p-${i % 5000}`;
      event.run(randomUUID(), profile, `s-${i % 9000}`, `pg-${i}`, 1_780_000_000_000 + i, 1_780_000_000_500 + i, JSON.stringify({ url: `https://shop.example/${i % 300}`, n: i }));
      exposure.run(profile, `s-${i % 9000}`, 1_780_000_000_000 + i, JSON.stringify([['hero', i % 2 ? 'bold' : 'control']]));
    }
  })();
  db.close();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-copy-bench-'));
  const file = join(dir, 'svc.db');
  const name = `svc_copy_bench_${process.pid}`;
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  try {
    await source(file);
    const rows = 3 * ROWS;
    const tables = ['events', 'exposures', 'exposures_unindexed'];

    // Floor 1: reading the same rows from SQLite, as the copy reads them (bigints, arrays of values).
    const db = new Database(file, { readonly: true });
    db.defaultSafeIntegers(true);
    let started = performance.now();
    let read = 0;
    for (const table of tables) for (const _ of db.prepare(`SELECT * FROM ${table}`).raw(true).iterate()) read++;
    const readSeconds = (performance.now() - started) / 1000;
    db.close();

    // The copy, its batches and its verification apart.
    await admin.query(`CREATE DATABASE ${name}`);
    let copiedAt = 0;
    started = performance.now();
    const report = await copySqliteToPostgres({ from: file, to: url.toString(), schema: SCHEMA, onBatch: () => { copiedAt = performance.now(); } });
    const total = (performance.now() - started) / 1000;
    const copySeconds = (copiedAt - started) / 1000;
    const copied = report.tables.reduce((n, t) => n + t.rows, 0);
    if (copied !== rows + 1) throw new Error(`the copy reported ${copied} rows, not ${rows + 1}`);

    // Floor 2: PostgreSQL writing the same rows itself.
    const target = new pg.Client({ connectionString: url.toString() });
    await target.connect();
    const counted = await target.query(`SELECT ${tables.map((t) => `(SELECT count(*) FROM ${t})`).join(' + ')} AS n`);
    if (Number(counted.rows[0].n) !== rows) throw new Error(`the target holds ${counted.rows[0].n} rows, not ${rows}`);
    started = performance.now();
    await target.query('CREATE TABLE events_floor (LIKE events INCLUDING ALL); INSERT INTO events_floor SELECT * FROM events');
    await target.query('CREATE TABLE exposures_floor (LIKE exposures INCLUDING INDEXES); INSERT INTO exposures_floor SELECT * FROM exposures');
    await target.query('CREATE TABLE unindexed_floor (LIKE exposures_unindexed INCLUDING ALL); INSERT INTO unindexed_floor SELECT * FROM exposures_unindexed');
    const writeSeconds = (performance.now() - started) / 1000;
    await target.end();

    const line = (what: string, seconds: number, n = rows) => `| ${what.padEnd(52)} | ${String(n).padStart(8)} | ${seconds.toFixed(2).padStart(7)} | ${Math.round(n / seconds).toLocaleString('en').padStart(10)} |`;
    console.log(`\ncopy-to-postgres: ${ROWS.toLocaleString('en')} events, exposures and exposures_unindexed rows each\n`);
    console.log('| what | rows | s | rows/s |\n|---|---:|---:|---:|');
    console.log(line('floor: read them from SQLite', readSeconds, read));
    console.log(line('floor: PostgreSQL writes them itself (INSERT … SELECT)', writeSeconds));
    console.log(line('copy: the batches (read, send, insert, progress)', copySeconds));
    console.log(line('copy-to-postgres in all (with checks and checksums)', total));
    console.log(`\ncopy batches / PostgreSQL's own write: ${(writeSeconds / copySeconds).toFixed(2)}×`);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
