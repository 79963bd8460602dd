// A database as an older version of the service left it: the migrations up to a version, applied as that service
// applied them, then whatever rows a test writes with SQL of that time.
import Database from 'better-sqlite3';
import pg from 'pg';
import { SCHEMA } from '../../../server/schema.js';
import { migrationSteps } from '../../../server/storage/migrations.js';
import type { TestDatabase } from './storage-drivers.js';

export /** Applies migrations up to and including `version`, as a service of that version would have. */
async function migrateUpTo(db: TestDatabase, version: number): Promise<(sql: string) => Promise<void>> {
  const steps = migrationSteps(SCHEMA).filter((m) => m.version <= version);
  if (db.name === 'sqlite') {
    const conn = new Database(db.location);
    conn.exec('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    for (const m of steps) {
      for (const part of m.parts) conn.exec(part.sqlite);
      conn.prepare('INSERT INTO schema_migrations VALUES (?, ?, ?)').run(m.version, m.name, Date.now());
    }
    conn.close();
    return async (sql) => {
      const c = new Database(db.location);
      c.exec(sql);
      c.close();
    };
  }
  const client = new pg.Client({ connectionString: db.location });
  await client.connect();
  try {
    await client.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)');
    for (const m of steps) {
      for (const part of m.parts) await client.query(part.postgres);
      await client.query('INSERT INTO schema_migrations VALUES ($1, $2, $3)', [m.version, m.name, Date.now()]);
    }
  } finally {
    await client.end();
  }
  return async (sql) => {
    const c = new pg.Client({ connectionString: db.location });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
}
