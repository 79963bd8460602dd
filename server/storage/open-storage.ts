import { join } from 'node:path';
import { openPostgresStorage } from './postgres/postgres-storage.js';
import { openSqliteStorage } from './sqlite/sqlite-storage.js';
import type { Migration } from './migrations.js';
import type { Storage } from './storage.js';

/**
 * The storage the environment asks for: PostgreSQL when `databaseUrl` is a postgres URL, otherwise
 * SQLite in `${dataDir}/svc.db`. Migrated to `schema` (the service's: server/schema.ts) when it resolves.
 */
export async function openStorage(options: { databaseUrl?: string; dataDir: string }, schema: readonly Migration[]): Promise<Storage> {
  const url = options.databaseUrl?.trim();
  if (url && /^postgres(ql)?:\/\//.test(url)) return openPostgresStorage(url, schema);
  if (url) throw new Error('DATABASE_URL must start with postgres:// or postgresql://');
  return openSqliteStorage(join(options.dataDir, 'svc.db'), schema);
}
