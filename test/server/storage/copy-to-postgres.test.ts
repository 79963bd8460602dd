// Moving from SQLite to PostgreSQL (npm run copy-to-postgres): a SQLite database the real service filled through its
// API is copied into an empty PostgreSQL database; the service on the copy answers as it did on the original, every
// table holds the same rows, a copy stopped midway continues when run again, and a used target is refused untouched.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import pg from 'pg';
import { buildApp } from '../../../server/app.js';
import { SCHEMA } from '../../../server/schema.js';
import { copySqliteToPostgres } from '../../../server/storage/copy/copy-sqlite-to-postgres.js';
import type { TestDatabase } from '../helpers/storage-drivers.js';
import { postgresDatabase, sqliteDatabase } from '../helpers/storage-drivers.js';
import { readAllRows, type AllRows } from '../helpers/all-rows.js';
import { fillService, SCENARIO_NOW, scenarioConfig, serviceAnswers } from '../helpers/every-kind-of-row.js';
import { ADMIN, BROWSER } from '../helpers/privacy-api.js';

/** A service on `db` with the scenario's configuration and a clock of the test's. */
async function serviceOn(db: TestDatabase, clock: { now: number }) {
  const storage = await db.open();
  const app = await buildApp({ config: scenarioConfig(), storage, now: () => clock.now });
  return { app, close: async () => { await app.close(); await storage.close(); } };
}

/** A SQLite database filled by the service, closed: what an operator stops the service on before copying. */
async function filledSqlite(): Promise<{ db: TestDatabase; clock: { now: number } }> {
  const db = sqliteDatabase();
  const clock = { now: SCENARIO_NOW };
  const service = await serviceOn(db, clock);
  try {
    await fillService(service.app, clock);
  } finally {
    await service.close();
  }
  return { db, clock };
}

/** Each table's rows in one order (values as all-rows.ts reads them: both drivers' integers as numbers). */
function sorted(rows: AllRows): Record<string, string[]> {
  return Object.fromEntries([...rows].map(([table, found]) => [table, found.map((row) => JSON.stringify(row)).sort()]));
}

async function tableExists(db: TestDatabase, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: db.location });
  await client.connect();
  try {
    return (await client.query('SELECT to_regclass($1) IS NOT NULL AS found', [name])).rows[0].found as boolean;
  } finally {
    await client.end();
  }
}

