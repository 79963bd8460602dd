// Invitation links, on SQLite and PostgreSQL: the link opens the project the person will work on, and the page it
// opens asks who it is for (`POST /v1/{org}/invitations/lookup`) without using it up, counted like any sign-in try.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const PASSWORD = 'correct horse battery';
const HOUR = 3600_000;

function config(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = [ADMIN];
  return file;
}

type Answer = { statusCode: number; json(): any; body: string };

for (const driver of DRIVERS) {
  describe(`invitation links (${driver.name})`, () => {
    let clock = Date.parse('2026-11-27T09:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock, trustProxy: 1 }));
    const call = (method: string, url: string, payload?: object, headers: Record<string, string> = {}): Promise<Answer> =>
      h.app.inject({ method: method as 'POST', url, headers, ...(payload ? { payload } : {}) }) as Promise<Answer>;
    const admin = { authorization: `Bearer ${ADMIN}` };
    /** Adds the person (narrowed to `projects` when given) and makes them an invitation: its link. */
    const invite = async (email: string, projects?: string[], query = '', body: object = {}): Promise<string> => {
      const path = `/v1/acme/people/${encodeURIComponent(email)}`;
      assert.ok([200, 201].includes((await call('PUT', path, { role: 'editor', ...(projects ? { projects } : {}) }, admin)).statusCode));
      const made = await call('POST', `${path}/invitation${query}`, body, admin);
      assert.equal(made.statusCode, 201, made.body);
      return made.json().url;
    };
    const tokenOf = (url: string) => /#\/invitation\/([\w-]{43})$/.exec(url)![1]!;
    const lookup = (token: string, ip = '198.51.100.1') => call('POST', '/v1/acme/invitations/lookup', { token }, { 'x-forwarded-for': ip });
    const accept = (token: string) => call('POST', '/v1/acme/invitations/accept', { token, password: PASSWORD });

    it('opens the person\'s first project, else the project the admin asked from, else none', async () => {
      assert.match(await invite('narrow@example.com', ['blog', 'shop'], '?project=shop'), /^\/admin\/\?organization=acme&project=blog#\/invitation\/[\w-]{43}$/);
      assert.match(await invite('whole@example.com', undefined, '?project=shop'), /^\/admin\/\?organization=acme&project=shop#\/invitation\/[\w-]{43}$/);
      assert.match(await invite('plain@example.com'), /^\/admin\/\?organization=acme#\/invitation\/[\w-]{43}$/);
      const unknown = await call('POST', '/v1/acme/people/plain%40example.com/invitation?project=nope', {}, admin);
      assert.equal(unknown.json().error.code, 'invalid_request');
    });

    it('tells who an invitation is for and until when, and leaves it to be accepted', async () => {
      const token = tokenOf(await invite('lea@example.com'));
      for (let i = 0; i < 2; i++) {
        const found = await lookup(token);
        assert.equal(found.statusCode, 200, found.body);
        assert.deepEqual(found.json(), { email: 'lea@example.com', expiresAt: new Date(clock + 168 * HOUR).toISOString() });
      }
      const accepted = await accept(token);
      assert.equal(accepted.statusCode, 200, accepted.body);
      assert.equal(accepted.json().actor.id, 'lea@example.com');
      assert.equal((await lookup(token)).json().error.code, 'invalid_invitation', 'a used invitation');
    });

    it('finds no replaced, expired, removed or malformed invitation, nor one from another site', async () => {
      const replaced = tokenOf(await invite('max@example.com'));
      const current = tokenOf(await invite('max@example.com', undefined, '', { expiresInHours: 1 }));
      const gone = tokenOf(await invite('gone@example.com'));
      await call('DELETE', '/v1/acme/people/gone%40example.com', undefined, admin);
      for (const token of [replaced, gone, 'x'.repeat(43), 'short']) {
        const res = await lookup(token);
        assert.equal(res.statusCode, 400, token);
        assert.equal(res.json().error.code, 'invalid_invitation');
      }
      const elsewhere = await call('POST', '/v1/acme/invitations/lookup', { token: current }, { origin: 'https://evil.example' });
      assert.equal(elsewhere.statusCode, 403, elsewhere.body);
      assert.equal((await lookup(current)).statusCode, 200);
      clock += HOUR;
      assert.equal((await lookup(current)).json().error.code, 'invalid_invitation', 'an expired invitation');
    });

    it('refuses a lookup whose body is not an object with a token string, in the error shape, and leaves the invitation unused', async () => {
      const token = tokenOf(await invite('shape@example.com'));
      for (const body of [[token], { token: 42 }, { token: [token] }, {}]) {
        const res = await call('POST', '/v1/acme/invitations/lookup', body, { 'x-forwarded-for': '198.51.100.9' });
        assert.equal(res.statusCode, 400, JSON.stringify(body));
        assert.equal(typeof res.json().error.code, 'string');
        assert.equal(typeof res.json().error.message, 'string');
      }
      assert.equal((await lookup(token, '198.51.100.10')).json().email, 'shape@example.com');
      assert.equal((await accept(token)).statusCode, 200);
    });

    it('counts lookups that find nobody against the address, as accepting does; one that finds the person is taken back', async () => {
      const token = tokenOf(await invite('ned@example.com'));
      const ip = '203.0.113.40';
      const miss = () => lookup('y'.repeat(43), ip);
      for (let i = 0; i < 9; i++) assert.equal((await miss()).statusCode, 400);
      assert.equal((await lookup(token, ip)).statusCode, 200, 'the ninth miss leaves a try');
      assert.equal((await miss()).statusCode, 400, 'the found one was not counted');
      const limited = await lookup(token, ip);
      assert.equal(limited.statusCode, 429);
      assert.equal(limited.json().error.code, 'rate_limited');
      assert.equal((await call('POST', '/v1/acme/invitations/accept', { token, password: PASSWORD }, { 'x-forwarded-for': ip })).statusCode, 429);
      assert.equal((await lookup(token, '203.0.113.41')).statusCode, 200, 'another address is not held up');
    });
  });
}
