// A privacy request's audit entries, on SQLite and PostgreSQL: the service finishes it in the background, and the
// entry it writes then names the person who asked (by the service), not a bare key id.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { ADMIN, PRIVACY } from '../helpers/privacy-api.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const PASSWORD = 'correct horse battery';

for (const driver of DRIVERS) {
  describe(`privacy requests' audit (${driver.name})`, () => {
    const h = useApp(driver, () => {
      const config = testConfig();
      config.organizations.acme!.adminKeys = ['adm1.s3cret'];
      return { config };
    });

    /** A person of acme with the admin role, signed in: their cookie and CSRF token. */
    async function signedIn(email: string): Promise<Record<string, string>> {
      const path = `/v1/acme/people/${encodeURIComponent(email)}`;
      assert.equal((await h.app.inject({ method: 'PUT', url: path, headers: ADMIN, payload: { role: 'admin' } })).statusCode, 201);
      const { url } = (await h.app.inject({ method: 'POST', url: `${path}/invitation`, headers: ADMIN, payload: {} })).json() as { url: string };
      const token = url.slice(url.indexOf('#/invitation/') + '#/invitation/'.length);
      const accepted = await h.app.inject({ method: 'POST', url: '/v1/acme/invitations/accept', payload: { token, password: PASSWORD } });
      assert.equal(accepted.statusCode, 200, accepted.body);
      const cookie = String([accepted.headers['set-cookie']].flat()[0]).split(';')[0]!;
      return { cookie, 'x-csrf-token': accepted.json().csrfToken };
    }

    for (const kind of ['exports', 'erasures'] as const) {
      it(`names the person who asked for ${kind === 'exports' ? 'an export' : 'an erasure'} in each of its entries, the last by the service`, async () => {
        const email = `asker-${kind}@example.com`;
        const person = await signedIn(email);
        const created = await h.app.inject({ method: 'POST', url: `${PRIVACY}/${kind}`, headers: person, payload: { userId: `user-${kind}-7c` } });
        assert.equal(created.statusCode, 202, created.body);
        const { id } = created.json() as { id: string };
        for (let polls = 0; ; polls++) {
          assert.ok(polls < 2000, 'the request did not finish: gave up polling');
          const read = await h.app.inject({ method: 'GET', url: `${PRIVACY}/${kind}/${id}`, headers: ADMIN });
          if (read.json().status === 'done') break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        const audit = await h.app.inject({ method: 'GET', url: `/v1/acme/projects/shop/audit?name=${id}`, headers: ADMIN });
        const entries = audit.json().entries as { action: string; keyId: string; actor: Record<string, unknown> }[];
        assert.deepEqual(entries.map((e) => [e.action, e.keyId, e.actor.type, e.actor.id, e.actor.name, e.actor.role, e.actor.via]), [
          ['update', email, 'person', email, email, 'admin', 'service'],
          ['create', email, 'person', email, email, 'admin', undefined],
        ]);
        assert.equal(entries[0]!.actor.ip, undefined, 'the service\'s work came from no browser');
      });
    }
  });
}
