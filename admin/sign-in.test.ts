// The console's sign-in against our running service (test/helpers/service-under-test.mjs): organization acme signs in
// with passwords and keys; organization ssotest also has single sign-on (its provider is never reached here: the
// tests check the link offered). People are made through the API as a person would be: added, invited, accepted.
import { expect, fixture, html } from '@open-wc/testing';
import type { SvcAdmin } from './admin-app.js';
import { SESSION_KEY } from './admin-session.js';
import {
  ADMIN_KEY, acme, fill, find, get, openConsole, personWithPassword, removePeople, resetAddress, signIn, signInForm, signInWithPassword,
  signOutEverywhere, storedValues, text, until,
} from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import { waitText } from './sign-in-messages.js';

defineAdmin();

const list = (app: SvcAdmin) => until(() => find(app, 'svc-admin-experiences[status="ready"]'), 'the experience list');

/** Runs `test` with the page's query set to `search`, then puts the address back. */
async function withQuery(search: string, test: () => Promise<void>): Promise<void> {
  const url = location.href;
  history.replaceState(null, '', `${location.pathname}${search}`);
  try {
    await test();
  } finally {
    history.replaceState(null, '', url);
  }
}

describe('<svc-admin> sign-in', () => {
  const people: string[] = [];

  beforeEach(async () => {
    sessionStorage.clear();
    localStorage.clear();
    resetAddress();
    await signOutEverywhere();
  });
  afterEach(async () => {
    sessionStorage.clear();
    resetAddress();
    await signOutEverywhere();
  });
  after(() => removePeople(people));

  it('offers single sign-on for an organization that has it, a button to the service\'s start with the project', async () => {
    await withQuery('?organization=ssotest&project=web', async () => {
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      const form = await signInForm(app);
      const sso = await until(() => find<HTMLButtonElement>(form, 'button#sso'), 'the SSO button');
      expect(text(sso)).to.contain('SSO');
      expect(form.ssoUrl).to.equal(`${location.origin}/admin/oidc/start?organization=ssotest&project=web`);
      // It follows the project typed.
      fill(get<HTMLInputElement>(form, '#project'), 'other');
      await form.updateComplete;
      expect(form.ssoUrl).to.equal(`${location.origin}/admin/oidc/start?organization=ssotest&project=other`);
      expect(find(form, '#email'), 'the password too').to.exist;
      await expect(app).to.be.accessible();
    });
  });

  it('offers no single sign-on for an organization without it, and says so for one that does not exist', async () => {
    await withQuery('?organization=acme&project=shop', async () => {
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      const form = await signInForm(app);
      await until(() => typeof form.options === 'object', 'how acme signs in');
      expect(find(form, '#sso')).to.equal(null);
      const organization = get<HTMLInputElement>(form, '#organization');
      fill(organization, 'nope');
      organization.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
      await until(() => form.options === 'missing', 'the answer about nope');
      await form.updateComplete;
      expect(organization.getAttribute('aria-invalid')).to.equal('true');
      expect(text(get(form, '#organization-missing'))).to.equal('There is no organization of that name.');
    });
  });

  it('signs a person in with email and password, keeping neither in web storage', async function () {
    this.timeout(20_000);
    const { email, password } = await personWithPassword('editor');
    people.push(email);
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    const form = await signInForm(app);
    expect(get(form, '#email').getAttribute('autocomplete')).to.equal('username');
    expect(get(form, '#password').getAttribute('autocomplete')).to.equal('current-password');
    await signInWithPassword(app, email, password);
    await list(app);
    expect(JSON.parse(sessionStorage.getItem(SESSION_KEY)!)).to.deep.equal({ organization: 'acme', project: 'shop' });
    expect(storedValues().filter((v) => v.includes(password) || v.includes(email) || v.includes('csrf'))).to.deep.equal([]);
    expect(document.cookie).not.to.contain('svc_session');
    const me = await (await fetch(`${acme}/me`, { cache: 'no-store' })).json() as { actor: { name: string }; role: string };
    expect(me).to.deep.include({ role: 'editor' });
    expect(me.actor.name).to.equal(email);
  });

  it('keeps nothing of an admin key in web storage after signing in with it', async () => {
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await signIn(app);
    await list(app);
    expect(storedValues().filter((v) => v.includes(ADMIN_KEY) || v.includes('admtest'))).to.deep.equal([]);
    expect(JSON.parse(sessionStorage.getItem(SESSION_KEY)!)).to.deep.equal({ organization: 'acme', project: 'shop' });
  });

  it('forgets an admin key an older console left in this tab\'s storage', async () => {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify({ organization: 'acme', project: 'shop', key: ADMIN_KEY }));
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    expect(storedValues().filter((v) => v.includes(ADMIN_KEY))).to.deep.equal([]);
    // Nobody is signed in (the cookie is what counts): the form, prefilled from what was kept.
    const form = await signInForm(app);
    expect(get<HTMLInputElement>(form, '#project').value).to.equal('shop');
  });

  it('refuses a wrong password with one sentence for both fields, and stores nothing', async function () {
    this.timeout(20_000);
    const { email } = await personWithPassword('viewer');
    people.push(email);
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await signInWithPassword(app, email, 'not-the-password-at-all');
    const alert = await until(() => find(app, 'svc-admin-sign-in', '#password-error'), 'the refusal');
    expect(alert.getAttribute('role')).to.equal('alert');
    expect(text(alert)).to.contain('The email or the password is not right.');
    const form = await signInForm(app);
    for (const field of ['#email', '#password']) {
      expect(get(form, field).getAttribute('aria-invalid'), field).to.equal('true');
      expect(get(form, field).getAttribute('aria-describedby'), field).to.contain('password-error');
    }
    expect(form.shadowRoot!.activeElement?.id).to.equal('email');
    expect(sessionStorage.length).to.equal(0);
    await expect(app).to.be.accessible();
  });

  it('says how long to wait when too many sign-ins failed (429 with Retry-After)', async function () {
    this.timeout(30_000);
    const { email } = await personWithPassword('viewer');
    people.push(email);
    // The service allows 10 failures per account in its window; the next try is refused with Retry-After.
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`${acme}/session`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password: `wrong-${i}-password` }),
      });
      expect(res.status).to.equal(401);
    }
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await signInWithPassword(app, email, 'still-not-the-password');
    const alert = await until(() => find(app, 'svc-admin-sign-in', '#password-error'), 'the refusal');
    expect(text(alert)).to.match(/Too many failed sign-ins\. Wait \d+ minutes?, then try again\./);
  });

  it('shows the code single sign-on came back with as a sentence, once', async () => {
    await withQuery('?organization=ssotest&project=web&signInError=sso_no_access', async () => {
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      const form = await signInForm(app);
      const alert = get(form, '#sso-error');
      expect(alert.getAttribute('role')).to.equal('alert');
      expect(text(alert)).to.equal('Single sign-on worked, but you have no role in this organization yet. Ask one of its admins to add you.');
      // Said once: the address forgets it, so a reload shows the plain form.
      expect(location.search).to.equal('?organization=ssotest&project=web');
      expect(get<HTMLInputElement>(form, '#organization').value).to.equal('ssotest');
    });
  });

  it('brings the sign-in form back, saying so, when the session ends while the console is open', async function () {
    this.timeout(20_000);
    await openConsole();
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await list(app);
    // Another tab signs out: this console learns it at its next request.
    await signOutEverywhere();
    [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('header nav button')].find((b) => text(b) === 'Audit log')!.click();
    const form = await signInForm(app);
    expect(text(get(form, '.alert.warning'))).to.equal('Your session ended; sign in again.');
    expect(get<HTMLInputElement>(form, '#project').value).to.equal('shop');
    expect(sessionStorage.getItem(SESSION_KEY)).to.equal(null);
    // Signing in again lands on the screen the person was going to.
    await signIn(app);
    await until(() => find(app, 'svc-admin-audit'), 'the audit log');
  });

  it('reopens the project on reload while the session lasts, and shows the form once it is gone', async () => {
    await openConsole();
    let app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await list(app);
    app.remove();
    await signOutEverywhere();
    app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    const form = await signInForm(app);
    expect(form.notice).to.equal('');
  });

  it('reads a wait as a person would', () => {
    const cases: [number | undefined, string][] = [
      [1, 'Wait 1 second,'], [45, 'Wait 45 seconds,'], [60, 'Wait 1 minute,'], [61, 'Wait 2 minutes,'], [900, 'Wait 15 minutes,'],
      [undefined, 'Wait a few minutes,'],
    ];
    for (const [seconds, expected] of cases) expect(waitText(seconds), String(seconds)).to.contain(expected);
  });
});
