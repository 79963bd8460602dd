// A database that refuses to record bandit reweights (a trigger raises on every insert), as a full disk or a broken
// table would: for tests that a reweight whose record fails changes nothing else.
import { op } from '../../../server/storage/sql-program.js';
import type { Storage } from '../../../server/storage/storage.js';

/** Installs the refusal on this database; answers what lifts it. */
export async function refuseReweights(storage: Storage, driver: 'sqlite' | 'postgres'): Promise<() => Promise<void>> {
  const refuse = driver === 'sqlite'
    ? ["CREATE TRIGGER refuse_reweights BEFORE INSERT ON bandit_reweights BEGIN SELECT RAISE(ABORT, 'reweights refused'); END"]
    : [
      "CREATE FUNCTION refuse_reweights() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'reweights refused'; END $$ LANGUAGE plpgsql",
      'CREATE TRIGGER refuse_reweights BEFORE INSERT ON bandit_reweights FOR EACH ROW EXECUTE FUNCTION refuse_reweights()',
    ];
  const allow = driver === 'sqlite'
    ? ['DROP TRIGGER refuse_reweights']
    : ['DROP TRIGGER refuse_reweights ON bandit_reweights', 'DROP FUNCTION refuse_reweights()'];
  const run = (statements: string[]) => storage.run(function* () {
    for (const sql of statements) yield op(sql);
  });
  await run(refuse);
  return () => run(allow);
}
