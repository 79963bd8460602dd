// The invitation link's page (`#/invitation/<token>`) against our running service: the invited person sets a
// password and lands in the console, signed in. Every person here is made by the test that uses it.
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type { Person } from './access.js';
import type { SvcAdmin } from './admin-app.js';
import {
  acme, fill, find, get, invitedPerson, openConsole, orgFetch, removePeople, resetAddress, signOutEverywhere, storedValues, text, until,
} from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminInvitation } from './invitation-page.js';

defineAdmin();

const page = (app: SvcAdmin) => until(() => find<SvcAdminInvitation>(app, 'svc-admin-invitation'), 'the invitation page');

/** Opens the console at the link the service made (`/admin/?organization=acme#/invitation/<token>`), with a project. */
async function openLink(url: string, project = 'shop'): Promise<SvcAdmin> {
  const link = new URL(url, location.origin);
  history.replaceState(null, '', `${location.pathname}${link.search}&project=${project}${link.hash}`);
  return fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
}

async function submit(form: SvcAdminInvitation, password: string, confirm = password): Promise<void> {
  fill(get<HTMLInputElement>(form, '#new-password'), password);
  fill(get<HTMLInputElement>(form, '#confirm-password'), confirm);
  get<HTMLButtonElement>(form, 'button[type="submit"]').click();
  await form.updateComplete;
}

describe('<svc-admin> invitation', () => {
  const people: string[] = [];
  let address = '';

  beforeEach(async () => {
    address = location.href;
    sessionStorage.clear();
    await signOutEverywhere();
  });
  afterEach(async () => {
    await setViewport({ width: 800, height: 600 });
    history.replaceState(null, '', address);
    resetAddress();
    await signOutEverywhere();
  });
  after(() => removePeople(people));

  it('sets the password (checked twice, 12 characters or more), signs the person in and leaves the token behind', async function () {
    this.timeout(20_000);
    const { email, url, token } = await invitedPerson('editor');
    people.push(email);
    const app = await openLink(url);
    const form = await page(app);
    expect(text(get(form, 'h1'))).to.equal('Set your password');
    const invitedAs = await until(() => find(form, '.invited-as'), 'who the link is for');
    expect(text(invitedAs)).to.equal(`You are invited as ${email}.`);
    expect(invitedAs.compareDocumentPosition(get(form, '#new-password')) & Node.DOCUMENT_POSITION_FOLLOWING).to.not.equal(0);
    expect(get<HTMLInputElement>(form, '#organization').value).to.equal('acme');
    expect(get<HTMLInputElement>(form, '#project').value).to.equal('shop');
    expect(get(form, '#new-password').getAttribute('autocomplete')).to.equal('new-password');
    await expect(app).to.be.accessible();

    await submit(form, 'short');
    expect(text(get(form, '#invitation-error'))).to.equal('The password must be 12 to 128 characters long (it has 5).');
    expect(get(form, '#new-password').getAttribute('aria-invalid')).to.equal('true');
    expect(form.shadowRoot!.activeElement?.id).to.equal('new-password');

    await submit(form, 'a long enough password', 'a different password');
    expect(text(get(form, '#invitation-error'))).to.equal('The two passwords are not the same.');
    expect(get(form, '#confirm-password').getAttribute('aria-invalid')).to.equal('true');
    await expect(app).to.be.accessible();

    const password = 'correct horse battery staple';
    await submit(form, password);
    await until(() => find(app, 'svc-admin-experiences[status="ready"]'), 'the console');
    expect(location.hash).to.equal('#/experiences');
    expect(location.href).not.to.contain(token);
    expect(storedValues().some((v) => v.includes(token) || v.includes(password))).to.equal(false);
    const me = await (await fetch(`${acme}/me`, { cache: 'no-store' })).json() as { actor: { name: string }; role: string; password: boolean };
    expect(me).to.deep.include({ role: 'editor', password: true });
    expect(me.actor.name).to.equal(email);
    const listed = await (await orgFetch('people')).json() as { people: Person[] };
    expect(listed.people.find((p) => p.email === email)).to.include({ password: true, invitedUntil: null });
  });

  it('says a link that was used already is no longer valid, with nothing to press', async function () {
    this.timeout(20_000);
    const { email, url, token } = await invitedPerson('viewer');
    people.push(email);
    const used = await fetch(`${acme}/invitations/accept`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token, password: 'the first password' }),
    });
    expect(used.status).to.equal(200);
    await signOutEverywhere();
    const app = await openLink(url);
    const form = await page(app);
    const alert = await until(() => find(form, '#invitation-error'), 'the refusal');
    expect(alert.getAttribute('role')).to.equal('alert');
    expect(text(alert)).to.contain('This invitation link is no longer valid');
    expect(form.shadowRoot!.querySelectorAll('input, button')).to.have.length(0);
    expect(find(form, '.invited-as')).to.equal(null);
    await expect(app).to.be.accessible();
    // Looking the link up left it unused: the person it is for can still set their password with it.
    const fresh = await invitedPerson('viewer');
    people.push(fresh.email);
    const found = await fetch(`${acme}/invitations/lookup`, {
      method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ token: fresh.token }),
    });
    expect(await found.json()).to.include({ email: fresh.email });
  });

  it('asks someone signed in to sign out first, then shows the form', async function () {
    this.timeout(20_000);
    const { email, url } = await invitedPerson('viewer');
    people.push(email);
    await openConsole();
    const app = await openLink(url);
    const offer = await until(() => find(app, 'svc-admin-invitation', '.signed-in'), 'the offer to sign out');
    expect(text(offer)).to.contain('This browser is signed in as admtest');
    expect(find(app, 'svc-admin-invitation', '#new-password')).to.equal(null);
    await expect(app).to.be.accessible();
    const signOut = [...get(app, 'svc-admin-invitation').shadowRoot!.querySelectorAll('button')].find((b) => text(b) === 'Sign out and continue')!;
    signOut.click();
    await until(() => find(app, 'svc-admin-invitation', '#new-password'), 'the password fields');
    expect(location.hash).to.match(/^#\/invitation\//);
    expect((await fetch(`${acme}/me`, { cache: 'no-store' })).status).to.equal(401);
  });

  it('fits a phone', async () => {
    const { email, url } = await invitedPerson('viewer');
    people.push(email);
    await setViewport({ width: 390, height: 800 });
    const app = await openLink(url);
    await page(app);
    expect(document.documentElement.scrollWidth).to.be.at.most(390);
    await expect(app).to.be.accessible();
  });
});
