// The Show button by each password field (ASVS 2.1.12), on the sign-in form, the invitation page and My account,
// against our running service: it shows and hides its own field only, says so to a screen reader, and a password is
// always sent from a hidden field.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { SvcAdminAccount } from './account-page.js';
import { AdminApi } from './admin-api.js';
import { fill, find, get, invitedPerson, personWithPassword, removePeople, signOutEverywhere, text, unique, until } from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminInvitation } from './invitation-page.js';
import type { SvcAdminSignIn } from './sign-in-form.js';

defineAdmin();

const toggle = (root: Element, field: string): HTMLButtonElement => get<HTMLButtonElement>(root, `button[aria-controls="${field}"]`);
const typeOf = (root: Element, field: string): string => get<HTMLInputElement>(root, `#${field}`).type;

/** Checks each of `fields`' toggles: pressed, it shows its field alone; pressed again (by keyboard), it hides it. */
async function checkToggles(el: Element & { updateComplete: Promise<boolean> }, fields: string[]): Promise<void> {
  for (const field of fields) {
    const button = toggle(el, field);
    expect(button.type).to.equal('button');
    expect([button.getAttribute('aria-label'), text(button)]).to.deep.equal(['Show password', 'Show']);
    expect(typeOf(el, field)).to.equal('password');

    button.click();
    await el.updateComplete;
    expect([button.getAttribute('aria-label'), text(button)]).to.deep.equal(['Hide password', 'Hide']);
    expect(fields.map((f) => typeOf(el, f))).to.deep.equal(fields.map((f) => (f === field ? 'text' : 'password')));

    button.focus();
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(button.getAttribute('aria-label')).to.equal('Show password');
    expect(typeOf(el, field)).to.equal('password');
  }
}

describe('show password', () => {
  const people: string[] = [];

  beforeEach(() => signOutEverywhere());
  afterEach(() => signOutEverywhere());
  after(() => removePeople(people));

  it('shows the sign-in password (not the admin key), keeps what was typed, and hides it again when signing in', async () => {
    const form = await fixture<SvcAdminSignIn>(html`<svc-admin-sign-in organization="acme" project="shop"></svc-admin-sign-in>`);
    await until(() => find(form, '#password'), 'the password field');
    fill(get<HTMLInputElement>(form, '#email'), `${unique('nobody')}@example.com`);
    get<HTMLInputElement>(form, '#password').focus();
    await sendKeys({ type: 'correct horse battery' });
    await checkToggles(form, ['password']);
    expect(get<HTMLInputElement>(form, '#password').value).to.equal('correct horse battery');
    get<HTMLElement>(form, 'details summary').click();
    await form.updateComplete;
    expect(find(form, 'button[aria-controls="key"]')).to.equal(null);
    expect(typeOf(form, 'key')).to.equal('password');
    await expect(form).to.be.accessible();

    toggle(form, 'password').click();
    await form.updateComplete;
    expect(typeOf(form, 'password')).to.equal('text');
    get<HTMLButtonElement>(form, 'form.password button[type="submit"]').click();
    await form.updateComplete;
    expect(typeOf(form, 'password')).to.equal('password');
    await until(() => find(form, '#password-error'), 'the refusal');
  });

  it('shows each new password of the invitation page on its own', async () => {
    // A link the service made: the page asks who it is for before it offers the password fields.
    const { email, token } = await invitedPerson('viewer');
    people.push(email);
    const page = await fixture<SvcAdminInvitation>(html`<svc-admin-invitation .token=${token} organization="acme"></svc-admin-invitation>`);
    await until(() => find(page, '#new-password'), 'the password fields');
    await checkToggles(page, ['new-password', 'confirm-password']);
    await expect(page).to.be.accessible();
  });

  it('shows each password of My account on its own, and hides them again when the change is sent', async function () {
    this.timeout(20_000);
    const { email, password } = await personWithPassword('viewer');
    people.push(email);
    const api = new AdminApi({ organization: 'acme', project: 'shop' });
    await api.signInWithPassword(email, password);
    const page = await fixture<SvcAdminAccount>(html`<svc-admin-account .api=${api}></svc-admin-account>`);
    await until(() => page.status === 'ready' && find(page, '#current-password'), 'the password form');
    await checkToggles(page, ['current-password', 'new-password', 'confirm-password']);
    await expect(page).to.be.accessible();

    fill(get<HTMLInputElement>(page, '#current-password'), 'not my password');
    fill(get<HTMLInputElement>(page, '#new-password'), 'a brand new password');
    fill(get<HTMLInputElement>(page, '#confirm-password'), 'a brand new password');
    for (const field of ['current-password', 'new-password']) toggle(page, field).click();
    await page.updateComplete;
    get<HTMLButtonElement>(page, 'form button[type="submit"]').click();
    await page.updateComplete;
    expect(['current-password', 'new-password', 'confirm-password'].map((f) => typeOf(page, f))).to.deep.equal(['password', 'password', 'password']);
    await until(() => find(page, '#password-error'), 'the refusal');
  });
});
