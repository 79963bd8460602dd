// Signing in to the console, on SQLite and PostgreSQL: people with passwords (set through invitation links), the
// session cookie (HttpOnly, SameSite=Lax, Secure over https, a new token at every sign-in), CSRF on every unsafe
// method, idle and absolute timeouts, sign out (here and everywhere), a removed person or revoked key stopping at the
// next request, brute force slowed down, and no secret in the log, the audit or the database.
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { op } from '../../../server/storage/sql-program.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
const SHOP = '/v1/acme/projects/shop';
const PASSWORD = 'correct horse battery';
const HOUR = 3600_000;

function config(): ServiceConfigFile {
  const file = testConfig();
  file.organizations.acme!.adminKeys = [ADMIN];
  file.organizations.other!.adminKeys = ['admother.x'];
  file.organizations.acme!.projects.shop!.experiences = [];
  return file;
}

type Answer = { statusCode: number; json(): any; body: string; headers: Record<string, string | string[] | number | undefined> };

const logLines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    logLines.push(String(chunk));
    done();
  },
});

/** The session cookie a response sets: its token and attributes. */
function setCookie(res: Answer): { token: string; attributes: string[] } {
  const header = res.headers['set-cookie'];
  const line = [header].flat().find((c) => typeof c === 'string' && c.startsWith('svc_session=')) as string | undefined;
  assert.ok(line, `no session cookie in ${JSON.stringify(header)}`);
  const [pair, ...attributes] = line.split(';').map((s) => s.trim());
  return { token: pair!.slice('svc_session='.length), attributes };
}

