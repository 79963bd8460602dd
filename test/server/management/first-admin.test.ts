// The first admin of an organization, from the command line (`npm run create-admin`): with SVC_ADMIN_PASSWORD set,
// they sign in with it; without, the command prints an invitation link (to a terminal, never a log) they set it with.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { buildApp } from '../../../server/app.js';
import { SCHEMA } from '../../../server/schema.js';
import { openSqliteStorage } from '../../../server/storage/sqlite/sqlite-storage.js';
import { testConfig } from '../helpers/test-config.js';

const run = promisify(execFile);

describe('the first admin (npm run create-admin)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-first-admin-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const configFile = join(dir, 'svc.config.json');
  writeFileSync(configFile, JSON.stringify(testConfig()));
  const createAdmin = (email: string, env: Record<string, string> = {}, more: string[] = []) => run(
    process.execPath, ['--import', 'tsx', 'server/create-admin.ts', '--organization', 'acme', '--email', email, '--url', 'https://svc.example.com', ...more],
    { env: { ...process.env, DATA_DIR: dir, SVC_CONFIG: configFile, ...env } },
  );

  it('makes an admin with the password given, or with an invitation link to set one', async () => {
    const withPassword = await createAdmin('Root@Example.com', { SVC_ADMIN_PASSWORD: 'the first admin password' });
    assert.equal(withPassword.stdout, 'root@example.com is an admin of acme.\n');
    const invited = await createAdmin('second@example.com');
    const link = /^They set their password at (https:\/\/svc\.example\.com\/admin\/\?organization=acme#\/invitation\/([\w-]{43}))$/m.exec(invited.stdout);
    assert.ok(link, invited.stdout);
    const storage = await openSqliteStorage(join(dir, 'svc.db'), SCHEMA);
    const app = await buildApp({ config: testConfig(), storage });
    try {
      const signIn = await app.inject({ method: 'POST', url: '/v1/acme/session', payload: { email: 'root@example.com', password: 'the first admin password' } });
      assert.equal(signIn.statusCode, 200, signIn.body);
      assert.equal(signIn.json().role, 'admin');
      const accepted = await app.inject({ method: 'POST', url: '/v1/acme/invitations/accept', payload: { token: link[2], password: 'second admin password' } });
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.deepEqual([accepted.json().actor.id, accepted.json().role, accepted.json().projects], ['second@example.com', 'admin', null]);
    } finally {
      await app.close();
      await storage.close();
    }
    await assert.rejects(createAdmin('x@example.com', { SVC_ADMIN_PASSWORD: 'short' }), /12 to 128 characters/);
  });

  it('puts the project named with --project in the link, and refuses one the organization does not have', async () => {
    const invited = await createAdmin('third@example.com', {}, ['--project', 'shop']);
    assert.match(invited.stdout, /^They set their password at https:\/\/svc\.example\.com\/admin\/\?organization=acme&project=shop#\/invitation\/[\w-]{43}$/m);
    await assert.rejects(createAdmin('fourth@example.com', {}, ['--project', 'nope']), /--project: one of/);
  });
});
