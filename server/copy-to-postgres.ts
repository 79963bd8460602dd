// `npm run copy-to-postgres -- --from ./data/svc.db --to postgres://user@host/svc`: copies every table of the SQLite
// database into an empty PostgreSQL one (storage/copy/copy-sqlite-to-postgres.ts), checks each table's count and
// checksum on both sides, and says so. Stop the service first: what it writes after the copy started is not copied.
// Run again after a failure or a kill, it continues where it stopped.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SCHEMA } from './schema.js';
import { copySqliteToPostgres } from './storage/copy/copy-sqlite-to-postgres.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { from: { type: 'string' }, to: { type: 'string' } } });
  const from = resolve(values.from ?? `${process.env.DATA_DIR ?? './data'}/svc.db`);
  if (!existsSync(from)) throw new Error(`--from: there is no SQLite database at ${from}`);
  const to = values.to ?? '';
  if (!to.startsWith('postgres://') && !to.startsWith('postgresql://')) throw new Error('--to: the PostgreSQL database, postgres://…');
  const started = Date.now();
  const report = await copySqliteToPostgres({ from, to, schema: SCHEMA, log: (line) => process.stdout.write(`${line}\n`) });
  const rows = report.tables.reduce((sum, t) => sum + t.rows, 0);
  for (const t of report.tables) process.stdout.write(`${t.table.padEnd(26)} ${String(t.rows).padStart(10)} rows  sha256 ${t.checksum.slice(0, 16)}\n`);
  process.stdout.write(`Copied ${rows} rows in ${report.tables.length} tables in ${((Date.now() - started) / 1000).toFixed(1)} s; `
    + 'every table has the same count and checksum in both databases. Start the service with DATABASE_URL set to the target.\n');
}

main().catch((error: unknown) => {
  process.stderr.write(`svc copy-to-postgres: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
