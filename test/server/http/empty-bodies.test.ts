// Clients that send `Content-Type: application/json` on every request (a wrapper's default header) send it on a
// DELETE too, with no body: an empty body where none is needed is no body, on SQLite and PostgreSQL. A body that is
// there and is not JSON is still refused; a route that needs a body still says it is empty.
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { before, describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const SHOP = '/v1/acme/projects/shop';
const JSON_TYPE = { 'content-type': 'application/json' };
const AS_ADMIN = { authorization: `Bearer ${ADMIN}`, ...JSON_TYPE };
const EXPERIENCE = { variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }] };

function config(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = [ADMIN];
  file.organizations.acme!.projects.shop!.metrics = [{ name: 'orders', event: 'Product ordered', type: 'count' }];
  return file;
}

type Answer = { statusCode: number; json(): any; body: string; headers: Record<string, string | string[] | number | undefined> };

for (const driver of DRIVERS) {
  describe(`empty bodies with a JSON content type (${driver.name})`, () => {
    const h = useApp(driver, { config: config() });
    let origin = '';
    before(async () => {
      await h.app.listen({ port: 0, host: '127.0.0.1' });
      origin = `http://127.0.0.1:${(h.app.server.address() as AddressInfo).port}`;
    });
    const call = (method: string, url: string, headers: Record<string, string>, payload?: string): Promise<Answer> =>
      h.app.inject({ method: method as 'GET', url, headers, ...(payload !== undefined ? { payload } : {}) }) as Promise<Answer>;
    const put = async (name: string): Promise<void> => {
      const res = await call('PUT', `${SHOP}/experiences/${name}`, AS_ADMIN, JSON.stringify(EXPERIENCE));
      assert.equal(res.statusCode, 201, res.body);
    };
    const makeKey = async (): Promise<{ id: string; key: string }> => {
      const res = await call('POST', '/v1/acme/keys', AS_ADMIN, JSON.stringify({ name: 'ci', role: 'viewer' }));
      assert.equal(res.statusCode, 201, res.body);
      return res.json();
    };

    it('deletes a managed item, revokes a key and removes a person on a DELETE with the header and no body', async () => {
      await put('header-set');
      const item = await call('DELETE', `${SHOP}/experiences/header-set`, AS_ADMIN);
      assert.equal(item.statusCode, 204, item.body);
      assert.equal((await call('GET', `${SHOP}/experiences/header-set`, AS_ADMIN)).statusCode, 404);
      const metric = await call('DELETE', `${SHOP}/metrics/orders`, AS_ADMIN);
      assert.equal(metric.statusCode, 204, metric.body);

      const key = await makeKey();
      const revoked = await call('DELETE', `/v1/acme/keys/${key.id}`, AS_ADMIN);
      assert.equal(revoked.statusCode, 204, revoked.body);
      assert.equal((await call('GET', `${SHOP}/experiences`, { authorization: `Bearer ${key.key}` })).statusCode, 401);

      assert.equal((await call('PUT', '/v1/acme/people/ana%40example.com', AS_ADMIN, '{"role":"viewer"}')).statusCode, 201);
      const removed = await call('DELETE', '/v1/acme/people/ana%40example.com', AS_ADMIN);
      assert.equal(removed.statusCode, 204, removed.body);
      assert.equal((await call('GET', '/v1/acme/people', AS_ADMIN)).json().people.length, 0);
    });

    it('takes the same DELETE from fetch over a socket (Content-Length: 0), and an empty text/plain one', async () => {
      await put('over-a-socket');
      const res = await fetch(`${origin}${SHOP}/experiences/over-a-socket`, { method: 'DELETE', headers: AS_ADMIN });
      assert.equal(res.status, 204, await res.text());
      const key = await makeKey();
      const plain = await call('DELETE', `/v1/acme/keys/${key.id}`, { ...AS_ADMIN, 'content-type': 'text/plain' }, '');
      assert.equal(plain.statusCode, 204, plain.body);
    });

    it('signs out (here and everywhere) with the header and no body', async () => {
      assert.equal((await call('PUT', '/v1/acme/people/ola%40example.com', AS_ADMIN, '{"role":"editor"}')).statusCode, 201);
      const invited = await call('POST', '/v1/acme/people/ola%40example.com/invitation', AS_ADMIN, '{}');
      const token = /#\/invitation\/([\w-]{43})$/.exec(invited.json().url)![1]!;
      const accepted = await call('POST', '/v1/acme/invitations/accept', JSON_TYPE, JSON.stringify({ token, password: 'correct horse battery' }));
      assert.equal(accepted.statusCode, 200, accepted.body);
      const cookie = [accepted.headers['set-cookie']].flat().find((c) => String(c).startsWith('svc_session='))!.toString().split(';')[0]!;
      const session = { ...JSON_TYPE, cookie, 'x-csrf-token': accepted.json().csrfToken as string };
      assert.equal((await call('DELETE', '/v1/acme/sessions', session)).statusCode, 204);
      assert.equal((await call('GET', '/v1/acme/me', { cookie })).statusCode, 401, 'the session ended');
    });

    it('makes an invitation link (whose body is optional) with the header and no body', async () => {
      assert.equal((await call('PUT', '/v1/acme/people/eva%40example.com', AS_ADMIN, '{"role":"viewer"}')).statusCode, 201);
      const res = await call('POST', '/v1/acme/people/eva%40example.com/invitation', AS_ADMIN);
      assert.equal(res.statusCode, 201, res.body);
      assert.match(res.json().url, /#\/invitation\/[\w-]{43}$/);
    });

    it('answers a path with no route 404 route_not_found, not invalid_json, whatever the method', async () => {
      for (const method of ['DELETE', 'OPTIONS', 'POST', 'PUT']) {
        const res = await call(method, '/nothing-here', AS_ADMIN);
        assert.equal(res.statusCode, 404, `${method}: ${res.body}`);
        assert.equal(res.json().error.code, 'route_not_found');
      }
    });

    it('still refuses a DELETE whose body is there and is not JSON (400 invalid_json), deleting nothing', async () => {
      await put('kept');
      for (const [type, body] of [['application/json', '{'], ['application/json', '   '], ['text/plain', 'not json']] as const) {
        const res = await call('DELETE', `${SHOP}/experiences/kept`, { ...AS_ADMIN, 'content-type': type }, body);
        assert.equal(res.statusCode, 400, `${type} ${JSON.stringify(body)}: ${res.body}`);
        assert.deepEqual(res.json(), { error: { code: 'invalid_json', message: 'The body is not valid JSON.' } });
      }
      assert.equal((await call('GET', `${SHOP}/experiences/kept`, AS_ADMIN)).statusCode, 200);
    });

    it('still says the body is empty where a route needs one (a key, a person, a managed item)', async () => {
      for (const [method, url] of [['POST', '/v1/acme/keys'], ['PUT', '/v1/acme/people/ida%40example.com'], ['PUT', `${SHOP}/experiences/empty`]]) {
        const res = await call(method!, url!, AS_ADMIN);
        assert.equal(res.statusCode, 400, `${method} ${url}: ${res.body}`);
        assert.deepEqual(res.json(), { error: { code: 'invalid_json', message: 'The body is empty; a JSON object is expected.' } });
      }
      assert.equal((await call('GET', `${SHOP}/experiences/empty`, AS_ADMIN)).statusCode, 404);
    });
  });
}