describe('copying a SQLite database into PostgreSQL (npm run copy-to-postgres)', { timeout: 180_000 }, () => {
  it('copies every table: each one\'s rows are equal on both sides, and the service on PostgreSQL answers results, feeds and Choose as on SQLite', async () => {
    const { db: source, clock } = await filledSqlite();
    const target = await postgresDatabase();
    try {
      const report = await copySqliteToPostgres({ from: source.location, to: target.location, schema: SCHEMA, batchRows: 50 });
      assert.equal(report.resumed, false);
      const [from, to] = [sorted(await readAllRows(source)), sorted(await readAllRows(target))];
      assert.deepEqual(to, from);
      assert.deepEqual(Object.fromEntries(report.tables.map((t) => [t.table, t.rows])), Object.fromEntries(Object.entries(from).map(([t, rows]) => [t, rows.length])));
      for (const table of ['people', 'sessions', 'invitations', 'access_keys', 'managed_items', 'experiment_phases', 'audit_log', 'events',
        'exposures', 'assignments', 'identities', 'consents', 'catalog_products', 'co_occurrence', 'profile_recent', 'privacy_requests', 'suppressions']) {
        assert.ok((from[table]?.length ?? 0) > 0, `the source has rows in ${table}`);
      }
      assert.equal(await tableExists(target, 'svc_copy_progress'), false, 'the progress is dropped once the copy is checked');

      const answers: Record<string, unknown>[] = [];
      for (const db of [source, target]) {
        const service = await serviceOn(db, { now: clock.now });
        try {
          answers.push(await serviceAnswers(service.app));
        } finally {
          await service.close();
        }
      }
      const sqlite = answers[0]! as { results: { phase: number; units: number }; popular: { products: unknown[] }; recent: { products: unknown[] } };
      assert.equal(sqlite.results.phase, 2);
      assert.ok(sqlite.results.units > 0 && sqlite.popular.products.length > 0 && sqlite.recent.products.length > 0, 'the answers compared hold something');
      assert.deepEqual(answers[1], answers[0]);
    } finally {
      await source.destroy();
      await target.destroy();
    }
  });

  it('moves the identity sequences past the copied ids: on PostgreSQL the service adds exposures, consents and audit entries', async () => {
    const { db: source, clock } = await filledSqlite();
    const target = await postgresDatabase();
    try {
      await copySqliteToPostgres({ from: source.location, to: target.location, schema: SCHEMA });
      const service = await serviceOn(target, clock);
      try {
        const base = '/v1/acme/projects/shop';
        const writes = [
          { method: 'POST', url: `${base}/optimization/choose-api`, headers: BROWSER, payload: { identification: { sourceId: 'web', profileId: 'after' }, names: ['hero'] } },
          { method: 'POST', url: `${base}/consents/data`, headers: BROWSER, payload: { profileId: 'after', action: 'accept', validUntil: clock.now + 3_600_000 } },
          { method: 'PUT', url: `${base}/experiences/later`, headers: ADMIN, payload: { name: 'later', variations: [{ name: 'a', weight: 100, body: {} }] } },
        ] as const;
        for (const write of writes) {
          const res = await service.app.inject({ ...write, payload: write.payload as Record<string, unknown> });
          assert.ok(res.statusCode < 300, `${write.url}: ${res.statusCode} ${res.body}`);
        }
      } finally {
        await service.close();
      }
      const after = await readAllRows(target);
      const ids = (table: string) => after.get(table)!.map((r) => Number(r.id));
      for (const table of ['exposures', 'consents', 'audit_log']) assert.equal(new Set(ids(table)).size, ids(table).length, `${table}'s ids are distinct`);
    } finally {
      await source.destroy();
      await target.destroy();
    }
  });

  it('continues a copy stopped midway where it stopped, and ends with the same rows as the source', async () => {
    const { db: source } = await filledSqlite();
    const target = await postgresDatabase();
    try {
      let batches = 0;
      const stopped = copySqliteToPostgres({
        from: source.location, to: target.location, schema: SCHEMA, batchRows: 20,
        onBatch: () => {
          if (++batches === 12) throw new Error('killed');
        },
      });
      await assert.rejects(stopped, /killed/);
      assert.equal(await tableExists(target, 'svc_copy_progress'), true, 'the progress of the stopped copy is kept');
      const partial = await readAllRows(target);
      const sourceRows = await readAllRows(source);
      const copiedSoFar = [...partial.values()].reduce((n, rows) => n + rows.length, 0);
      const total = [...sourceRows.values()].reduce((n, rows) => n + rows.length, 0);
      assert.ok(copiedSoFar > 0 && copiedSoFar < total, `a part was copied (${copiedSoFar} of ${total} rows)`);

      const written: number[] = [];
      const report = await copySqliteToPostgres({
        from: source.location, to: target.location, schema: SCHEMA, batchRows: 20, onBatch: (_table, rows) => written.push(rows),
      });
      assert.equal(report.resumed, true);
      assert.ok(written.length < Math.ceil(total / 20) + report.tables.length, 'the second run did not start over');
      assert.deepEqual(sorted(await readAllRows(target)), sorted(sourceRows));
      assert.equal(await tableExists(target, 'svc_copy_progress'), false);
    } finally {
      await source.destroy();
      await target.destroy();
    }
  });

  it('continues a copy whose process was killed while a batch waited, and ends with the same rows as the source', async () => {
    const { db: source } = await filledSqlite();
    const target = await postgresDatabase();
    // The target migrated beforehand, so that the command's own migration takes no lock on the table held below.
    await (await target.open()).close();
    const sourceRows = await readAllRows(source);
    // The last table (in the command's order, by name) with rows: the tables before it are copied, its batch waits.
    const withRows = [...sourceRows].filter(([, rows]) => rows.length > 0).map(([table]) => table).sort();
    const [copied, held] = [withRows.at(-2)!, withRows.at(-1)!];
    const holder = new pg.Client({ connectionString: target.location });
    await holder.connect();
    try {
      // SHARE lets the command read the table (its check that the target is empty) but not write to it.
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE "${held}" IN SHARE MODE`);
      const command = spawn(process.execPath, ['--import', 'tsx', 'server/copy-to-postgres.ts', '--from', source.location, '--to', target.location], {
        cwd: new URL('../../../', import.meta.url), stdio: 'ignore',
      });
      const exited = once(command, 'exit');
      for (let polls = 0; ; polls++) {
        assert.ok(polls < 1200, `the command never waited for ${held}`);
        const waiting = await holder.query(
          'SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation WHERE c.relname = $1 AND NOT l.granted', [held],
        );
        if (waiting.rowCount! > 0) break;
        assert.equal(command.exitCode, null, 'the command ended before reaching the held table');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      command.kill('SIGKILL');
      await exited;
      await holder.query('ROLLBACK');
    } finally {
      await holder.end();
    }
    try {
      assert.equal(await tableExists(target, 'svc_copy_progress'), true, 'the progress of the killed copy is kept');
      const partial = await readAllRows(target);
      assert.equal(partial.get(copied)?.length, sourceRows.get(copied)!.length, `${copied} was copied before the kill`);
      assert.equal(partial.get(held)?.length ?? 0, 0, `nothing of ${held} was committed`);
      const report = await copySqliteToPostgres({ from: source.location, to: target.location, schema: SCHEMA });
      assert.equal(report.resumed, true);
      assert.deepEqual(sorted(await readAllRows(target)), sorted(sourceRows));
      assert.equal(await tableExists(target, 'svc_copy_progress'), false);
    } finally {
      await source.destroy();
      await target.destroy();
    }
  });

  it('refuses a target where the service already wrote a row, and leaves it as it was', async () => {
    const { db: source } = await filledSqlite();
    const target = await postgresDatabase();
    try {
      const clock = { now: SCENARIO_NOW };
      const service = await serviceOn(target, clock);
      try {
        const res = await service.app.inject({
          method: 'POST', url: '/v1/acme/projects/shop/consents/data', headers: BROWSER,
          payload: { profileId: 'someone', action: 'accept', validUntil: clock.now + 3_600_000 },
        });
        assert.equal(res.statusCode, 200, res.body);
      } finally {
        await service.close();
      }
      const before = sorted(await readAllRows(target));
      await assert.rejects(
        copySqliteToPostgres({ from: source.location, to: target.location, schema: SCHEMA }),
        /the target database is not empty: consents \(1 rows\)/,
      );
      assert.deepEqual(sorted(await readAllRows(target)), before);
      assert.equal(await tableExists(target, 'svc_copy_progress'), false);
    } finally {
      await source.destroy();
      await target.destroy();
    }
  });
});
