// What time partitioning would save retention on PostgreSQL: deleting a year-old backlog of events by the service's
// batched key-range deletes (unpaced here: the floor of their cost) against dropping a partition holding the same rows,
// on the same database in the same run. The partitioned table must carry the partition key (receipt time) in its
// primary key, so (project, event_id) would no longer be unique across days: the bench says so beside the numbers.
import pg from 'pg';
import { postgresAvailable } from './ingest-bench.js';

const ROOT = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const COLUMNS = `project TEXT NOT NULL, event_id TEXT NOT NULL, source_id TEXT NOT NULL, type TEXT NOT NULL, name TEXT NOT NULL,
  profile_id TEXT NOT NULL, session_id TEXT NOT NULL, page_id TEXT NOT NULL, user_id TEXT, account_id TEXT, product_id TEXT,
  ts BIGINT NOT NULL, received_at BIGINT NOT NULL, sent_at BIGINT, payload TEXT NOT NULL`;
const OLD_AT = Date.parse('2025-01-01T00:00:00Z');
const NEW_AT = Date.parse('2026-11-01T00:00:00Z');

export interface PartitionBenchResult {
  rows: number;
  batchedDeleteSeconds: number;
  partitionDropSeconds: number;
  skipped?: string;
}

function fill(table: string, count: number, at: number, prefix: string): string {
  return `INSERT INTO ${table} SELECT 'acme/shop', '${prefix}' || lpad(i::text, 10, '0'), 'web', 'track', 'Clicked banner', 'p-' || (i % 5000),
    's-' || (i % 5000), 'page', NULL, NULL, NULL, ${at}, ${at}, NULL, '{"type":"track","name":"Clicked banner"}' FROM generate_series(1, ${count}) AS i`;
}

/** @example const r = await runPartitionBench(1_000_000); */
export async function runPartitionBench(rows = 1_000_000): Promise<PartitionBenchResult> {
  const skipped = await postgresAvailable();
  if (skipped) return { rows, batchedDeleteSeconds: NaN, partitionDropSeconds: NaN, skipped };
  const admin = new pg.Client({ connectionString: ROOT });
  await admin.connect();
  await admin.query('DROP DATABASE IF EXISTS svc_bench_partition WITH (FORCE)');
  await admin.query('CREATE DATABASE svc_bench_partition');
  await admin.end();
  const url = new URL(ROOT);
  url.pathname = '/svc_bench_partition';
  const db = new pg.Client({ connectionString: url.toString() });
  await db.connect();
  try {
    // The service's table: keyed (project, event_id); old rows first in key order (time-ordered ids), then recent ones.
    await db.query(`CREATE TABLE events (${COLUMNS}, PRIMARY KEY (project, event_id))`);
    await db.query(fill('events', rows, OLD_AT, '0000-old-'));
    await db.query(fill('events', rows / 10, NEW_AT, '9999-new-'));
    await db.query('VACUUM ANALYZE events');
    let started = performance.now();
    for (let after = '';;) {
      const { rows: keys } = await db.query<{ event_id: string; received_at: string }>(
        "SELECT event_id, received_at FROM events WHERE project = 'acme/shop' AND event_id > $1 ORDER BY event_id LIMIT 5000", [after],
      );
      const old = keys.filter((k) => Number(k.received_at) < NEW_AT).map((k) => k.event_id);
      for (let i = 0; i < old.length; i += 1000) {
        const slice = old.slice(i, i + 1000);
        await db.query("DELETE FROM events WHERE project = 'acme/shop' AND event_id >= $1 AND event_id <= $2 AND received_at < $3",
          [slice[0], slice[slice.length - 1], NEW_AT]);
      }
      if (keys.length < 5000) break;
      after = keys[keys.length - 1]!.event_id;
    }
    const batchedDeleteSeconds = (performance.now() - started) / 1000;

    // The same rows in a table partitioned by receipt time: the old ones in a partition of their own.
    await db.query(`CREATE TABLE events_by_time (${COLUMNS}, PRIMARY KEY (project, event_id, received_at)) PARTITION BY RANGE (received_at)`);
    await db.query(`CREATE TABLE events_old PARTITION OF events_by_time FOR VALUES FROM (0) TO (${NEW_AT - 1})`);
    await db.query(`CREATE TABLE events_recent PARTITION OF events_by_time FOR VALUES FROM (${NEW_AT - 1}) TO (MAXVALUE)`);
    await db.query(fill('events_by_time', rows, OLD_AT, '0000-old-'));
    await db.query(fill('events_by_time', rows / 10, NEW_AT, '9999-new-'));
    await db.query('VACUUM ANALYZE events_by_time');
    started = performance.now();
    await db.query('ALTER TABLE events_by_time DETACH PARTITION events_old');
    await db.query('DROP TABLE events_old');
    const partitionDropSeconds = (performance.now() - started) / 1000;
    return { rows, batchedDeleteSeconds, partitionDropSeconds };
  } finally {
    await db.end();
  }
}

export function formatPartitionBench(r: PartitionBenchResult): string {
  if (r.skipped) return `## Retention on PostgreSQL: batched deletes against a partition drop\n\n${r.skipped}`;
  return [
    `## Retention on PostgreSQL: deleting ${r.rows.toLocaleString('en-US')} old events`,
    '',
    '| way | seconds | rows per second |',
    '|---|---|---|',
    `| batched key-range deletes (the service's, unpaced) | ${r.batchedDeleteSeconds.toFixed(1)} | ${Math.round(r.rows / r.batchedDeleteSeconds).toLocaleString('en-US')} |`,
    `| DETACH + DROP of a partition by receipt time | ${r.partitionDropSeconds.toFixed(3)} | — |`,
    '',
    `A partition drop is ${Math.round(r.batchedDeleteSeconds / r.partitionDropSeconds).toLocaleString('en-US')} times faster, but the partitioned table's`,
    'primary key must include receipt time: the same event id could then be stored once per partition, and the',
    "database would no longer guarantee ingestion's exactly-once effect. The service keeps the unique key and paces its deletes.",
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatPartitionBench(await runPartitionBench(Number(process.env.BENCH_PARTITION_ROWS ?? 1_000_000))));
}
