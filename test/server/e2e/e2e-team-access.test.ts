// End to end, a team signing in to the console, on two nodes of the service sharing one PostgreSQL database: the
// browser (Debian's Chromium) uses node A, scripts use node B. People sign in with single sign-on (a real OpenID
// Connect provider in this process) and with passwords set from invitation links; a viewer can change nothing (the
// console hides it and the service refuses it); an editor manages no people; a removed person's session and a revoked
// key stop at their next request, on either node. Nothing secret is left in the browser's storage.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import { buildApp } from '../../../server/app.js';
import type { ServiceConfigFile } from '../../../server/config/config-types.js';
import type { Storage } from '../../../server/storage/storage.js';
import { click, eventually, fill, find, signIn, signInWithPassword, textsOf } from '../helpers/console-driver.js';
import { startTestProvider, type TestProvider } from '../helpers/oidc-test-provider.js';
import { POSTGRES_DRIVER, type TestDatabase } from '../helpers/storage-drivers.js';
import { testConfig } from '../helpers/test-config.js';
import { CHROMIUM, launchChromium } from '../helpers/chromium.js';
import { freePort } from '../helpers/free-port.js';

const REPO = join(import.meta.dirname, '..', '..', '..');
const missing = ['dist/svc-admin.js'].filter((f) => !existsSync(join(REPO, f)));
if (!existsSync(CHROMIUM)) missing.push(CHROMIUM);
const skip = missing.length > 0 ? `needs ${missing.join(' and ')} (run \`npm run build\`; Chromium from Debian's package)` : false;

const ADMIN_KEY = 'adm1.s3cret';
const PASSWORD = 'a long enough passphrase';
const APP = 'svc-admin';
const FORM = `${APP} >>> svc-admin-sign-in`;

