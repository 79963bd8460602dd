// `npm run create-admin -- --organization acme --email alice@example.com [--project shop]`: makes the person an admin of the
// organization, in the database the service uses (DATA_DIR or DATABASE_URL, as for `npm start`). With
// SVC_ADMIN_PASSWORD set, that is their password; otherwise it prints an invitation link to set one (valid 7 days),
// so no password is typed on a command line or kept in a shell's history.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { loadConfigFile } from './config/load-config.js';
import { SCHEMA } from './schema.js';
import { makeAdmin } from './management/first-admin.js';
import { emailOf } from './sessions/person-input.js';
import { openStorage } from './storage/open-storage.js';

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { organization: { type: 'string' }, email: { type: 'string' }, project: { type: 'string' }, url: { type: 'string' } } });
  const config = await loadConfigFile(resolve(process.env.SVC_CONFIG ?? './svc.config.json'));
  const orgs = Object.keys(config.organizations);
  const org = values.organization ?? (orgs.length === 1 ? orgs[0]! : '');
  if (!Object.hasOwn(config.organizations, org)) throw new Error(`--organization: one of ${orgs.join(', ')}`);
  if (values.email === undefined) throw new Error('--email: the new admin\'s email address');
  const email = emailOf(values.email);
  const projects = Object.keys(config.organizations[org]!.projects);
  if (values.project !== undefined && !projects.includes(values.project)) throw new Error(`--project: one of ${projects.join(', ')}`);
  const storage = await openStorage({
    dataDir: resolve(process.env.DATA_DIR ?? './data'),
    ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
  }, SCHEMA);
  try {
    const outcome = await makeAdmin(storage, { org, email, password: process.env.SVC_ADMIN_PASSWORD ?? null, ...(values.project === undefined ? {} : { project: values.project }) }, Date.now());
    process.stdout.write(`${email} is an admin of ${org}${outcome.changed ? '' : ' (already)'}.\n`);
    if (outcome.invitation) {
      const base = (values.url ?? `http://localhost:${process.env.PORT ?? 8787}`).replace(/\/+$/, '');
      process.stdout.write(`They set their password at ${base}${outcome.invitation}\n`);
    }
  } finally {
    await storage.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`svc create-admin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
