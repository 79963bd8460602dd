// Single sign-on to the console against a real OpenID Connect provider running in this process (oidc-provider):
// the authorization code flow with PKCE, state and nonce; the role from a claim or from the people added; refusals
// for a role that is not one, an unverified email, a callback in another browser, a replay or a tampered state.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import { DRIVERS } from '../helpers/storage-drivers.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-test-provider.js';
import { testConfig } from '../helpers/test-config.js';
import { useApp } from '../helpers/use-test-app.js';

const ADMIN = 'adm1.s3cret';
// Where the provider sends the browser back: the service as the browser reaches it (requests are injected here).
const SERVICE = 'http://127.0.0.1:8787';
const CALLBACK = `${SERVICE}/admin/oidc/callback`;

type Answer = { statusCode: number; json(): any; body: string; headers: Record<string, string | string[] | number | undefined> };

const cookiesOf = (res: Answer | Response): string[] => (res instanceof Response ? res.headers.getSetCookie() : [res.headers['set-cookie']].flat().filter((c): c is string => typeof c === 'string'));
const cookieValue = (res: Answer, name: string): string | undefined =>
  cookiesOf(res).map((c) => c.split(';')[0]!).find((c) => c.startsWith(`${name}=`))?.slice(name.length + 1);

describe('single sign-on', () => {
  let provider: TestProvider;
  before(async () => {
    provider = await startTestProvider([CALLBACK]);
  });
  after(() => provider.close());

  for (const driver of DRIVERS) {
    describe(`with OpenID Connect (${driver.name})`, () => {
      const log: string[] = [];
      const stream = new Writable({ write(chunk, _e, done) { log.push(String(chunk)); done(); } });
      const h = useApp(driver, () => {
        const file: ServiceConfigFile = testConfig();
        const oidc = { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret, redirectUri: CALLBACK };
        file.organizations.acme!.adminKeys = [ADMIN];
        file.organizations.acme!.oidc = { ...oidc, roleClaim: 'svc_role' };
        file.organizations.other!.adminKeys = ['admother.x'];
        file.organizations.other!.oidc = oidc;
        // A proxy Fastify trusts says when the browser came over https (X-Forwarded-Proto).
        return { config: file, trustProxy: 1, logger: { level: 'info', stream } };
      });

      /**
       * A browser's round: the console's SSO link, the provider's redirects (its cookies kept), and the callback; answers
       * the callback's answer. `tamper` changes the callback URL; `flowCookie` false drops the browser's flow cookie.
       */
      async function signInWithSso(
        org: string, options: { tamper?: (url: URL) => void; flowCookie?: boolean | string; https?: boolean } = {},
      ): Promise<{ callback: Answer; url: string; flow: string; start: Answer }> {
        const scheme = options.https ? { 'x-forwarded-proto': 'https' } : {};
        const start = await h.app.inject({ url: `/admin/oidc/start?organization=${org}&project=shop`, headers: scheme }) as Answer;
        assert.equal(start.statusCode, 302, start.body);
        const name = options.https ? '__Host-svc_oidc' : 'svc_oidc';
        const flow = cookieValue(start, name)!;
        assert.ok(flow, 'the flow cookie');
        const jar = new Map<string, string>();
        let url = String(start.headers.location);
        assert.ok(url.startsWith(`${provider.issuer}/auth?`), url);
        assert.match(url, /code_challenge_method=S256/);
        for (let hops = 0; !url.startsWith(CALLBACK); hops++) {
          assert.ok(hops < 10, 'the provider sent the browser back');
          const res = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
          for (const c of cookiesOf(res)) {
            const [pair] = c.split(';');
            const eq = pair!.indexOf('=');
            jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
          }
          url = new URL(res.headers.get('location') ?? '', url).href;
        }
        const back = new URL(url);
        options.tamper?.(back);
        const sent = options.flowCookie === false ? null : typeof options.flowCookie === 'string' ? options.flowCookie : name;
        const callback = await h.app.inject({
          url: back.pathname + back.search, headers: { ...scheme, ...(sent === null ? {} : { cookie: `${sent}=${flow}` }) },
        }) as Answer;
        return { callback, url: back.href, flow, start };
      }

      it('signs a person in with the role the provider\'s claim gives, and adds them to the organization', async () => {
        provider.signInAs({ email: 'Oda@Example.com', role: 'editor' });
        const { callback } = await signInWithSso('acme');
        assert.equal(callback.statusCode, 302, callback.body);
        assert.equal(callback.headers.location, '/admin/?organization=acme&project=shop');
        const cookie = cookieValue(callback, 'svc_session')!;
        assert.match(cookie, /^[\w-]{43}$/);
        const me = await h.app.inject({ url: '/v1/acme/me', headers: { cookie: `svc_session=${cookie}` } });
        assert.deepEqual({ ...(me.json() as object), csrfToken: undefined, expiresAt: undefined }, {
          actor: { type: 'person', id: 'oda@example.com', name: 'oda@example.com' }, role: 'editor', projects: null,
          csrfToken: undefined, expiresAt: undefined, password: false,
        });
        const people = (await h.app.inject({ url: '/v1/acme/people', headers: { authorization: `Bearer ${ADMIN}` } })).json().people;
        assert.deepEqual(people.map((p: { email: string; role: string }) => [p.email, p.role]), [['oda@example.com', 'editor']]);
        assert.ok(!log.join('').includes(new URL((await signInWithSso('acme')).url).searchParams.get('code')!), 'the code is not logged');
        // The provider's role is the organization's to see: the audit says who got which role from it, and when.
        provider.signInAs({ email: 'oda@example.com', role: 'admin' });
        await signInWithSso('acme');
        const audit = (await h.app.inject({ url: '/v1/acme/audit?actor=oda@example.com', headers: { authorization: `Bearer ${ADMIN}` } })).json().entries;
        assert.deepEqual(audit.map((e: { action: string; before: unknown; after: unknown; actor: { type: string; role: string } }) => [e.action, e.before, e.after, e.actor.type, e.actor.role]), [
          ['update', { role: 'editor', projects: null }, { role: 'admin', projects: null, from: 'single sign-on' }, 'person', 'admin'],
          ['create', null, { role: 'editor', projects: null, from: 'single sign-on' }, 'person', 'editor'],
        ]);
      });

      it('lets no one in whose claim is not a role, or whose email the provider has not verified', async () => {
        for (const account of [{ email: 'pat@example.com', role: 'superuser' }, { email: 'quin@example.com' }, { email: 'rae@example.com', role: 'admin', emailVerified: false }]) {
          provider.signInAs(account);
          const { callback } = await signInWithSso('acme');
          assert.equal(callback.headers.location, '/admin/?organization=acme&project=shop&signInError=sso_no_access', account.email);
          assert.equal(cookieValue(callback, 'svc_session'), undefined);
        }
      });

      it('lets in no one whose email the provider has not said is verified (claim left out, the string "false"), nor an address the people API refuses; nothing is stored', async () => {
        const accounts = [
          { email: 'uma@example.com', role: 'admin', emailVerified: null },
          { email: 'vic@example.com', role: 'admin', emailVerified: 'false' },
          { email: 'wes@example.com', role: 'admin', emailVerified: 'true' },
          { email: '<img src=x onerror=alert(1)>', role: 'admin' },
          { email: 'two@at@example.com', role: 'admin' },
        ];
        for (const account of accounts) {
          provider.signInAs(account);
          const { callback } = await signInWithSso('acme');
          assert.equal(callback.headers.location, '/admin/?organization=acme&project=shop&signInError=sso_no_access', account.email);
          assert.equal(cookieValue(callback, 'svc_session'), undefined, account.email);
        }
        const people = (await h.app.inject({ url: '/v1/acme/people', headers: { authorization: `Bearer ${ADMIN}` } })).json().people;
        const tried = new Set(accounts.map((a) => a.email.toLowerCase()));
        assert.deepEqual(people.filter((p: { email: string }) => tried.has(p.email)), [], 'no one was added');
        // Without a role claim the organization's own people are looked up: an unverified claim reaches none of them.
        await h.app.inject({ method: 'PUT', url: '/v1/other/people/xan%40example.com', headers: { authorization: 'Bearer admother.x' }, payload: { role: 'admin' } });
        for (const emailVerified of [null, 'false', 0]) {
          provider.signInAs({ email: 'xan@example.com', emailVerified });
          assert.match(String((await signInWithSso('other')).callback.headers.location), /signInError=sso_no_access$/, String(emailVerified));
        }
      });

      it('without a role claim, lets in only the people added, with the role given them there', async () => {
        provider.signInAs({ email: 'sam@example.com', role: 'admin' });
        assert.match(String((await signInWithSso('other')).callback.headers.location), /signInError=sso_no_access$/);
        await h.app.inject({ method: 'PUT', url: '/v1/other/people/sam%40example.com', headers: { authorization: 'Bearer admother.x' }, payload: { role: 'viewer' } });
        const { callback } = await signInWithSso('other');
        assert.equal(callback.headers.location, '/admin/?organization=other&project=shop');
        const me = await h.app.inject({ url: '/v1/other/me', headers: { cookie: `svc_session=${cookieValue(callback, 'svc_session')}` } });
        assert.equal(me.json().role, 'viewer', 'the provider\'s claim is not read for this organization');
      });

      it('refuses a callback in another browser, a replayed one, and a tampered state', async () => {
        provider.signInAs({ email: 'tia@example.com', role: 'viewer' });
        const elsewhere = await signInWithSso('acme', { flowCookie: false });
        assert.equal(elsewhere.callback.headers.location, '/admin/?signInError=sso_expired');
        const once = await signInWithSso('acme');
        assert.ok(cookieValue(once.callback, 'svc_session'));
        const replay = await h.app.inject({ url: new URL(once.url).pathname + new URL(once.url).search, headers: { cookie: `svc_oidc=${once.flow}` } }) as Answer;
        assert.match(String(replay.headers.location), /signInError=sso_expired$/);
        assert.equal(cookieValue(replay, 'svc_session'), undefined);
        const tampered = await signInWithSso('acme', { tamper: (url) => url.searchParams.set('state', 'forged') });
        assert.match(String(tampered.callback.headers.location), /signInError=sso_failed$/);
        assert.equal(cookieValue(tampered.callback, 'svc_session'), undefined);
      });

      it('over https keeps the flow in a __Host- cookie (Secure, Path=/), which a sibling subdomain cannot plant, and reads no other', async () => {
        provider.signInAs({ email: 'yul@example.com', role: 'viewer' });
        const { start, callback } = await signInWithSso('acme', { https: true });
        const line = cookiesOf(start).find((c) => c.startsWith('__Host-svc_oidc='))!;
        assert.deepEqual(line.split(';').slice(1).map((a) => a.trim()).sort(), ['HttpOnly', 'Max-Age=600', 'Path=/', 'SameSite=Lax', 'Secure']);
        assert.equal(cookieValue(start, 'svc_oidc'), undefined);
        assert.equal(callback.headers.location, '/admin/?organization=acme&project=shop');
        assert.ok(cookieValue(callback, '__Host-svc_session'));
        assert.ok(cookiesOf(callback).some((c) => /^__Host-svc_oidc=;.*Max-Age=0/.test(c)), 'the flow cookie is cleared');
        // A cookie without the prefix, as a sibling subdomain could set for this host, is not the flow's over https.
        const planted = await signInWithSso('acme', { https: true, flowCookie: 'svc_oidc' });
        assert.equal(planted.callback.headers.location, '/admin/?signInError=sso_expired');
        assert.equal(cookieValue(planted.callback, '__Host-svc_session'), undefined);
        // Plain http (a laptop) cannot use the prefix: the flow cookie keeps its name, on the sign-in's path only.
        const overHttp = await signInWithSso('acme');
        assert.match(cookiesOf(overHttp.start).find((c) => c.startsWith('svc_oidc='))!, /; Path=\/admin\/oidc\/;/);
        assert.equal((await signInWithSso('acme', { flowCookie: '__Host-svc_oidc' })).callback.headers.location, '/admin/?signInError=sso_expired');
      });

      it('offers SSO on the sign-in page only where it is set up', async () => {
        assert.equal((await h.app.inject({ url: '/v1/acme/sign-in' })).json().sso, true);
        const none = await h.app.inject({ url: '/admin/oidc/start?organization=nope' });
        assert.equal(none.statusCode, 404);
        assert.equal(none.json().error.code, 'sso_not_configured');
      });
    });
  }
});
