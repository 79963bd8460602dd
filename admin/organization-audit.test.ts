// The audit log's "People and keys" tab against our running service: an admin over the whole organization reads the
// organization's own log (`GET /v1/acme/audit`), each change said in words; anyone else is told the role it needs.
// People and keys are made with the admin key through the API, as an admin's script would.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import type { CreatedKey } from './access.js';
import type { SvcAdmin } from './admin-app.js';
import { find, get, keyApi, openConsole, orgFetch, recordRequests, removePeople, resetAddress, signOutEverywhere, text, unique, until } from './admin-test-helpers.js';
import type { SvcAdminAudit } from './audit-log.js';
import { defineAdmin } from './define-admin.js';

defineAdmin();

const rows = (el: SvcAdminAudit): HTMLElement[] => [...el.shadowRoot!.querySelectorAll<HTMLElement>('tbody tr')];
const tabs = (el: SvcAdminAudit): HTMLElement[] => [...el.shadowRoot!.querySelectorAll<HTMLElement>('[role="tab"]')];
const summary = (el: SvcAdminAudit, name: string, action: string): string =>
  text(rows(el).find((r) => r.dataset.name === name && r.dataset.action === action)?.querySelector('summary') ?? null);

async function makeKey(body: Record<string, unknown>): Promise<CreatedKey> {
  const made = await orgFetch('keys', { method: 'POST', body: JSON.stringify(body) });
  expect(made.status).to.equal(201);
  return made.json() as Promise<CreatedKey>;
}

const revoke = async (id: string): Promise<void> => {
  await orgFetch(`keys/${id}`, { method: 'DELETE' });
};

/** The console opened at `hash` by whoever this browser is signed in as, once its audit log has loaded. */
async function auditAt(hash: string): Promise<{ app: SvcAdmin; audit: SvcAdminAudit }> {
  history.replaceState(null, '', `${location.pathname}${hash}`);
  const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
  const audit = await until(() => find<SvcAdminAudit>(app, 'svc-admin-audit[status="ready"], svc-admin-audit[status="empty"]'), 'the audit log');
  return { app, audit };
}

