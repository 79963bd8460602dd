// <svc-admin-access> against our running service (test/helpers/service-under-test.mjs): organization acme, whose file
// admin key admtest.s3cret acts as admin. The service outlives this file, so every person and key made here has a name
// of its own, and is removed after the test (what the page itself removed is gone already).
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type { SvcAdminAccess } from './access-page.js';
import type { CreatedKey } from './access.js';
import { ADMIN_KEY, attributeValues, fill, find, get, keyApi, shop, text, unique, until } from './admin-test-helpers.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { defineAdmin } from './define-admin.js';

defineAdmin();

const org = `${location.origin}/v1/acme`;
const made = { people: [] as string[], keys: [] as string[] };

const orgFetch = (path: string, init: RequestInit = {}): Promise<Response> => fetch(`${org}/${path}`, {
  ...init, headers: { Authorization: `Bearer ${ADMIN_KEY}`, ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }) },
});

async function page(key = ADMIN_KEY): Promise<SvcAdminAccess> {
  const api = await keyApi(key);
  return fixture<SvcAdminAccess>(html`<svc-admin-access .api=${api}></svc-admin-access>`);
}

const loaded = (el: SvcAdminAccess) => until(() => (el.status === 'ready' || el.status === 'empty') && el, 'people and keys');

const personRow = (el: SvcAdminAccess, email: string, holds: (r: HTMLElement) => boolean = () => true) => until(() => {
  const r = find(el, `tr[data-email="${CSS.escape(email)}"]`);
  return r && holds(r) ? r : null;
}, `the row of ${email}`);

/** A cell's value, without the column's name it shows on a phone. */
function cell(r: HTMLElement, column: string): string {
  const td = [...r.querySelectorAll('td')].find((c) => text(c.querySelector('.cell-label')) === column);
  if (!td) throw new Error(`no column ${column}`);
  return text(td).slice(column.length).trim();
}

async function select(field: HTMLSelectElement, value: string): Promise<void> {
  field.value = value;
  field.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
}

/** Confirms the open dialog with its button `label`. */
async function confirm(el: SvcAdminAccess, label: string, expected: string): Promise<void> {
  const dialog = get<SvcAdminConfirm>(el, 'svc-admin-confirm');
  const open = await until(() => find<HTMLDialogElement>(dialog, 'dialog[open]'), 'the confirmation');
  expect(text(open)).to.contain(expected);
  [...open.querySelectorAll<HTMLButtonElement>('button')].find((b) => text(b) === label)!.click();
}

function notices(el: SvcAdminAccess): string[] {
  const seen: string[] = [];
  el.addEventListener('svc-admin:notice', (e) => seen.push(e.detail));
  return seen;
}


/** The clipboard's writeText, recorded instead of done (`written`) until `restore()`. */
function stubClipboard(): { written: string; restore(): void } {
  const copy = navigator.clipboard.writeText;
  const clip = { written: '', restore: () => { navigator.clipboard.writeText = copy; } };
  navigator.clipboard.writeText = async (value: string) => { clip.written = value; };
  return clip;
}

