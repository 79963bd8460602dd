// "My account" against our running service: who is signed in, their password, and signing out here or everywhere.
// People are made through the API as a person would be (added, invited, accepted) by the test that uses them.
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type { SvcAdminAccount } from './account-page.js';
import type { SvcAdmin } from './admin-app.js';
import { SESSION_KEY } from './admin-session.js';
import {
  acme, fill, find, get, openConsole, personWithPassword, removePeople, resetAddress, signInForm, signInWithPassword,
  signOutEverywhere, text, until,
} from './admin-test-helpers.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { defineAdmin } from './define-admin.js';

defineAdmin();

/** The console signed in as `email`, on its account page (reached from the nav). */
async function accountOf(email: string, password: string): Promise<{ app: SvcAdmin; page: SvcAdminAccount }> {
  const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
  await signInWithPassword(app, email, password);
  const nav = await until(() => [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('header nav button')].find((b) => text(b) === 'My account'), 'the nav');
  nav.click();
  const page = await until(() => find<SvcAdminAccount>(app, 'svc-admin-account[status="ready"]'), 'the account page');
  expect(location.hash).to.equal('#/account');
  await until(() => nav.getAttribute('aria-current') === 'page', 'the nav to mark the page');
  return { app, page };
}

const me = (): Promise<Response> => fetch(`${acme}/me`, { cache: 'no-store' });

describe('<svc-admin> my account', () => {
  const people: string[] = [];

  beforeEach(async () => {
    sessionStorage.clear();
    resetAddress();
    await signOutEverywhere();
  });
  afterEach(async () => {
    await setViewport({ width: 800, height: 600 });
    resetAddress();
    await signOutEverywhere();
  });
  after(() => removePeople(people));

  it('says who is signed in, with their role, projects and the session\'s end, and changes the password', async function () {
    this.timeout(30_000);
    const { email, password } = await personWithPassword('editor', ['shop']);
    people.push(email);
    const { app, page } = await accountOf(email, password);
    const who = text(get(page, 'section[aria-labelledby="who-title"]'));
    expect(who).to.contain(`Person ${email}`).and.contain('Role editor').and.contain('Projects shop').and.contain('Session ends');
    const end = get(page, 'dd time').getAttribute('datetime')!;
    expect(Date.parse(end) - Date.now()).to.be.within(11 * 3600_000, 12 * 3600_000 + 60_000);
    await expect(app).to.be.accessible();

    // A wrong current password is refused on its field.
    const change = async (current: string, next: string): Promise<void> => {
      fill(get<HTMLInputElement>(page, '#current-password'), current);
      fill(get<HTMLInputElement>(page, '#new-password'), next);
      fill(get<HTMLInputElement>(page, '#confirm-password'), next);
      get<HTMLButtonElement>(page, 'form button[type="submit"]').click();
      await page.updateComplete;
    };
    await change('not my password', 'a brand new password');
    const alert = await until(() => find(page, '#password-error'), 'the refusal');
    expect(text(alert)).to.equal('The current password is not right.');
    expect(get(page, '#current-password').getAttribute('aria-invalid')).to.equal('true');
    await expect(app).to.be.accessible();

    await change(password, 'a brand new password');
    await until(() => text(find(app, '.notices')).includes('Password changed.'), 'the change');
    expect(find(page, '#password-error')).to.equal(null);
    expect(get<HTMLInputElement>(page, '#current-password').value).to.equal('');
    // This session stays; the new password is the one that signs in.
    expect((await me()).status).to.equal(200);
    const old = await fetch(`${acme}/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email, password }) });
    expect(old.status).to.equal(401);
  });

  it('signs out: the session ends on the service and the sign-in form returns', async function () {
    this.timeout(20_000);
    const { email, password } = await personWithPassword('viewer');
    people.push(email);
    const { app, page } = await accountOf(email, password);
    get<HTMLButtonElement>(page, 'button[data-action="sign-out"]').click();
    const form = await signInForm(app);
    expect(form.notice).to.equal('You signed out.');
    expect(sessionStorage.getItem(SESSION_KEY)).to.equal(null);
    expect((await me()).status).to.equal(401);
    expect(find(app, 'header nav')).to.equal(null);
  });

  it('signs out everywhere after a confirmation; Cancel keeps the session', async function () {
    this.timeout(20_000);
    const { email, password } = await personWithPassword('admin');
    people.push(email);
    const { app, page } = await accountOf(email, password);
    const dialog = get<SvcAdminConfirm>(page, 'svc-admin-confirm');
    const ask = async (): Promise<HTMLDialogElement> => {
      get<HTMLButtonElement>(page, 'button[data-action="sign-out-everywhere"]').click();
      return until(() => find<HTMLDialogElement>(dialog, 'dialog[open]'), 'the confirmation');
    };
    let open = await ask();
    expect(text(open)).to.contain('Every session of yours ends, on every device and browser, this one included.');
    await expect(app).to.be.accessible();
    get<HTMLButtonElement>(dialog, 'button[value="cancel"]').click();
    await until(() => !open.open, 'the dialog to close');
    expect((await me()).status).to.equal(200);

    open = await ask();
    get<HTMLButtonElement>(dialog, 'button[value="confirm"]').click();
    const form = await signInForm(app);
    expect(form.notice).to.equal('You signed out on every device.');
    expect((await me()).status).to.equal(401);
  });

  it('shows a key that it has no password to change', async () => {
    await openConsole();
    history.replaceState(null, '', `${location.pathname}#/account`);
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    const page = await until(() => find<SvcAdminAccount>(app, 'svc-admin-account[status="ready"]'), 'the account page');
    expect(text(get(page, 'section[aria-labelledby="who-title"]'))).to.contain('Key admtest').and.contain('Role admin').and.contain('all projects');
    expect(find(page, '#current-password')).to.equal(null);
    expect(text(get(page, 'section[aria-labelledby="password-title"]'))).to.contain('A key has no password');
  });

  it('fits a phone', async () => {
    await openConsole();
    await setViewport({ width: 390, height: 800 });
    history.replaceState(null, '', `${location.pathname}#/account`);
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await until(() => find(app, 'svc-admin-account[status="ready"]'), 'the account page');
    expect(document.documentElement.scrollWidth).to.be.at.most(390);
    await expect(app).to.be.accessible();
  });
});