describe('team access, end to end (two nodes on one PostgreSQL)', { skip }, () => {
  let db: TestDatabase;
  const storages: Storage[] = [];
  let nodeA: FastifyInstance;
  let nodeB: FastifyInstance;
  let a: string;
  let b: string;
  let provider: TestProvider;
  let browser: Browser;
  const pageErrors: string[] = [];

  const api = async (node: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${node}${path}`, {
      method, headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: res.status === 204 ? null : await res.json() };
  };

  /** A fresh browser profile (its own cookies and storage), on node A's console. */
  async function freshPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    // Whatever the console's Content-Security-Policy refuses is an error too (a style attribute, an inline script).
    page.on('console', (message) => {
      if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) pageErrors.push(message.text());
    });
    await page.evaluateOnNewDocument(() => {
      document.addEventListener('securitypolicyviolation', (e) => console.error(`Content Security Policy: ${e.violatedDirective} ${e.blockedURI}`));
    });
    await page.setViewport({ width: 1280, height: 900 });
    return { context, page };
  }

  /** What the page keeps in web storage, and its session cookie: none of the secrets may be in the former. */
  async function assertNoSecretStored(page: Page, secrets: string[]): Promise<void> {
    const stored = await page.evaluate(() => JSON.stringify([{ ...sessionStorage }, { ...localStorage }]));
    const cookie = (await page.browserContext().cookies()).find((c) => c.name === 'svc_session');
    assert.ok(cookie?.httpOnly, 'the session is an HttpOnly cookie');
    for (const secret of [...secrets, cookie.value]) assert.ok(!stored.includes(secret), `web storage holds a secret: ${stored}`);
  }

  /** A request from the page as the console sends it: the cookie, and the CSRF token `GET /me` answers. */
  function fromPage(page: Page, method: string, path: string, body?: unknown): Promise<{ status: number; code?: string }> {
    return page.evaluate(async (m, p, b) => {
      const me = await (await fetch(`/v1/acme/me`)).json() as { csrfToken: string };
      const res = await fetch(p, {
        method: m, headers: { 'x-csrf-token': me.csrfToken, ...(b ? { 'content-type': 'application/json' } : {}) }, body: b,
      });
      return { status: res.status, code: res.status === 204 ? undefined : ((await res.json()) as { error?: { code: string } }).error?.code };
    }, method, path, body === undefined ? undefined : JSON.stringify(body));
  }

  /** The console's nav labels once it shows them. */
  async function nav(page: Page): Promise<string[]> {
    await find(page, `${APP} >>> nav`);
    return textsOf(page, `${APP} >>> nav button`);
  }

  /** Adds a person with a role and sets their password from their invitation link, in the API (not the browser). */
  async function personWithPassword(email: string, role: string): Promise<void> {
    assert.equal((await api(b, 'PUT', `/v1/acme/people/${encodeURIComponent(email)}`, ADMIN_KEY, { role })).status, 201);
    const { json } = await api(b, 'POST', `/v1/acme/people/${encodeURIComponent(email)}/invitation`, ADMIN_KEY, {});
    const token = /([\w-]{43})$/.exec(json.url)![1];
    const res = await fetch(`${b}/v1/acme/invitations/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: PASSWORD }) });
    assert.equal(res.status, 200);
  }

  /** The console asked to show its next screen finds the session over, and shows the sign-in form saying so. */
  async function signedOutOnNextRequest(page: Page): Promise<void> {
    await click(page, `${APP} >>> nav button::-p-text(Audit log)`);
    await find(page, `${FORM} >>> .alert.warning`);
    assert.equal(await page.$(`${APP} >>> nav`), null);
  }

  before(async () => {
    db = await POSTGRES_DRIVER.create();
    const port = await freePort();
    a = `http://127.0.0.1:${port}`;
    provider = await startTestProvider([`${a}/admin/oidc/callback`]);
    const config = (): ServiceConfigFile => {
      const file = testConfig();
      file.organizations.acme!.adminKeys = [ADMIN_KEY];
      file.organizations.acme!.oidc = {
        issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret,
        redirectUri: `${a}/admin/oidc/callback`, roleClaim: 'svc_role',
      };
      return file;
    };
    storages.push(await db.open(), await db.open());
    nodeA = await buildApp({ config: config(), storage: storages[0]!, staticRoot: REPO });
    await nodeA.listen({ port, host: '127.0.0.1' });
    nodeB = await buildApp({ config: config(), storage: storages[1]! });
    b = await nodeB.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await nodeA?.close();
    await nodeB?.close();
    for (const storage of storages) await storage.close();
    await provider?.close();
    await db?.destroy();
  });

  it('signs in with single sign-on as the editor the provider says; an editor manages no people', { timeout: 60_000 }, async () => {
    const { context, page } = await freshPage();
    provider.signInAs({ email: 'oda@example.com', role: 'editor' });
    await page.goto(`${a}/admin/?organization=acme&project=shop`, { waitUntil: 'load' });
    const sso = await find(page, `${FORM} >>> #sso`);
    assert.deepEqual(await sso.evaluate((el) => [el.tagName, /SSO/.test(el.textContent ?? '')]), ['BUTTON', true]);
    await click(page, `${FORM} >>> #sso`);
    const labels = await nav(page);
    assert.ok(labels.includes('Experiences') && labels.includes('My account'), labels.join());
    assert.ok(!labels.includes('People and keys') && !labels.includes('Privacy'), 'no people or privacy for an editor');
    assert.deepEqual(await fromPage(page, 'GET', '/v1/acme/people'), { status: 403, code: 'role_forbidden' });
    assert.deepEqual(await fromPage(page, 'PUT', '/v1/acme/people/x%40example.com', { role: 'admin' }), { status: 403, code: 'role_forbidden' });
    // An editor does change experiments.
    const write = await fromPage(page, 'PUT', '/v1/acme/projects/shop/experiences/by-oda', { variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }] });
    assert.equal(write.status, 201);
    await click(page, `${APP} >>> nav button::-p-text(My account)`);
    await eventually('My account names the person', async () => ((await textsOf(page, `${APP} >>> svc-admin-account >>> dd`)).join(' ').includes('oda@example.com') ? true : undefined));
    await assertNoSecretStored(page, []);
    await context.close();
  });

  it('sets a password from an invitation, signs in with it, and a viewer can change nothing', { timeout: 60_000 }, async () => {
    assert.equal((await api(b, 'PUT', '/v1/acme/people/vic%40example.com', ADMIN_KEY, { role: 'viewer' })).status, 201);
    const invitation = (await api(b, 'POST', '/v1/acme/people/vic%40example.com/invitation', ADMIN_KEY, {})).json;
    const { context, page } = await freshPage();
    await page.goto(`${a}${invitation.url.replace('?organization=acme', '?organization=acme&project=shop')}`, { waitUntil: 'load' });
    await fill(page, `${APP} >>> svc-admin-invitation >>> #new-password`, PASSWORD);
    await fill(page, `${APP} >>> svc-admin-invitation >>> #confirm-password`, PASSWORD);
    await click(page, `${APP} >>> svc-admin-invitation >>> button[type="submit"]`);
    await nav(page);
    assert.ok(!page.url().includes(invitation.url.slice(-43)), 'the token left the address');
    await click(page, `${APP} >>> button.sign-out`);
    await find(page, `${FORM} >>> #email`);
    await signInWithPassword(page, 'vic@example.com', PASSWORD);
    const labels = await nav(page);
    assert.ok(!labels.includes('People and keys'));
    // The console hides every write from a viewer…
    await find(page, `${APP} >>> svc-admin-experiences`);
    await eventually('the list without writes', async () => ((await page.$(`${APP} >>> svc-admin-experiences >>> table, ${APP} >>> svc-admin-experiences >>> .empty`)) ? true : undefined));
    assert.equal(await page.$(`${APP} >>> svc-admin-experiences >>> button::-p-text(New experience)`), null);
    // …and the service refuses them anyway.
    const experience = { variations: [{ name: 'a', weight: 50, body: {} }, { name: 'b', weight: 50, body: {} }] };
    assert.deepEqual(await fromPage(page, 'PUT', '/v1/acme/projects/shop/experiences/by-vic', experience), { status: 403, code: 'role_forbidden' });
    assert.deepEqual(await fromPage(page, 'PUT', '/v1/acme/projects/shop/metrics/m', { event: 'X', type: 'count' }), { status: 403, code: 'role_forbidden' });
    await assertNoSecretStored(page, [PASSWORD, invitation.url.slice(-43)]);
    await context.close();
  });

  it('stops a removed person\'s session at their next request, on the node that did not remove them', { timeout: 60_000 }, async () => {
    await personWithPassword('rem@example.com', 'editor');
    const { context, page } = await freshPage();
    await page.goto(`${a}/admin/?organization=acme&project=shop`, { waitUntil: 'load' });
    await signInWithPassword(page, 'rem@example.com', PASSWORD);
    await nav(page);
    assert.equal((await api(b, 'DELETE', '/v1/acme/people/rem%40example.com', ADMIN_KEY)).status, 204);
    await signedOutOnNextRequest(page);
    await context.close();
  });

  it('loads the console and signs in under its Content-Security-Policy, and renders it in no other page\'s frame', { timeout: 60_000 }, async () => {
    await personWithPassword('csp@example.com', 'admin');
    const { context, page } = await freshPage();
    const before = pageErrors.length;
    const answer = await page.goto(`${a}/admin/?organization=acme&project=shop`, { waitUntil: 'load' });
    assert.match(answer?.headers()['content-security-policy'] ?? '', /frame-ancestors 'none'/);
    await signInWithPassword(page, 'csp@example.com', PASSWORD);
    // The pages with the most markup of their own, drawn under the policy.
    for (const label of ['Metrics', 'Privacy', 'People and keys']) {
      await click(page, `${APP} >>> nav button::-p-text(${label})`);
      await find(page, `${APP} >>> h1::-p-text(${label})`);
    }
    assert.deepEqual(pageErrors.slice(before), [], 'nothing refused by the policy');
    // A page on another port of the same site frames the console: the browser draws the console in no frame. (A page
    // without the error listeners: the browser's report of the refused frame, which may come late, is the point here.)
    const framer = http.createServer((_req, res) => res.end(`<!doctype html><iframe src="${a}/admin/?organization=acme"></iframe>`));
    await new Promise<void>((resolve) => framer.listen(0, '127.0.0.1', resolve));
    try {
      const framing = await context.newPage();
      await framing.goto(`http://127.0.0.1:${(framer.address() as AddressInfo).port}/`, { waitUntil: 'load' });
      const frame = framing.frames().find((f) => f !== framing.mainFrame());
      assert.ok(frame, 'the frame is there');
      const rendered = await frame.evaluate(() => document.querySelector('svc-admin') !== null).catch(() => false);
      assert.equal(rendered, false, `the console was drawn in the frame (${frame.url()})`);
    } finally {
      await new Promise((resolve) => framer.close(resolve));
    }
    await context.close();
  });

  it('stops a revoked key at once on both nodes, and the console signed in with it', { timeout: 60_000 }, async () => {
    const key = (await api(a, 'POST', '/v1/acme/keys', ADMIN_KEY, { name: 'kiosk', role: 'viewer' })).json;
    const { context, page } = await freshPage();
    await page.goto(`${a}/admin/?organization=acme&project=shop`, { waitUntil: 'load' });
    await signIn(page, key.key);
    await nav(page);
    await assertNoSecretStored(page, [key.key]);
    for (const node of [a, b]) assert.equal((await api(node, 'GET', '/v1/acme/projects/shop/experiences', key.key)).status, 200);
    assert.equal((await api(b, 'DELETE', `/v1/acme/keys/${key.id}`, ADMIN_KEY)).status, 204);
    assert.equal((await api(b, 'GET', '/v1/acme/projects/shop/experiences', key.key)).status, 401, 'refused at once where it was revoked');
    // The other node hears of it by the database's notification (or its next poll, within a second).
    await eventually('node A refuses the revoked key', async () => ((await api(a, 'GET', '/v1/acme/projects/shop/experiences', key.key)).status === 401 ? true : undefined), { attempts: 50, intervalMs: 20 });
    await signedOutOnNextRequest(page);
    await context.close();
    assert.deepEqual(pageErrors, [], 'no uncaught error in the console');
  });
});

