// Every row of every table of a test database, read through a connection of the test's own (what was committed):
// for checks that no table holds some value any more.
import Database from 'better-sqlite3';
import pg from 'pg';
import type { TestDatabase } from './storage-drivers.js';

/** The migrations' bookkeeping: no person's data. */
const SKIPPED = /^(schema_migrations|svc_migrations|sqlite_)/;

/** Table name → its rows (values as the driver returns them). */
export type AllRows = Map<string, Record<string, unknown>[]>;

export async function readAllRows(db: TestDatabase): Promise<AllRows> {
  const out: AllRows = new Map();
  if (db.name === 'sqlite') {
    const side = new Database(db.location, { readonly: true, fileMustExist: true });
    try {
      const tables = (side.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[])
        .map((t) => t.name).filter((name) => !SKIPPED.test(name));
      for (const name of tables) out.set(name, side.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[]);
    } finally {
      side.close();
    }
    return out;
  }
  // BIGINT (oid 20) as numbers, as SQLite answers them.
  const types = { getTypeParser: ((oid: number, format?: string) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format as 'text'))) as typeof pg.types.getTypeParser };
  const client = new pg.Client({ connectionString: db.location, types });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY table_name",
    );
    for (const { table_name: name } of rows.filter((r) => !SKIPPED.test(r.table_name))) {
      const { rows: found } = await client.query<Record<string, unknown>>(`SELECT * FROM "${name}"`);
      out.set(name, found);
    }
  } finally {
    await client.end();
  }
  return out;
}