describe('<svc-admin-audit> people and keys', () => {
  const people: string[] = [];
  let recorder: ReturnType<typeof recordRequests>;
  let sent: string[] = [];

  beforeEach(async () => {
    sessionStorage.clear();
    resetAddress();
    await signOutEverywhere();
    recorder = recordRequests('/audit');
    sent = recorder.sent;
  });
  afterEach(async () => {
    recorder.stop();
    sessionStorage.clear();
    resetAddress();
    await signOutEverywhere();
  });
  after(() => removePeople(people));

  it('shows an admin the people and keys made, changed, invited and revoked, in words, from a tab reached with the keyboard', async function () {
    this.timeout(30_000);
    const email = `${unique('audited')}@example.com`;
    people.push(email);
    const person = (role: string) => orgFetch(`people/${encodeURIComponent(email)}`, { method: 'PUT', body: JSON.stringify({ role }) });
    expect((await person('viewer')).status).to.equal(201);
    expect((await person('editor')).status).to.equal(200);
    expect((await orgFetch(`people/${encodeURIComponent(email)}/invitation`, { method: 'POST', body: '{}' })).status).to.equal(201);
    const kiosk = unique('kiosk');
    const key = await makeKey({ name: kiosk, role: 'viewer', projects: ['shop'] });
    await revoke(key.id);

    await openConsole();
    const { app, audit } = await auditAt('#/audit');
    expect(tabs(audit).map((t) => text(t))).to.deep.equal(['This project', 'People and keys']);
    expect(tabs(audit).map((t) => t.getAttribute('aria-selected'))).to.deep.equal(['true', 'false']);
    expect(new URL(sent.at(-1)!).pathname).to.equal('/v1/acme/projects/shop/audit');

    // The arrow key moves to the other tab and shows it, at an address of its own; the focus stays on the tab.
    tabs(audit)[0]!.focus();
    await sendKeys({ press: 'ArrowRight' });
    await until(() => location.hash === '#/audit?scope=organization', 'the address of the organization\'s log');
    await until(() => audit.status === 'ready' && rows(audit).some((r) => r.dataset.name === key.id), 'the organization\'s log');
    expect(new URL(sent.at(-1)!).pathname).to.equal('/v1/acme/audit');
    expect(tabs(audit).map((t) => t.getAttribute('aria-selected'))).to.deep.equal(['false', 'true']);
    expect(audit.shadowRoot!.activeElement).to.equal(tabs(audit)[1]);
    expect(get(audit, '[role="tabpanel"]').getAttribute('aria-labelledby')).to.equal(tabs(audit)[1]!.id);

    expect(summary(audit, email, 'create')).to.contain(`Added ${email} as viewer`);
    expect(summary(audit, email, 'update')).to.contain(`Made ${email} editor (was viewer)`);
    expect(summary(audit, email, 'invite')).to.contain(`Invited ${email}, link valid until`);
    expect(summary(audit, key.id, 'create')).to.contain(`Made key ${key.id.slice(0, 7)}… (${kiosk}) as viewer of shop`);
    expect(summary(audit, key.id, 'delete')).to.contain(`Revoked key ${key.id.slice(0, 7)}… (${kiosk})`);
    const revoked = rows(audit).find((r) => r.dataset.name === key.id && r.dataset.action === 'delete')!;
    expect(text(revoked.querySelector('td.who'))).to.contain('key · admin');
    await expect(app).to.be.accessible();

    // Its kinds are a person's and a key's; the filter goes to the organization's log.
    const kind = get<HTMLSelectElement>(audit, '#filter-kind');
    expect([...kind.options].map((o) => o.value)).to.deep.equal(['', 'person', 'key']);
    kind.value = 'key';
    get<HTMLButtonElement>(audit, 'form.filters button[type="submit"]').click();
    await until(() => audit.status === 'ready' && rows(audit).every((r) => r.dataset.kind === 'key') && rows(audit).length > 0, 'the keys only');
    expect(Object.fromEntries(new URL(sent.at(-1)!).searchParams)).to.deep.equal({ limit: '50', kind: 'key' });

    // Back returns to the project's log, without the filter.
    history.back();
    await until(() => location.hash === '#/audit' && tabs(audit)[0]!.getAttribute('aria-selected') === 'true', 'the project\'s tab');
    await until(() => ['ready', 'empty'].includes(audit.status) && rows(audit).every((r) => !['person', 'key'].includes(r.dataset.kind!)), 'the project\'s log');
    const last = new URL(sent.at(-1)!);
    expect(last.pathname + last.search).to.equal('/v1/acme/projects/shop/audit?limit=50');
  });

  it('opens the organization\'s log from its address', async () => {
    await openConsole();
    const { audit } = await auditAt('#/audit?scope=organization');
    expect(tabs(audit).map((t) => t.getAttribute('aria-selected'))).to.deep.equal(['false', 'true']);
    expect(sent.map((url) => new URL(url).pathname)).to.deep.equal(['/v1/acme/audit']);
    expect(text(get(audit, 'caption'))).to.equal('Changes to the organization\'s people and keys, newest first');
  });

  const others: [string, Record<string, unknown>][] = [
    ['an editor', { role: 'editor' }],
    ['an admin of one project', { role: 'admin', projects: ['shop'] }],
  ];
  for (const [who, access] of others) {
    it(`tells ${who} at the organization's address that its log needs an admin over the whole organization, and reads no log`, async function () {
      this.timeout(20_000);
      const key = await makeKey({ name: unique('audit-reader'), ...access });
      try {
        await openConsole(key.key);
        history.replaceState(null, '', `${location.pathname}#/audit?scope=organization`);
        const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
        const section = await until(() => find(app, 'section.role-needed'), 'the screen that says which role it needs');
        expect(text(section)).to.contain('This screen needs the admin role over the whole organization.');
        expect(find(app, 'svc-admin-audit')).to.equal(null);
        expect(find(section, 'button')).to.equal(null);
        expect(sent.map((url) => new URL(url).pathname)).to.not.include('/v1/acme/audit');
        await expect(app).to.be.accessible();
      } finally {
        await revoke(key.id);
      }
    });
  }

  it('says why the organization\'s log could not be loaded for someone the service refuses it', async () => {
    const key = await makeKey({ name: unique('audit-editor'), role: 'editor' });
    try {
      const el = await fixture<SvcAdminAudit>(html`<svc-admin-audit org-admin scope="organization" .api=${await keyApi(key.key)}></svc-admin-audit>`);
      await until(() => el.status === 'error', 'the refusal');
      expect(text(get(el, '.alert.error'))).to.contain('The audit log could not be loaded');
      expect(el.error?.code).to.equal('role_forbidden');
      await expect(el).to.be.accessible();
    } finally {
      await revoke(key.id);
    }
  });
});