describe('<svc-admin-access>', () => {
  afterEach(async () => {
    await setViewport({ width: 800, height: 600 });
    for (const email of made.people.splice(0)) await orgFetch(`people/${encodeURIComponent(email)}`, { method: 'DELETE' });
    for (const id of made.keys.splice(0)) await orgFetch(`keys/${encodeURIComponent(id)}`, { method: 'DELETE' });
  });

  it('adds a person, changes their role and removes them after a confirmation', async function () {
    this.timeout(20_000);
    const email = `${unique('person')}@example.com`;
    made.people.push(email);
    const el = await loaded(await page());
    const seen = notices(el);
    expect(text(get(el, 'h1'))).to.equal('People and keys');
    await expect(el).to.be.accessible();

    // Add: an editor of this project only.
    fill(get<HTMLInputElement>(el, '#person-email'), email);
    await select(get<HTMLSelectElement>(el, '#person-role'), 'editor');
    await el.updateComplete;
    expect(text(get(el, '#person-role-hint'))).to.contain('Changes experiences, metrics and feeds');
    get<HTMLInputElement>(el, 'form[aria-labelledby="add-person"] input[name="projects"][value="this"]').click();
    get<HTMLButtonElement>(el, 'form[aria-labelledby="add-person"] button[value="add"]').click();
    let row = await personRow(el, email);
    expect(get<HTMLSelectElement>(row, 'select').value).to.equal('editor');
    expect(cell(row, 'Projects')).to.equal('shop');
    expect(cell(row, 'Sign-in')).to.equal('no password yet');
    expect(seen).to.include(`${email} added as editor.`);
    expect(get<HTMLInputElement>(el, '#person-email').value).to.equal('');
    expect(find(el, '.secret'), 'no invitation asked for').to.equal(null);

    // Change role: admin, still of this project only.
    await select(row.querySelector<HTMLSelectElement>('select')!, 'admin');
    row.querySelector<HTMLButtonElement>('button[data-action="save-role"]')!.click();
    await until(() => seen.includes(`${email} is now admin.`), 'the change');
    const listed = await (await orgFetch('people')).json() as { people: { email: string; role: string; projects: string[] | null }[] };
    expect(listed.people.find((p) => p.email === email)).to.include({ role: 'admin' }).and.have.deep.property('projects', ['shop']);
    row = await personRow(el, email, (r) => r.querySelector('select')!.value === 'admin');

    // Remove: cancelling keeps them; confirming removes them.
    row.querySelector<HTMLButtonElement>('button[data-action="remove"]')!.click();
    await confirm(el, 'Cancel', `Remove ${email}?`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(find(el, `tr[data-email="${CSS.escape(email)}"]`)).to.exist;
    row.querySelector<HTMLButtonElement>('button[data-action="remove"]')!.click();
    await confirm(el, 'Remove', `Remove ${email}?`);
    await until(() => !find(el, `tr[data-email="${CSS.escape(email)}"]`), 'the row gone');
    expect(seen).to.include(`${email} removed.`);
    made.people.splice(made.people.indexOf(email), 1);
    expect(el.shadowRoot!.activeElement?.id).to.equal('people-title');
    await expect(el).to.be.accessible();
  });

  it('adds a person with an invitation: the link shows once, whole, with Copy; their row says they are invited', async function () {
    this.timeout(20_000);
    sessionStorage.clear();
    localStorage.clear();
    const email = `${unique('invited')}@example.com`;
    made.people.push(email);
    const el = await loaded(await page());
    const seen = notices(el);
    const clip = stubClipboard();
    try {
      fill(get<HTMLInputElement>(el, '#person-email'), email);
      // Enter, as a person would: the form's first button is "Add and invite".
      get<HTMLButtonElement>(el, 'form[aria-labelledby="add-person"] button[type="submit"]').click();
      const box = await until(() => find(el, '.secret[data-kind="invitation"]'), 'the invitation link');
      const link = text(box.querySelector('code'));
      expect(link.startsWith(`${location.origin}/admin/?organization=acme&project=shop#/invitation/`), link).to.equal(true);
      expect(text(box)).to.contain(`Invitation link for ${email}`).and.contain('it is not shown again');
      expect(seen).to.include(`${email} added as viewer.`);
      await until(() => el.shadowRoot!.activeElement?.matches('button[data-action="copy"]'), 'the focus on Copy');
      get<HTMLButtonElement>(box, 'button[data-action="copy"]').click();
      await until(() => text(box.querySelector('.copied')) === 'Copied to the clipboard.', 'the copy');
      expect(clip.written).to.equal(link);
      const row = await personRow(el, email, (r) => cell(r, 'Sign-in').startsWith('invited until'));
      expect(row.querySelector('[data-column="sign-in"] time')).to.exist;
      expect(attributeValues(el).some((v) => v.includes(link.split('#/invitation/')[1]!))).to.equal(false);
      const stored = [sessionStorage, localStorage].flatMap((s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`));
      expect(stored.some((v) => v.includes('invitation'))).to.equal(false);
      await expect(el).to.be.accessible();

      // A new link replaces it: the first one no longer works.
      row.querySelector<HTMLButtonElement>('button[data-action="invite"]')!.click();
      await until(() => seen.includes(`New invitation link for ${email}.`), 'the new link');
      const second = text(get(el, '.secret[data-kind="invitation"] code'));
      expect(second).not.to.equal(link);
      // Without cookies: accepting signs in, and this page must stay signed in as the admin.
      const accept = (url: string) => fetch(`${org}/invitations/accept`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, credentials: 'omit',
        body: JSON.stringify({ token: url.split('#/invitation/')[1], password: 'a password long enough' }),
      });
      expect((await accept(link)).status).to.equal(400);

      // Done forgets it; the row says the password is set once the link is used.
      get<HTMLButtonElement>(el, '.secret button[data-action="dismiss"]').click();
      await until(() => !find(el, '.secret'), 'the link gone');
      expect(el.shadowRoot!.textContent).not.to.contain(second);
      expect((await accept(second)).status).to.equal(200);
      await el.reload();
      await personRow(el, email, (r) => cell(r, 'Sign-in') === 'password set');
    } finally {
      clip.restore();
    }
  });

  it('shows the service\'s message when it refuses a person', async () => {
    const el = await loaded(await page());
    // The browser takes it for an email; the service wants a domain with a dot.
    fill(get<HTMLInputElement>(el, '#person-email'), 'nobody@localhost');
    get<HTMLButtonElement>(el, 'form[aria-labelledby="add-person"] button[type="submit"]').click();
    const alert = await until(() => find(el, '#person-error'), 'the error');
    expect(alert.getAttribute('role')).to.equal('alert');
    expect(text(alert)).to.equal('email: "nobody@localhost" is not an email address');
    expect(get(el, '#person-email').getAttribute('aria-invalid')).to.equal('true');
    await expect(el).to.be.accessible();
  });

  it('creates a key, shows its secret once and nowhere else, lists it, and revokes it: the key is then refused', async function () {
    this.timeout(20_000);
    sessionStorage.clear();
    localStorage.clear();
    const name = unique('ci');
    const el = await loaded(await page());
    const seen = notices(el);
    const clip = stubClipboard();
    try {
      fill(get<HTMLInputElement>(el, '#key-name'), name);
      get<HTMLInputElement>(el, 'form[aria-labelledby="new-key"] input[name="projects"][value="this"]').click();
      get<HTMLButtonElement>(el, 'form[aria-labelledby="new-key"] button[type="submit"]').click();
      const box = await until(() => find(el, '.secret'), 'the new key');
      const secret = text(box.querySelector('code'));
      expect(secret).to.match(/^k[0-9a-f]+\..+/);
      const id = secret.split('.')[0]!;
      made.keys.push(id);
      expect(box.getAttribute('role')).to.equal('status');
      expect(text(box)).to.contain('Copy it now: it is not shown again. The service keeps only a digest.');
      expect(seen).to.include(`Key ${name} created.`);

      // Copy puts it on the clipboard; without a clipboard the page says what to do instead.
      get<HTMLButtonElement>(box, 'button[data-action="copy"]').click();
      await until(() => text(box.querySelector('.copied')) === 'Copied to the clipboard.', 'the copy');
      expect(clip.written).to.equal(secret);
      navigator.clipboard.writeText = async () => { throw new DOMException('denied', 'NotAllowedError'); };
      get<HTMLButtonElement>(box, 'button[data-action="copy"]').click();
      await until(() => text(box.querySelector('.copied')).startsWith('The browser did not let the page copy it'), 'the fallback');

      // Listed without its secret; the secret is in no attribute and no web storage.
      const row = await until(() => find<HTMLElement>(el, `tr[data-id="${id}"]`), 'the key\'s row');
      expect(text(row)).to.contain(name).and.not.contain(secret);
      expect(cell(row, 'Role')).to.equal('viewer');
      expect(cell(row, 'Projects')).to.equal('shop');
      expect(cell(row, 'Expires')).to.equal('never');
      expect(attributeValues(el).some((v) => v.includes(secret))).to.equal(false);
      const stored = [sessionStorage, localStorage].flatMap((s) => Object.keys(s).map((k) => `${k}=${s.getItem(k)}`));
      expect(stored.some((v) => v.includes(secret))).to.equal(false);
      await expect(el).to.be.accessible();

      // The key works (a viewer reads the project's experiences).
      const read = (): Promise<Response> => fetch(`${shop}/experiences`, { headers: { Authorization: `Bearer ${secret}` }, cache: 'no-store' });
      expect((await read()).status).to.equal(200);

      // Done forgets it.
      get<HTMLButtonElement>(box, 'button[data-action="dismiss"]').click();
      await until(() => !find(el, '.secret'), 'the secret gone');
      expect(el.shadowRoot!.textContent).to.not.contain(secret);

      // Revoke, confirmed: gone from the list, and the key is refused.
      get<HTMLButtonElement>(el, `tr[data-id="${id}"] button[data-action="revoke"]`).click();
      await confirm(el, 'Revoke', 'Anything using it stops at once');
      await until(() => !find(el, `tr[data-id="${id}"]`), 'the row gone');
      expect(seen).to.include(`Key ${name} revoked.`);
      expect((await read()).status).to.equal(401);
      made.keys.splice(made.keys.indexOf(id), 1);
    } finally {
      clip.restore();
    }
  });

  it('forgets the new key\'s secret when it leaves the page', async () => {
    const el = await loaded(await page());
    fill(get<HTMLInputElement>(el, '#key-name'), unique('gone'));
    get<HTMLButtonElement>(el, 'form[aria-labelledby="new-key"] button[type="submit"]').click();
    const box = await until(() => find(el, '.secret'), 'the new key');
    made.keys.push(text(box.querySelector('code')).split('.')[0]!);
    const parent = el.parentElement!;
    el.remove();
    expect(el.created).to.equal(undefined);
    parent.append(el);
    await loaded(el);
    expect(find(el, '.secret')).to.equal(null);
  });

  it('shows the service\'s message when it refuses a key', async () => {
    const el = await loaded(await page());
    fill(get<HTMLInputElement>(el, '#key-name'), unique('past'));
    const expires = get<HTMLInputElement>(el, '#key-expires');
    expires.removeAttribute('min');
    expires.value = '2001-01-01';
    get<HTMLButtonElement>(el, 'form[aria-labelledby="new-key"] button[type="submit"]').click();
    const alert = await until(() => find(el, '#key-error'), 'the error');
    expect(text(alert)).to.equal('expiresAt: must be in the future');
    expect(expires.getAttribute('aria-invalid')).to.equal('true');
    expect(find(el, '.secret')).to.equal(null);
  });

  it('tells a key whose role is not admin, when the service refuses, that the page needs admin, with no form', async () => {
    const res = await orgFetch('keys', { method: 'POST', body: JSON.stringify({ name: unique('viewer'), role: 'viewer' }) });
    expect(res.status).to.equal(201);
    const viewer = await res.json() as CreatedKey;
    made.keys.push(viewer.id);
    const el = await page(viewer.key);
    await until(() => el.status === 'error', 'the refusal');
    expect(el.error?.code).to.equal('role_forbidden');
    const alert = get(el, '.alert');
    expect(alert.getAttribute('role')).to.equal('alert');
    expect(text(alert)).to.contain('Managing people and keys needs the admin role over the whole organization.');
    expect(find(el, 'form')).to.equal(null);
    await expect(el).to.be.accessible();
  });

  it('stacks its tables as cards on a phone', async () => {
    const email = `${unique('phone')}@example.com`;
    made.people.push(email);
    expect((await orgFetch(`people/${encodeURIComponent(email)}`, { method: 'PUT', body: JSON.stringify({ role: 'viewer' }) })).status).to.equal(201);
    await setViewport({ width: 390, height: 800 });
    const el = await loaded(await page());
    const row = await personRow(el, email);
    expect(cell(row, 'Projects')).to.equal('all projects');
    expect(getComputedStyle(row).display).to.equal('grid');
    expect(document.documentElement.scrollWidth).to.be.at.most(390);
    await expect(el).to.be.accessible();
  });
});
