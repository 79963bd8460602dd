// Everything a database holds, as one string: a refused request must leave it unchanged. Read through a connection
// of the test's own, so what is compared is what was committed.
import Database from 'better-sqlite3';
import pg from 'pg';
import type { TestDatabase } from './storage-drivers.js';

/**
 * Tables left out: `exposures` is written behind the answers a Choose request already got (a refused request never
 * reaches the writer, but an earlier accepted one may flush at any moment), and so are what is derived from it behind
 * them (`exposures_unindexed`, and `experiment_exposure_ids`, which results' indexer fills every second); and the
 * migrations' bookkeeping.
 */
const SKIPPED = /^(exposures|experiment_exposure_ids|schema_migrations|svc_migrations|sqlite_)/;

export interface DatabaseReader {
  fingerprint(): Promise<string>;
  close(): Promise<void>;
}

/** Opens a reader of `db`'s contents; close it after the test. */
export async function openDatabaseReader(db: TestDatabase): Promise<DatabaseReader> {
  if (db.name === 'sqlite') {
    const side = new Database(db.location, { readonly: true, fileMustExist: true });
    const tables = (side.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[])
      .map((t) => t.name).filter((name) => !SKIPPED.test(name));
    const reads = tables.map((name) => side.prepare(`SELECT * FROM "${name}"`));
    return {
      async fingerprint() {
        return tables.map((name, i) => `${name}:${(reads[i]!.all() as unknown[]).map((r) => JSON.stringify(r)).sort().join('|')}`).join('\n');
      },
      async close() {
        side.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: db.location });
  await client.connect();
  const { rows } = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
  );
  const tables = rows.map((r) => r.table_name).filter((name) => !SKIPPED.test(name));
  // One round trip: each table's rows as text, sorted, hashed.
  const query = `SELECT ${tables.map((name) => `(SELECT md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM "${name}" t) AS "${name}"`).join(', ')}`;
  return {
    async fingerprint() {
      const result = await client.query(query);
      return JSON.stringify(result.rows[0]);
    },
    async close() {
      await client.end();
    },
  };
}
