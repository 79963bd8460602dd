import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openPostgresStorage } from '../../../server/storage/postgres/postgres-storage.js';
import { openSqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import type { Storage } from '../../../server/storage/storage.js';
import { SCHEMA } from '../../../server/schema.js';

export const PG_ADMIN_URL = process.env.SVC_TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** One database for a test file: `open()` may be called again after closing (a restart on the same data). */
export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  /** The SQLite file or the PostgreSQL connection URL (tests that prepare a database before open()). */
  location: string;
  open(): Promise<Storage>;
  /** Removes the database (temp dir / DROP DATABASE). */
  destroy(): Promise<void>;
}

export function sqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
  const file = join(dir, 'svc.db');
  return {
    name: 'sqlite',
    location: file,
    open: () => openSqliteStorage(file, SCHEMA),
    destroy: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

export async function postgresDatabase(options: { icuLocale?: string } = {}): Promise<TestDatabase> {
  const dbName = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  try {
    // With an ICU locale, text sorts by that language's rules unless a column says otherwise (as a managed database
    // created with defaults other than C may).
    const locale = options.icuLocale
      ? ` TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE ${pg.escapeLiteral(options.icuLocale)} LOCALE 'C.UTF-8'`
      : '';
    await admin.query(`CREATE DATABASE ${dbName}${locale}`);
  } finally {
    await admin.end();
  }
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${dbName}`;
  return {
    name: 'postgres',
    location: url.toString(),
    open: () => openPostgresStorage(url.toString(), SCHEMA),
    destroy: async () => {
      const client = new pg.Client({ connectionString: PG_ADMIN_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Makes a fresh database for a suite. */
export interface TestDriver {
  name: 'sqlite' | 'postgres';
  create: () => Promise<TestDatabase>;
}

/** SQLite alone, for suites where nothing depends on the driver. */
export const SQLITE_DRIVER: TestDriver = { name: 'sqlite', create: async () => sqliteDatabase() };

/** PostgreSQL alone, for suites about what only it does (several connections writing at once, its triggers). */
export const POSTGRES_DRIVER: TestDriver = { name: 'postgres', create: postgresDatabase };

/** Both drivers: the same suites run against each. */
export const DRIVERS: TestDriver[] = [SQLITE_DRIVER, POSTGRES_DRIVER];