for (const driver of DRIVERS) {
  describe(`console sessions (${driver.name})`, () => {
    let clock = Date.parse('2026-11-27T09:00:00.000Z');
    const h = useApp(driver, () => ({ config: config(), now: () => clock, trustProxy: 1, logger: { level: 'info', stream: logStream } }));
    type Caller = { key?: string; cookie?: string; csrf?: string; headers?: Record<string, string> };
    const call = (method: string, url: string, who: Caller = {}, payload?: unknown): Promise<Answer> => h.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...(who.key ? { authorization: `Bearer ${who.key}` } : {}),
        ...(who.cookie ? { cookie: `svc_session=${who.cookie}` } : {}),
        ...(who.csrf ? { 'x-csrf-token': who.csrf } : {}),
        ...who.headers,
      },
      ...(payload !== undefined ? { payload: payload as object } : {}),
    }) as Promise<Answer>;

    /** A person added by the admin key with a role, who set their password from the invitation: their session. */
    const person = async (email: string, role: string, projects?: string[]): Promise<{ cookie: string; csrf: string; email: string }> => {
      const added = await call('PUT', `/v1/acme/people/${encodeURIComponent(email)}`, { key: ADMIN }, { role, ...(projects ? { projects } : {}) });
      assert.ok([200, 201].includes(added.statusCode), added.body);
      const invited = await call('POST', `/v1/acme/people/${encodeURIComponent(email)}/invitation`, { key: ADMIN }, {});
      assert.equal(invited.statusCode, 201, invited.body);
      const token = /#\/invitation\/([\w-]{43})$/.exec(invited.json().url)![1];
      const accepted = await call('POST', '/v1/acme/invitations/accept', {}, { token, password: PASSWORD });
      assert.equal(accepted.statusCode, 200, accepted.body);
      return { cookie: setCookie(accepted).token, csrf: accepted.json().csrfToken, email };
    };
    const signIn = (email: string, password: string, extra: Caller = {}) => call('POST', '/v1/acme/session', extra, { email, password });
    const experience = { variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }] };

    it('signs a person in with a password: an HttpOnly, SameSite=Lax cookie (Secure over https) and who they are', async () => {
      await person('ana@example.com', 'editor');
      const res = await signIn('Ana@Example.com', PASSWORD);
      assert.equal(res.statusCode, 200, res.body);
      const { token, attributes } = setCookie(res);
      assert.match(token, /^[\w-]{43}$/);
      assert.deepEqual(attributes.filter((a) => !a.startsWith('Max-Age')), ['Path=/v1/', 'HttpOnly', 'SameSite=Lax']);
      assert.equal(attributes.find((a) => a.startsWith('Max-Age')), `Max-Age=${12 * 3600}`);
      const me = res.json();
      assert.deepEqual({ ...me, csrfToken: typeof me.csrfToken }, {
        actor: { type: 'person', id: 'ana@example.com', name: 'ana@example.com' }, role: 'editor', projects: null,
        csrfToken: 'string', expiresAt: new Date(clock + 12 * HOUR).toISOString(), password: true,
      });
      assert.deepEqual((await call('GET', '/v1/acme/me', { cookie: token })).json().actor.id, 'ana@example.com');
      assert.ok(!res.body.includes(token), 'the token is in the cookie only, never in an answer or a URL');
      // Over https: Secure, and the __Host- prefix (this host only, Path=/); a plain-named cookie is not read there.
      const https = { 'x-forwarded-proto': 'https' };
      const overHttps = await signIn('ana@example.com', PASSWORD, { headers: https });
      const line = String([overHttps.headers['set-cookie']].flat()[0]);
      assert.match(line, /^__Host-svc_session=[\w-]{43}; Path=\/; Max-Age=43200; HttpOnly; SameSite=Lax; Secure$/);
      const secureToken = /=([\w-]{43});/.exec(line)![1];
      const hostCookie = await call('GET', '/v1/acme/me', { headers: { ...https, cookie: `__Host-svc_session=${secureToken}` } });
      assert.equal(hostCookie.statusCode, 200, hostCookie.body);
      assert.equal((await call('GET', '/v1/acme/me', { headers: { ...https, cookie: `svc_session=${secureToken}` } })).statusCode, 401);
    });

    it('answers a wrong password and an unknown email alike (both hashed), and stores only a scrypt hash', async (t) => {
      await person('ben@example.com', 'viewer');
      const scrypt = t.mock.method(crypto, 'scrypt');
      const hashed = async <T>(what: string, send: () => Promise<T>): Promise<T> => {
        scrypt.mock.resetCalls();
        const res = await send();
        assert.equal(scrypt.mock.calls.filter((c) => (c.arguments[3] as { N?: number }).N === 2 ** 15).length >= 1, true, `${what} is hashed`);
        return res;
      };
      const wrong = await hashed('a wrong password', () => signIn('ben@example.com', 'not the password'));
      // An unknown email is hashed against a decoy: it costs the same, so its answer's time does not tell it apart.
      const unknown = await hashed('an unknown email', () => signIn('nobody@example.com', PASSWORD));
      const otherOrg = await hashed('an unknown organization', () => call('POST', '/v1/nope/session', {}, { email: 'ben@example.com', password: PASSWORD }));
      for (const res of [wrong, unknown, otherOrg]) {
        assert.equal(res.statusCode, 401, res.body);
        assert.deepEqual(res.json(), { error: { code: 'invalid_credentials', message: 'The email or password is wrong.' } });
        assert.equal(res.headers['set-cookie'], undefined);
      }
      const rows = await h.storage.run(function* () {
        return (yield op('SELECT password_hash FROM people WHERE org = ? AND email = ?', 'acme', 'ben@example.com')).rows;
      });
      const hash = String(rows[0]!.password_hash);
      assert.match(hash, /^scrypt\$32768\$8\$3\$[\w-]{22}\$[\w-]{43}$/);
      assert.ok(!hash.includes(PASSWORD));
    });

    it('slows down password guessing: past 10 failures an account is refused (429, Retry-After) until the window passes', async () => {
      await person('cy@example.com', 'viewer');
      for (let i = 0; i < 10; i++) assert.equal((await signIn('cy@example.com', `guess number ${i}`)).statusCode, 401);
      const limited = await signIn('cy@example.com', PASSWORD);
      assert.equal(limited.statusCode, 429, limited.body);
      assert.equal(limited.json().error.code, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 15 * 60);
      clock += 15 * 60_000 + 1;
      assert.equal((await signIn('cy@example.com', PASSWORD)).statusCode, 200);
    });

    it('counts a guess before checking it: of 30 wrong passwords for one account at once, at most 10 are answered 401, the rest 429', async () => {
      await person('cal@example.com', 'viewer');
      const from = { headers: { 'x-forwarded-for': '198.51.100.1' } };
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn('cal@example.com', `guess number ${i}`, from)));
      const codes = answers.map((a) => a.statusCode);
      assert.ok(codes.filter((c) => c === 401).length <= 10, codes.join(' '));
      assert.ok(codes.filter((c) => c === 401).length >= 1, codes.join(' '));
      assert.deepEqual(codes.filter((c) => c !== 401 && c !== 429), [], codes.join(' '));
      for (const refused of answers.filter((a) => a.statusCode === 429)) {
        assert.equal(refused.json().error.code, 'rate_limited');
        assert.ok(Number(refused.headers['retry-after']) >= 1, 'Retry-After');
      }
    });

    it('bounds the guesses in flight from one address across accounts: of 30 wrong passwords for 30 people at once, at most 4 are answered 401, the rest 429', async () => {
      const from = { headers: { 'x-forwarded-for': '198.51.100.2' } };
      const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => signIn(`many${i}@example.com`, `guess number ${i}`, from)));
      const codes = answers.map((a) => a.statusCode);
      // Each guess keeps a core busy with scrypt: one address gets only a few at a time, whatever the accounts.
      assert.ok(codes.filter((c) => c === 401).length <= 4, codes.join(' '));
      assert.ok(codes.filter((c) => c === 401).length >= 1, codes.join(' '));
      assert.deepEqual(codes.filter((c) => c !== 401 && c !== 429), [], codes.join(' '));
    });

    it('refuses an address past 50 failures in 15 minutes, whichever accounts it tries, until the window passes; other addresses go on', async () => {
      await person('dia@example.com', 'viewer');
      const from = { headers: { 'x-forwarded-for': '198.51.100.3' } };
      for (let i = 0; i < 50; i++) assert.equal((await signIn(`guess${i}@example.com`, 'not the password', from)).statusCode, 401, `guess ${i}`);
      const limited = await signIn('dia@example.com', PASSWORD, from);
      assert.equal(limited.statusCode, 429, limited.body);
      assert.equal(limited.json().error.code, 'rate_limited');
      assert.ok(Number(limited.headers['retry-after']) > 0 && Number(limited.headers['retry-after']) <= 15 * 60);
      assert.equal((await signIn('dia@example.com', PASSWORD, { headers: { 'x-forwarded-for': '198.51.100.4' } })).statusCode, 200);
      clock += 15 * 60_000 + 1;
      assert.equal((await signIn('dia@example.com', PASSWORD, from)).statusCode, 200);
    });

    it('refuses an unsafe request with the cookie but without the CSRF token, or from another origin; nothing is stored', async () => {
      const ed = await person('dee@example.com', 'editor');
      const put = (who: Caller) => call('PUT', `${SHOP}/experiences/csrf-probe`, who, experience);
      for (const who of [{ cookie: ed.cookie }, { cookie: ed.cookie, csrf: 'x'.repeat(43) }, { cookie: ed.cookie, csrf: ed.csrf, headers: { origin: 'https://evil.example' } }]) {
        const res = await put(who);
        assert.equal(res.statusCode, 403, res.body);
        assert.equal(res.json().error.code, 'csrf_failed');
      }
      assert.equal((await call('GET', `${SHOP}/experiences/csrf-probe`, { key: ADMIN })).statusCode, 404);
      const same = await put({ cookie: ed.cookie, csrf: ed.csrf, headers: { origin: 'http://localhost:80', host: 'localhost:80' } });
      assert.equal(same.statusCode, 201, same.body);
      // Reads need no token; a key in the Authorization header is no ambient credential and needs none either.
      assert.equal((await call('GET', `${SHOP}/experiences`, { cookie: ed.cookie })).statusCode, 200);
      assert.equal((await call('DELETE', `${SHOP}/experiences/csrf-probe`, { key: ADMIN })).statusCode, 204);
    });

    it('signs no one in from another site\'s page (login CSRF): sign-in and invitations need the service\'s own origin', async () => {
      await person('otto@example.com', 'viewer');
      const evil = { headers: { origin: 'https://evil.example' } };
      const res = await signIn('otto@example.com', PASSWORD, evil);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(res.json().error.code, 'csrf_failed');
      assert.equal(res.headers['set-cookie'], undefined);
      assert.equal((await call('POST', '/v1/acme/invitations/accept', evil, { token: 'x'.repeat(43), password: PASSWORD })).json().error.code, 'csrf_failed');
      assert.equal((await signIn('otto@example.com', PASSWORD, { headers: { origin: 'http://localhost:80', host: 'localhost:80' } })).statusCode, 200);
    });

    it('never takes a token it did not issue, and gives a new one at every sign-in (no session fixation)', async () => {
      await person('eve@example.com', 'viewer');
      const planted = 'p'.repeat(43);
      const refused = await call('GET', '/v1/acme/me', { cookie: planted });
      assert.equal(refused.statusCode, 401);
      assert.equal(refused.json().error.code, 'session_expired');
      assert.match(String(refused.headers['set-cookie']), /svc_session=; .*Max-Age=0/);
      const first = setCookie(await signIn('eve@example.com', PASSWORD, { cookie: planted })).token;
      assert.notEqual(first, planted);
      const second = setCookie(await signIn('eve@example.com', PASSWORD, { cookie: first })).token;
      assert.notEqual(second, first);
      assert.equal((await call('GET', '/v1/acme/me', { cookie: first })).statusCode, 401, 'the session signed in over is ended');
      assert.equal((await call('GET', '/v1/acme/me', { cookie: second })).statusCode, 200);
    });

    it('ends a session after 60 idle minutes, and 12 hours after sign-in however busy', async () => {
      const idle = await person('fay@example.com', 'viewer');
      clock += 59 * 60_000;
      assert.equal((await call('GET', '/v1/acme/me', { cookie: idle.cookie })).statusCode, 200);
      clock += 59 * 60_000;
      assert.equal((await call('GET', '/v1/acme/me', { cookie: idle.cookie })).statusCode, 200, 'use keeps it alive');
      clock += 61 * 60_000;
      assert.equal((await call('GET', '/v1/acme/me', { cookie: idle.cookie })).json().error.code, 'session_expired');
      const busy = setCookie(await signIn('fay@example.com', PASSWORD)).token;
      for (let used = 0; used < 12 * HOUR - 30 * 60_000; used += 30 * 60_000) {
        clock += 30 * 60_000;
        assert.equal((await call('GET', '/v1/acme/me', { cookie: busy })).statusCode, 200);
      }
      clock += 30 * 60_000;
      assert.equal((await call('GET', '/v1/acme/me', { cookie: busy })).statusCode, 401);
    });

    it('signs out this browser, or everywhere', async () => {
      const a = await person('gus@example.com', 'viewer');
      const b = setCookie(await signIn('gus@example.com', PASSWORD)).token;
      const c = setCookie(await signIn('gus@example.com', PASSWORD)).token;
      assert.equal((await call('DELETE', '/v1/acme/session', { cookie: a.cookie })).statusCode, 403, 'sign out needs the CSRF token too');
      assert.equal((await call('DELETE', '/v1/acme/session', a)).statusCode, 204);
      assert.equal((await call('GET', '/v1/acme/me', { cookie: a.cookie })).statusCode, 401);
      assert.equal((await call('GET', '/v1/acme/me', { cookie: b })).statusCode, 200);
      const bCsrf = (await call('GET', '/v1/acme/me', { cookie: b })).json().csrfToken;
      assert.equal((await call('DELETE', '/v1/acme/sessions', { cookie: b, csrf: bCsrf })).statusCode, 204);
      for (const token of [b, c]) assert.equal((await call('GET', '/v1/acme/me', { cookie: token })).statusCode, 401);
    });

    it('stops a removed person\'s session at their next request, and a revoked key\'s', async () => {
      const gone = await person('hal@example.com', 'admin');
      assert.equal((await call('GET', '/v1/acme/people', { cookie: gone.cookie })).statusCode, 200);
      assert.equal((await call('DELETE', '/v1/acme/people/hal%40example.com', { key: ADMIN })).statusCode, 204);
      assert.equal((await call('GET', `${SHOP}/experiences`, { cookie: gone.cookie })).json().error.code, 'session_expired');
      const key = (await call('POST', '/v1/acme/keys', { key: ADMIN }, { name: 'kiosk', role: 'viewer' })).json();
      const keySession = await call('POST', '/v1/acme/session', { key: key.key }, {});
      assert.equal(keySession.statusCode, 200, keySession.body);
      assert.deepEqual(keySession.json().actor, { type: 'key', id: key.id, name: 'kiosk' });
      const cookie = setCookie(keySession).token;
      assert.equal((await call('GET', `${SHOP}/experiences`, { cookie })).statusCode, 200);
      assert.equal((await call('DELETE', `/v1/acme/keys/${key.id}`, { key: ADMIN })).statusCode, 204);
      assert.equal((await call('GET', `${SHOP}/experiences`, { cookie })).json().error.code, 'session_expired');
    });

    it('holds a person to their role and projects: a viewer changes nothing, an editor manages no people', async () => {
      const viewer = await person('ivy@example.com', 'viewer');
      const editor = await person('jo@example.com', 'editor', ['blog']);
      const write = await call('PUT', `${SHOP}/experiences/by-viewer`, viewer, experience);
      assert.equal(write.statusCode, 403);
      assert.equal(write.json().error.code, 'role_forbidden');
      assert.match(write.json().error.message, /you \("ivy@example.com"\) are viewer/);
      assert.equal((await call('GET', '/v1/acme/people', editor)).json().error.code, 'role_forbidden');
      assert.equal((await call('GET', `${SHOP}/experiences`, editor)).json().error.code, 'key_not_for_project');
      assert.equal((await call('GET', '/v1/other/me', viewer)).statusCode, 403, 'a session is its organization\'s only');
    });

    it('names the person, their role and where they were in the audit, and keeps no secret there or in the log', async () => {
      logLines.length = 0;
      const kim = await person('kim@example.com', 'editor');
      const res = await call('PUT', `${SHOP}/experiences/by-kim`, { ...kim, headers: { 'user-agent': 'Mozilla/5.0 test', 'x-forwarded-for': '203.0.113.7' } }, experience);
      assert.equal(res.statusCode, 201, res.body);
      const entries = (await call('GET', `${SHOP}/audit?actor=kim@example.com`, { key: ADMIN })).json().entries;
      assert.equal(entries.length, 1);
      assert.deepEqual(entries[0].actor, { type: 'person', id: 'kim@example.com', name: 'kim@example.com', role: 'editor', ip: '203.0.113.7', userAgent: 'Mozilla/5.0 test' });
      const everything = JSON.stringify(entries) + logLines.join('');
      for (const secret of [PASSWORD, kim.cookie, kim.csrf]) assert.ok(!everything.includes(secret), 'a secret leaked');
      assert.ok(logLines.length > 0, 'the log was written');
    });

    it('changes a password: the current one is checked, the person\'s other sessions end, this one stays', async () => {
      const here = await person('lu@example.com', 'viewer');
      const elsewhere = setCookie(await signIn('lu@example.com', PASSWORD)).token;
      const wrong = await call('PUT', '/v1/acme/me/password', here, { currentPassword: 'nope nope nope', password: 'a new long password' });
      assert.equal(wrong.json().error.code, 'wrong_password');
      const short = await call('PUT', '/v1/acme/me/password', here, { currentPassword: PASSWORD, password: 'short' });
      assert.equal(short.statusCode, 400);
      assert.equal((await call('PUT', '/v1/acme/me/password', here, { currentPassword: PASSWORD, password: 'a new long password' })).statusCode, 204);
      assert.equal((await call('GET', '/v1/acme/me', { cookie: here.cookie })).statusCode, 200);
      assert.equal((await call('GET', '/v1/acme/me', { cookie: elsewhere })).statusCode, 401);
      assert.equal((await signIn('lu@example.com', PASSWORD)).statusCode, 401);
      assert.equal((await signIn('lu@example.com', 'a new long password')).statusCode, 200);
    });

    it('uses an invitation once, and never an expired or replaced one', async () => {
      await call('PUT', '/v1/acme/people/mo%40example.com', { key: ADMIN }, { role: 'viewer' });
      const invite = async (body: object = {}) => /([\w-]{43})$/.exec((await call('POST', '/v1/acme/people/mo%40example.com/invitation', { key: ADMIN }, body)).json().url)![1]!;
      const accept = (token: string) => call('POST', '/v1/acme/invitations/accept', {}, { token, password: PASSWORD });
      const replaced = await invite();
      const current = await invite();
      assert.equal((await accept(replaced)).json().error.code, 'invalid_invitation');
      const people = (await call('GET', '/v1/acme/people', { key: ADMIN })).json().people;
      assert.equal(people.find((p: { email: string }) => p.email === 'mo@example.com').invitedUntil, new Date(clock + 168 * HOUR).toISOString());
      assert.equal((await accept(current)).statusCode, 200);
      assert.equal((await accept(current)).json().error.code, 'invalid_invitation');
      const late = await invite({ expiresInHours: 1 });
      clock += HOUR;
      assert.equal((await accept(late)).json().error.code, 'invalid_invitation');
      const unknown = await call('POST', '/v1/acme/people/nobody%40example.com/invitation', { key: ADMIN }, {});
      assert.equal(unknown.json().error.code, 'person_not_found');
    });

    it('filters the audit by who, what and when, and the database refuses to change or remove an entry (UPDATE, DELETE, TRUNCATE)', async () => {
      const nia = await person('nia@example.com', 'editor');
      await call('PUT', `${SHOP}/experiences/filtered`, nia, experience);
      clock += 24 * HOUR;
      await call('PUT', `${SHOP}/experiences/filtered`, { key: ADMIN }, { ...experience, status: 'stopped' });
      const read = async (query: string) => (await call('GET', `${SHOP}/audit?${query}`, { key: ADMIN })).json().entries.map((e: { keyId: string; name: string }) => e.keyId);
      assert.deepEqual(await read('name=filtered'), ['adm1', 'nia@example.com']);
      assert.deepEqual(await read('name=filtered&actor=NIA@example.com'), ['nia@example.com']);
      const day = new Date(clock).toISOString().slice(0, 10);
      assert.deepEqual(await read(`name=filtered&since=${day}`), ['adm1']);
      assert.deepEqual(await read(`name=filtered&until=${new Date(clock - 24 * HOUR).toISOString().slice(0, 10)}`), ['nia@example.com']);
      assert.deepEqual(await read('kind=metric&name=filtered'), []);
      assert.equal((await call('GET', `${SHOP}/audit?since=yesterday`, { key: ADMIN })).statusCode, 400);
      for (const sql of ['UPDATE audit_log SET key_id = ?', 'DELETE FROM audit_log WHERE key_id = ?']) {
        await assert.rejects(h.storage.transaction(function* () {
          yield op(sql + (sql.startsWith('UPDATE') ? ' WHERE key_id = ?' : ''), ...(sql.startsWith('UPDATE') ? ['x', 'adm1'] : ['adm1']));
        }), /append-only/);
      }
      // Emptying the table: SQLite has no TRUNCATE (its DELETE without WHERE, which a trigger keeps from taking its
      // faster path); PostgreSQL's TRUNCATE skips row triggers and needs its own.
      const empty = h.db.name === 'postgres' ? ['DELETE FROM audit_log', 'TRUNCATE audit_log'] : ['DELETE FROM audit_log'];
      for (const sql of empty) await assert.rejects(h.storage.transaction(function* () { yield op(sql); }), /append-only/, sql);
      assert.deepEqual(await read('name=filtered'), ['adm1', 'nia@example.com']);
    });

    it('refuses bad input to every sign-in route with a 400 in the error shape, and changes nothing', async () => {
      const pia = await person('pia@example.com', 'viewer');
      const cases: [string, string, Caller, unknown, string][] = [
        ['POST', '/v1/acme/session', {}, [1, 2], 'invalid_request'],
        ['POST', '/v1/acme/session', {}, { email: 'not-an-email', password: PASSWORD }, 'invalid_request'],
        ['POST', '/v1/acme/session', {}, { email: 'pia@example.com' }, 'invalid_request'],
        ['POST', '/v1/acme/invitations/accept', {}, { token: 'short', password: PASSWORD }, 'invalid_invitation'],
        ['POST', '/v1/acme/invitations/accept', {}, { token: 'x'.repeat(43), password: 'short' }, 'invalid_request'],
        ['PUT', '/v1/acme/me/password', pia, { currentPassword: PASSWORD, password: 'a'.repeat(20) }, 'invalid_request'],
        ['PUT', '/v1/acme/me/password', pia, ['not an object'], 'invalid_request'],
        ['POST', '/v1/acme/people/pia%40example.com/invitation', { key: ADMIN }, { expiresInHours: -1 }, 'invalid_request'],
        ['POST', '/v1/acme/people/pia%40example.com/invitation', { key: ADMIN }, { expiresInHours: 'soon' }, 'invalid_request'],
        ['GET', `${SHOP}/audit?kind=person`, { key: ADMIN }, undefined, 'invalid_request'],
        ['GET', `${SHOP}/audit?until=2026-02-30`, { key: ADMIN }, undefined, 'invalid_request'],
      ];
      for (const [method, url, who, body, code] of cases) {
        const res = await call(method, url, who, body);
        assert.equal(res.statusCode, 400, `${method} ${url} ${JSON.stringify(body)}: ${res.body}`);
        assert.equal(res.json().error.code, code);
        assert.equal(typeof res.json().error.message, 'string');
      }
      // Pia's password and sessions are as they were; no invitation was made.
      assert.equal((await call('GET', '/v1/acme/me', { cookie: pia.cookie })).statusCode, 200);
      assert.equal((await signIn('pia@example.com', PASSWORD)).statusCode, 200);
      const people = (await call('GET', '/v1/acme/people', { key: ADMIN })).json().people as { email: string; invitedUntil: unknown }[];
      assert.equal(people.find((p) => p.email === 'pia@example.com')!.invitedUntil, null);
    });

    it('tells the sign-in page how an organization signs in, without a key', async () => {
      assert.deepEqual((await call('GET', '/v1/acme/sign-in')).json(), { organization: 'acme', password: true, sso: false });
      assert.equal((await call('GET', '/v1/nope/sign-in')).json().error.code, 'organization_not_found');
    });
  });
}
