// Team access through the API, on SQLite and PostgreSQL: keys made by an organization's admin (named, with a role,
// narrowed to projects, expiring, revocable on every node), the role each management route needs, people and their
// roles, and who the audit log says made a change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Storage } from '../../../server/storage/storage.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const SHOP = '/v1/acme/projects/shop';

function config(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = [ADMIN];
  file.organizations.other!.adminKeys = ['admother.x'];
  const acme = file.organizations.acme!.projects;
  acme.blog = { ...structuredClone(acme.shop!), apiKeys: ['blogsrv.s3cret'], writeKeys: ['blogweb.p4ss'] };
  acme.shop!.metrics = [{ name: 'orders', event: 'Product ordered', type: 'count' }];
  acme.shop!.experiences = [{ name: 'hero', variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] }];
  return file;
}

type Answer = { statusCode: number; json(): any; body: string };

for (const driver of DRIVERS) {
  describe(`team access (${driver.name})`, () => {
    let clock = Date.parse('2026-11-27T00:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock }));
    const call = (method: string, url: string, key?: string, payload?: unknown): Promise<Answer> => h.app.inject({
      method: method as 'GET', url, headers: key ? { authorization: `Bearer ${key}` } : {}, ...(payload !== undefined ? { payload: payload as object } : {}),
    });
    const makeKey = async (body: object): Promise<string> => {
      const res = await call('POST', '/v1/acme/keys', ADMIN, body);
      assert.equal(res.statusCode, 201, res.body);
      return res.json().key as string;
    };

    it('makes a key shown once and stored by its digest, lists keys without secrets, revokes one at once', async () => {
      const res = await call('POST', '/v1/acme/keys', ADMIN, { name: 'ci deploys', role: 'editor', projects: ['shop'] });
      assert.equal(res.statusCode, 201, res.body);
      const made = res.json();
      assert.match(made.key, /^k[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/);
      assert.deepEqual({ ...made, key: undefined, id: undefined }, {
        key: undefined, id: undefined, name: 'ci deploys', role: 'editor', projects: ['shop'], createdAt: new Date(clock).toISOString(), expiresAt: null,
      });
      const listed = await call('GET', '/v1/acme/keys', ADMIN);
      assert.equal(listed.statusCode, 200);
      assert.ok(!listed.body.includes(made.key.split('.')[1]), 'no secret in the list');
      assert.deepEqual(listed.json().keys.find((k: { id: string }) => k.id === made.id)?.name, 'ci deploys');
      assert.equal((await call('GET', `${SHOP}/experiences`, made.key)).statusCode, 200);
      assert.equal((await call('DELETE', `/v1/acme/keys/${made.id}`, ADMIN)).statusCode, 204);
      assert.equal((await call('GET', `${SHOP}/experiences`, made.key)).statusCode, 401);
      const again = await call('DELETE', `/v1/acme/keys/${made.id}`, ADMIN);
      assert.equal(again.statusCode, 404);
      assert.equal(again.json().error.code, 'key_not_found');
    });

    it('gives each route its role: a viewer reads, an editor writes items, only an admin manages access and privacy', async () => {
      const viewer = await makeKey({ name: 'analyst', role: 'viewer' });
      const editor = await makeKey({ name: 'marketer', role: 'editor' });
      const item = { variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }] };
      for (const url of [`${SHOP}/experiences`, `${SHOP}/experiences/hero`, `${SHOP}/metrics`, `${SHOP}/audit`, `${SHOP}/experiences/hero/results`]) {
        assert.equal((await call('GET', url, viewer)).statusCode, 200, url);
      }
      const refused: [string, string, string, unknown?][] = [
        [viewer, 'PUT', `${SHOP}/experiences/viewer-made`, item], [viewer, 'DELETE', `${SHOP}/metrics/orders`],
        [viewer, 'GET', '/v1/acme/keys'], [editor, 'GET', '/v1/acme/people'], [editor, 'POST', '/v1/acme/keys', { name: 'x', role: 'admin' }],
        [editor, 'POST', `${SHOP}/privacy/erasures`, { userId: 'u1' }],
      ];
      for (const [key, method, url, body] of refused) {
        const res = await call(method, url, key, body);
        assert.equal(res.statusCode, 403, `${method} ${url}: ${res.body}`);
        assert.equal(res.json().error.code, 'role_forbidden');
      }
      assert.equal((await call('PUT', `${SHOP}/experiences/editor-made`, editor, item)).statusCode, 201);
    });

    it('names the key that made a change in the audit log (actor), and the file\'s keys by their id', async () => {
      const editor = await makeKey({ name: 'Mia (marketing)', role: 'editor' });
      const item = { variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }] };
      await call('PUT', `${SHOP}/experiences/audited`, editor, item);
      await call('PUT', `${SHOP}/experiences/audited`, ADMIN, { ...item, status: 'stopped' });
      const entries = (await call('GET', `${SHOP}/audit?limit=2`, ADMIN)).json().entries as { keyId: string; actor: object }[];
      const id = editor.slice(0, editor.indexOf('.'));
      assert.deepEqual(entries.map((e) => [e.keyId, e.actor]), [
        ['adm1', { type: 'key', id: 'adm1', name: 'adm1', role: 'admin', ip: '127.0.0.1', userAgent: 'lightMyRequest' }],
        [id, { type: 'key', id, name: 'Mia (marketing)', role: 'editor', ip: '127.0.0.1', userAgent: 'lightMyRequest' }],
      ]);
      assert.ok(!JSON.stringify(entries).includes(editor.split('.')[1]!), 'no secret in the audit');
    });

    it('tells a caller who it is and what it may do (GET /v1/{org}/me), for any role', async () => {
      const viewer = await makeKey({ name: 'analyst', role: 'viewer', projects: ['shop'] });
      const id = viewer.slice(0, viewer.indexOf('.'));
      assert.deepEqual((await call('GET', '/v1/acme/me', viewer)).json(), { actor: { type: 'key', id, name: 'analyst' }, role: 'viewer', projects: ['shop'] });
      assert.deepEqual((await call('GET', '/v1/acme/me', ADMIN)).json(), { actor: { type: 'key', id: 'adm1', name: 'adm1' }, role: 'admin', projects: null });
      assert.equal((await call('GET', '/v1/acme/me', 'srv1.s3cret')).json().error.code, 'admin_key_required');
      assert.equal((await call('GET', '/v1/acme/me')).statusCode, 401);
    });

    it('narrows a key to its projects and stops it when it expires', async () => {
      const shopOnly = await makeKey({ name: 'shop reader', role: 'viewer', projects: ['shop'] });
      assert.equal((await call('GET', `${SHOP}/experiences`, shopOnly)).statusCode, 200);
      const blog = await call('GET', '/v1/acme/projects/blog/experiences', shopOnly);
      assert.equal(blog.statusCode, 403);
      assert.equal(blog.json().error.code, 'key_not_for_project');
      const orgWide = await call('GET', '/v1/acme/keys', await makeKey({ name: 'shop admin', role: 'admin', projects: ['shop'] }));
      assert.equal(orgWide.json().error.code, 'role_forbidden');
      const brief = await makeKey({ name: 'brief', role: 'viewer', expiresAt: new Date(clock + 60_000).toISOString() });
      assert.equal((await call('GET', `${SHOP}/experiences`, brief)).statusCode, 200);
      clock += 61_000;
      assert.equal((await call('GET', `${SHOP}/experiences`, brief)).statusCode, 401);
    });

    it('refuses bad keys requests with a clear error and stores nothing', async () => {
      const before = (await call('GET', '/v1/acme/keys', ADMIN)).json().keys.length;
      const cases: [unknown, string][] = [
        [{ role: 'viewer' }, 'name'], [{ name: 'x', role: 'owner' }, 'role'], [{ name: 'x', role: 'viewer', projects: ['nope'] }, 'projects[0]'],
        [{ name: 'x', role: 'viewer', projects: [] }, 'projects'], [{ name: 'x', role: 'viewer', expiresAt: 'soon' }, 'expiresAt'],
        [{ name: 'x', role: 'viewer', expiresAt: '2020-01-01' }, 'expiresAt'], [[1], 'body'],
      ];
      for (const [body, field] of cases) {
        const res = await call('POST', '/v1/acme/keys', ADMIN, body);
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(res.json().error.code, 'invalid_request');
        assert.ok(res.json().error.message.startsWith(`${field}:`), res.json().error.message);
      }
      assert.equal((await call('GET', '/v1/acme/keys', ADMIN)).json().keys.length, before);
      assert.equal((await call('GET', '/v1/acme/keys')).statusCode, 401);
      assert.equal((await call('GET', '/v1/acme/keys', 'srv1.s3cret')).json().error.code, 'admin_key_required');
      assert.equal((await call('GET', '/v1/acme/keys', 'admother.x')).json().error.code, 'key_not_for_project');
    });

    it('adds people with a role, changes it, lists and removes them', async () => {
      const put = (email: string, body: unknown) => call('PUT', `/v1/acme/people/${encodeURIComponent(email)}`, ADMIN, body);
      const added = await put('Mia@Example.com', { role: 'editor', projects: ['shop'] });
      assert.equal(added.statusCode, 201, added.body);
      assert.deepEqual({ ...added.json(), createdAt: undefined, updatedAt: undefined }, {
        email: 'mia@example.com', role: 'editor', projects: ['shop'], createdAt: undefined, updatedAt: undefined, password: false, invitedUntil: null,
      });
      assert.equal((await put('mia@example.com', { role: 'viewer' })).statusCode, 200);
      const people = (await call('GET', '/v1/acme/people', ADMIN)).json().people as { email: string; role: string; projects: unknown }[];
      assert.deepEqual(people.map((p) => [p.email, p.role, p.projects]), [['mia@example.com', 'viewer', null]]);
      for (const [email, body] of [['not-an-email', { role: 'viewer' }], ['a@b.co', { role: 'boss' }], ['a@b.co', { role: 'viewer', projects: ['nope'] }]] as const) {
        const res = await put(email, body);
        assert.equal(res.statusCode, 400, res.body);
        assert.equal(res.json().error.code, 'invalid_request');
      }
      assert.equal((await call('DELETE', '/v1/acme/people/mia%40example.com', ADMIN)).statusCode, 204);
      const gone = await call('DELETE', '/v1/acme/people/mia%40example.com', ADMIN);
      assert.equal(gone.json().error.code, 'person_not_found');
      assert.deepEqual((await call('GET', '/v1/acme/people', ADMIN)).json().people, []);
    });

    it('keeps the organization\'s own audit: people and keys added, changed, invited, removed, revoked, by whom', async () => {
      const key = (await call('POST', '/v1/acme/keys', ADMIN, { name: 'audited key', role: 'viewer' })).json();
      await call('PUT', '/v1/acme/people/ola%40example.com', ADMIN, { role: 'viewer' });
      await call('PUT', '/v1/acme/people/ola%40example.com', ADMIN, { role: 'editor', projects: ['shop'] });
      await call('POST', '/v1/acme/people/ola%40example.com/invitation', ADMIN, {});
      await call('DELETE', '/v1/acme/people/ola%40example.com', ADMIN);
      await call('DELETE', `/v1/acme/keys/${key.id}`, ADMIN);
      const res = await call('GET', '/v1/acme/audit?limit=6', ADMIN);
      assert.equal(res.statusCode, 200, res.body);
      const entries = res.json().entries as { action: string; kind: string; name: string; before: unknown; after: unknown; actor: { id: string } }[];
      assert.deepEqual(entries.map((e) => [e.action, e.kind, e.name, e.actor.id]), [
        ['delete', 'key', key.id, 'adm1'], ['delete', 'person', 'ola@example.com', 'adm1'], ['invite', 'person', 'ola@example.com', 'adm1'],
        ['update', 'person', 'ola@example.com', 'adm1'], ['create', 'person', 'ola@example.com', 'adm1'], ['create', 'key', key.id, 'adm1'],
      ]);
      assert.deepEqual([entries[3]!.before, entries[3]!.after], [{ role: 'viewer', projects: null }, { role: 'editor', projects: ['shop'] }]);
      assert.ok(!res.body.includes(key.key.split('.')[1]) && !/invitation\/[\w-]{43}/.test(res.body), 'no secret in the audit');
      const keys = (await call('GET', '/v1/acme/audit?kind=key', ADMIN)).json().entries as { kind: string }[];
      assert.ok(keys.length >= 2 && keys.every((e) => e.kind === 'key'));
      assert.equal((await call('GET', '/v1/acme/audit?kind=experience', ADMIN)).statusCode, 400);
      // Only the organization's admins read it; a project's audit does not show it.
      const editor = await makeKey({ name: 'e', role: 'editor' });
      assert.equal((await call('GET', '/v1/acme/audit', editor)).json().error.code, 'role_forbidden');
      assert.ok(((await call('GET', `${SHOP}/audit?kind=experience`, ADMIN)).json().entries as { kind: string }[]).every((e) => e.kind === 'experience'));
    });
  });

  describe(`a revoked key on two service instances of one database (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    let other: Storage;
    let second: FastifyInstance;
    before(async () => {
      other = await h.db.open();
      second = await buildApp({ config: config(), storage: other });
    });
    after(async () => {
      await second.close();
      await other.close();
    });

    it('stops on the other node within a second', async () => {
      const made = await h.app.inject({ method: 'POST', url: '/v1/acme/keys', headers: { authorization: `Bearer ${ADMIN}` }, payload: { name: 'n', role: 'viewer' } });
      const { key, id } = made.json() as { key: string; id: string };
      const read = () => second.inject({ method: 'GET', url: `${SHOP}/experiences`, headers: { authorization: `Bearer ${key}` } });
      // The other node learns of the new key by the same revision (polled every 250 ms, or NOTIFY): bounded waits.
      let status = 0;
      for (let i = 0; i < 40 && status !== 200; i++) {
        status = (await read()).statusCode;
        if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.equal(status, 200);
      assert.equal((await h.app.inject({ method: 'DELETE', url: `/v1/acme/keys/${id}`, headers: { authorization: `Bearer ${ADMIN}` } })).statusCode, 204);
      const revokedAt = Date.now();
      while ((await read()).statusCode === 200 && Date.now() - revokedAt < 3000) await new Promise((resolve) => setTimeout(resolve, 20));
      assert.equal((await read()).statusCode, 401);
    });
  });
}
