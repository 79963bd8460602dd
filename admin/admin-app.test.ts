// <svc-admin> against our running service: web-test-runner starts dist/server.mjs with
// test/fixtures/recommendations.config.json and proxies /v1 to it (test/helpers/service-under-test.mjs). Organization
// acme has the admin key admtest.s3cret; its project shop has feed 1, the experiments results-hero and results-empty
// and the server key srv1.s3cret. The service outlives this file, so every experience made here has a name of its own.
import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import { defineResults } from '../plugins/results/index.js';
import type { SvcAdmin } from './admin-app.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import type { SvcAdminEditor } from './experience-editor.js';
import { SESSION_KEY } from './admin-session.js';
import {
  ADMIN_KEY, acme, adminFetch, attributeValues, fill, find, get, openConsole, resetAddress, signIn, signInForm, signOutEverywhere, shop,
  storedValues, text, unique, until,
} from './admin-test-helpers.js';
import { defineAdmin } from './define-admin.js';

defineResults();
defineAdmin();

const API_KEY = 'srv1.s3cret';

const list = (app: SvcAdmin) => until(() => find(app, 'svc-admin-experiences[status="ready"]'), 'the experience list');
const row = (app: SvcAdmin, name: string) => until(() => find(app, 'svc-admin-experiences', `tr[data-name="${CSS.escape(name)}"]`), `the row of ${name}`);
const editor = (app: SvcAdmin) => until(() => find<SvcAdminEditor>(app, 'svc-admin-editor[status="ready"]'), 'the editor');
const dialogOf = (app: SvcAdmin) => get<SvcAdminConfirm>(app, 'svc-admin-experiences', 'svc-admin-confirm');

/** Clicks a lifecycle button of `name`'s row and waits for the dialog. */
async function openStep(app: SvcAdmin, name: string, action: string): Promise<HTMLDialogElement> {
  (await row(app, name)).querySelector<HTMLButtonElement>(`button[data-action="${action}"]`)!.click();
  return until(() => find<HTMLDialogElement>(dialogOf(app), 'dialog[open]'), 'the open dialog');
}

async function rowWhere(app: SvcAdmin, name: string, holds: (row: HTMLElement) => boolean, what: string): Promise<HTMLElement> {
  return until(() => {
    const r = find(app, 'svc-admin-experiences', `tr[data-name="${CSS.escape(name)}"]`);
    return r && holds(r) ? r : null;
  }, what);
}

describe('<svc-admin>', () => {
  const made: string[] = [];

  beforeEach(async () => {
    sessionStorage.clear();
    resetAddress();
    await signOutEverywhere();
  });
  afterEach(() => {
    sessionStorage.clear();
    resetAddress();
  });
  after(async () => {
    for (const name of made) await adminFetch(`experiences/${encodeURIComponent(name)}`, { method: 'DELETE' });
  });

  it('signs in, creates an experiment, changes its weights, starts it, ships a winner the Choose API serves, and logs every step', async function () {
    this.timeout(60_000);
    const name = unique('admin-e2e');
    made.push(name);
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);

    await signIn(app);
    const experiences = await list(app);
    // Only where the console works is kept: the session itself is the service's HttpOnly cookie.
    expect(JSON.parse(sessionStorage.getItem(SESSION_KEY)!)).to.deep.equal({ organization: 'acme', project: 'shop' });
    expect(localStorage.getItem(SESSION_KEY)).to.equal(null);
    expect(storedValues().filter((v) => v.includes(ADMIN_KEY))).to.deep.equal([]);
    expect(document.cookie).not.to.contain('svc_session');
    expect(location.href).not.to.contain(ADMIN_KEY);
    expect(attributeValues(app).filter((v) => v.includes(ADMIN_KEY))).to.deep.equal([]);

    // Create: two variations, as a draft.
    get<HTMLButtonElement>(experiences, '.toolbar button.primary').click();
    let form = await editor(app);
    await until(() => form.shadowRoot!.activeElement?.matches('h1'), 'the focus on the editor\'s heading');
    fill(get<HTMLInputElement>(form, '#name'), name);
    let rows = () => [...form.shadowRoot!.querySelectorAll('tbody tr')];
    fill(rows()[0]!.querySelector('textarea')!, '{"title": "Welcome"}');
    fill(rows()[1]!.querySelector('input')!, 'bold');
    fill(rows()[1]!.querySelector('textarea')!, '{"title": "Big sale"}');
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    let created = await rowWhere(app, name, (r) => text(r).includes('draft'), 'the new draft in the list');
    expect(text(created)).to.contain('control 50%').and.contain('bold 50%').and.contain('api');
    expect(text(get(app, '.notices'))).to.contain(`Created '${name}' as a draft (version 1)`);
    const stored = await (await adminFetch(`experiences/${name}`)).json() as { status: string; variations: { body: unknown }[] };
    expect(stored.status).to.equal('draft');
    expect(stored.variations.map((v) => v.body)).to.deep.equal([{ title: 'Welcome' }, { title: 'Big sale' }]);

    // Edit the weights: Save is off while they do not sum to 100.
    created.querySelector<HTMLButtonElement>('button[data-action="edit"]')!.click();
    form = await editor(app);
    rows = () => [...form.shadowRoot!.querySelectorAll('tbody tr')];
    const save = get<HTMLButtonElement>(form, 'button[type="submit"]');
    fill(rows()[0]!.querySelector<HTMLInputElement>('input[type="number"]')!, '70');
    fill(rows()[1]!.querySelector<HTMLInputElement>('input[type="number"]')!, '20');
    await form.updateComplete;
    expect(save.disabled, 'Save at 90').to.equal(true);
    expect(text(get(form, '#weights'))).to.equal('Weights sum to 90% — they must sum to 100%.');
    fill(rows()[1]!.querySelector<HTMLInputElement>('input[type="number"]')!, '30');
    await form.updateComplete;
    expect(save.disabled, 'Save at 100').to.equal(false);
    expect(text(get(form, '#weights'))).to.equal('Weights sum to 100%.');
    save.click();
    await rowWhere(app, name, (r) => text(r).includes('control 70%') && text(r).includes('bold 30%'), 'the new weights in the list');

    // Start, confirmed in a modal dialog that has the focus.
    let dialog = await openStep(app, name, 'start');
    expect(dialog.matches(':modal')).to.equal(true);
    expect(dialog.contains(dialogOf(app).shadowRoot!.activeElement)).to.equal(true);
    get<HTMLButtonElement>(dialogOf(app), 'button[value="confirm"]').click();
    await rowWhere(app, name, (r) => text(r).includes('running'), 'the experiment running');

    // Escape backs out of a step: nothing is written.
    dialog = await openStep(app, name, 'stop');
    await sendKeys({ press: 'Escape' });
    await until(() => !dialog.open, 'the dialog to close');
    const running = await (await adminFetch(`experiences/${name}`)).json() as { status: string; version: number };
    expect(running).to.include({ status: 'running', version: 3 });

    // Ship a winner: the dialog says what will happen to the variation chosen.
    dialog = await openStep(app, name, 'ship');
    const radio = (value: string) => [...dialog.querySelectorAll<HTMLInputElement>('input[type="radio"]')].find((r) => r.value === value)!;
    radio('control').click();
    await dialogOf(app).updateComplete;
    expect(text(get(dialogOf(app), '#what'))).to.contain("Everyone will get 'control'");
    radio('bold').click();
    await dialogOf(app).updateComplete;
    expect(text(get(dialogOf(app), '#what'))).to.contain("Everyone will get 'bold'; no more exposures are recorded");
    expect(text(get(dialogOf(app), 'button[value="confirm"]'))).to.equal("Ship 'bold'");
    get<HTMLButtonElement>(dialogOf(app), 'button[value="confirm"]').click();
    await rowWhere(app, name, (r) => text(r).includes('stopped') && text(r).includes('winner bold'), 'the winner shipped');

    const choose = await fetch(`${shop}/optimization/choose-api?apiKey=${API_KEY}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ identification: { sourceId: 'web', profileId: 'x' }, names: [name] }),
    });
    expect((await choose.json() as { choices: unknown[] }).choices).to.deep.equal([{ name, variation: 'bold', body: { title: 'Big sale' } }]);

    // The audit log: every write, newest first, with the item before and after.
    get<HTMLButtonElement>(app, 'header nav button:nth-of-type(2)').click();
    const audit = await until(() => find(app, 'svc-admin-audit[status="ready"]'), 'the audit log');
    const entries = [...audit.shadowRoot!.querySelectorAll<HTMLElement>(`tr[data-name="${name}"]`)];
    expect(entries.map((e) => e.dataset.action)).to.deep.equal(['update', 'update', 'update', 'create']);
    expect(text(entries[0]!.querySelector('summary'))).to.contain('Changed status, winner');
    const after = entries[0]!.querySelectorAll('pre')[1]!;
    expect(after.children.length, 'JSON as text').to.equal(0);
    expect(JSON.parse(after.textContent!)).to.include({ status: 'stopped', winner: 'bold' });
    expect(text(entries[0]!)).to.contain('admtest');
  });

  const refused = [
    { key: 'admtest.wrong', code: 'invalid_credentials' },
    { key: 'srv1.s3cret', code: 'admin_key_required' },
  ];
  for (const { key, code } of refused) {
    it(`shows the service's ${code} message for a wrong key and stores nothing`, async function () {
      this.timeout(20_000);
      const expected = await (await fetch(`${acme}/session`, {
        method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, body: '{}',
      })).json() as { error: { code: string; message: string } };
      expect(expected.error.code).to.equal(code);
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      await signIn(app, key);
      const alert = await until(() => find(app, 'svc-admin-sign-in', '[role="alert"]'), 'the error');
      expect(text(alert)).to.contain(expected.error.message);
      expect(get(app, 'svc-admin-sign-in', '#key').getAttribute('aria-invalid')).to.equal('true');
      expect(sessionStorage.length).to.equal(0);
      expect(find(app, 'svc-admin-experiences')).to.equal(null);
    });
  }

  it('prefills organization and project from the page URL', async () => {
    const url = location.href;
    history.replaceState(null, '', `${location.pathname}?organization=acme&project=shop`);
    try {
      const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
      // Nobody is signed in: the console asks the service, then shows the form.
      const form = await signInForm(app);
      expect(get<HTMLInputElement>(form, '#organization').value).to.equal('acme');
      expect(get<HTMLInputElement>(form, '#project').value).to.equal('shop');
      expect(get<HTMLInputElement>(form, '#email').value).to.equal('');
      expect(get<HTMLInputElement>(form, '#key').value).to.equal('');
    } finally {
      history.replaceState(null, '', url);
    }
  });

  it('signs out: the service ends the session, the tab forgets the project, and the sign-in form returns', async () => {
    await openConsole();
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await list(app);
    get<HTMLButtonElement>(app, 'button.sign-out').click();
    const form = await signInForm(app);
    expect(form.notice).to.equal('You signed out.');
    expect(sessionStorage.getItem(SESSION_KEY)).to.equal(null);
    expect((await fetch(`${acme}/me`, { cache: 'no-store' })).status).to.equal(401);
  });

  it('shows a JSON error inline, the service\'s invalid_config message, and offers to load a version someone else saved', async function () {
    this.timeout(30_000);
    const name = unique('admin-conflict');
    made.push(name);
    const body = { variations: [{ name: 'control', weight: 50, body: {} }, { name: 'bold', weight: 50, body: {} }] };
    expect((await adminFetch(`experiences/${name}`, { method: 'PUT', body: JSON.stringify(body) })).status).to.equal(201);
    await openConsole();
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    (await row(app, name)).querySelector<HTMLButtonElement>('button[data-action="edit"]')!.click();
    const form = await editor(app);
    const update = () => form.updateComplete;
    const save = get<HTMLButtonElement>(form, 'button[type="submit"]');

    fill(get<HTMLTextAreaElement>(form, '#condition'), '{"country": ');
    await update();
    expect(get(form, '#condition').getAttribute('aria-invalid')).to.equal('true');
    expect(text(get(form, '#condition-error'))).to.match(/^Not valid JSON: /);
    expect(save.disabled).to.equal(true);
    fill(get<HTMLTextAreaElement>(form, '#condition'), '{"country": "DE"}');

    // Two variations of one name: a rule the form leaves to the service.
    fill(form.shadowRoot!.querySelectorAll('tbody tr')[1]!.querySelector('input')!, 'control');
    await update();
    save.click();
    const refusedAlert = await until(() => find(form, '.form-actions [role="alert"]'), 'the service\'s message');
    expect(text(refusedAlert)).to.contain('experience.variations[1].name: "control" is used twice');
    await until(() => form.shadowRoot!.activeElement === refusedAlert || null, 'focus on the message, not lost to the page');

    // Someone else saves meanwhile.
    fill(form.shadowRoot!.querySelectorAll('tbody tr')[1]!.querySelector('input')!, 'bold');
    expect((await adminFetch(`experiences/${name}`, { method: 'PUT', body: JSON.stringify({ ...body, traffic: 40 }) })).status).to.equal(200);
    await update();
    save.click();
    const conflict = await until(() => (text(find(form, '.form-actions [role="alert"]')).includes('Someone else changed') ? find(form, '.form-actions [role="alert"]') : null), 'the conflict');
    expect(text(conflict)).to.contain('Nothing was saved');
    const stored = await (await adminFetch(`experiences/${name}`)).json() as { traffic: number; condition?: unknown };
    expect(stored.traffic).to.equal(40);
    expect(stored.condition).to.equal(undefined);
    conflict.querySelector('button')!.click();
    await until(() => find<HTMLInputElement>(app, 'svc-admin-editor[status="ready"]', '#traffic')?.value === '40', 'their version in the form');
    await until(() => form.shadowRoot!.activeElement?.tagName === 'H1' || null, 'focus on the editor\'s heading');
    expect(text(get(form, '.meta'))).to.contain('Version 2');
  });

  it('creates an experiment with sequential intervals checked, and stores the analysis settings changed, only those', async function () {
    this.timeout(30_000);
    const name = unique('admin-analysis');
    made.push(name);
    await openConsole();
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    get<HTMLButtonElement>(await list(app), '.toolbar button.primary').click();
    let form = await editor(app);
    expect(get<HTMLInputElement>(form, '#sequential').checked, 'sequential, pre-checked').to.equal(true);
    expect(get<HTMLInputElement>(form, '#alpha').value).to.equal('0.05');
    expect(get<HTMLInputElement>(form, '#sequential-tuning').disabled).to.equal(false);
    fill(get<HTMLInputElement>(form, '#name'), name);
    fill(form.shadowRoot!.querySelectorAll('tbody tr')[1]!.querySelector('input')!, 'bold');
    await form.updateComplete;
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    await row(app, name);
    const created = await (await adminFetch(`experiences/${name}`)).json() as Record<string, unknown>;
    expect(created.sequential).to.equal(true);
    expect(created).not.to.have.any.keys('alpha', 'sequentialTuning', 'correction');

    (await row(app, name)).querySelector<HTMLButtonElement>('button[data-action="edit"]')!.click();
    form = await editor(app);
    get<HTMLInputElement>(form, '#sequential').click();
    fill(get<HTMLInputElement>(form, '#alpha'), '0.1');
    await form.updateComplete;
    expect(get<HTMLInputElement>(form, '#sequential-tuning').disabled, 'tuning off without sequential').to.equal(true);
    expect(text(get(form, '#alpha-hint'))).to.contain('90% confidence intervals');
    expect(text(get(form, '#sequential-hint'))).to.contain('read the results once, at the planned end');
    [...form.shadowRoot!.querySelectorAll<HTMLInputElement>('input[name="correction"]')].find((r) => r.value === 'benjamini-hochberg')!.click();
    await form.updateComplete;
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    await until(() => text(find(app, '.notices')).includes(`Saved '${name}' (version 2)`), 'the save');
    const saved = await (await adminFetch(`experiences/${name}`)).json() as Record<string, unknown>;
    expect(saved).to.include({ alpha: 0.1, correction: 'benjamini-hochberg', version: 2 });
    expect(saved).not.to.have.any.keys('sequential', 'sequentialTuning');

    // Content has no results: the panel goes with the variations.
    (await row(app, name)).querySelector<HTMLButtonElement>('button[data-action="edit"]')!.click();
    form = await editor(app);
    expect(find(form, '#analysis-title')).not.to.equal(null);
    [...form.shadowRoot!.querySelectorAll<HTMLInputElement>('input[name="kind"]')].find((r) => r.value === 'content')!.click();
    await form.updateComplete;
    expect(find(form, '#analysis-title')).to.equal(null);
  });

  it('never replaces an existing experience when creating one of the same name (create-only)', async function () {
    this.timeout(30_000);
    const name = unique('admin-taken');
    made.push(name);
    const body = { body: { text: 'theirs' } };
    expect((await adminFetch(`experiences/${name}`, { method: 'PUT', body: JSON.stringify(body) })).status).to.equal(201);
    await openConsole();
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    get<HTMLButtonElement>(await list(app), '.toolbar button.primary').click();
    const form = await editor(app);
    fill(get<HTMLInputElement>(form, '#name'), name);
    const rows = [...form.shadowRoot!.querySelectorAll('tbody tr')];
    fill(rows[1]!.querySelector('input')!, 'bold');
    await form.updateComplete;
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    const alert = await until(() => find(form, '.form-actions [role="alert"]'), 'the refusal');
    expect(text(alert)).to.contain(`An experience named '${name}' already exists`);
    const stored = await (await adminFetch(`experiences/${name}`)).json() as { body: unknown; version: number };
    expect(stored).to.include({ version: 1 });
    expect(stored.body).to.deep.equal({ text: 'theirs' });
  });

  it('says a project without experiences has none yet, and offers to create one', async () => {
    await openConsole(ADMIN_KEY, 'closed');
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    const empty = await until(() => find(app, 'svc-admin-experiences[status="empty"]'), 'the empty list');
    expect(text(get(empty, '.state'))).to.contain('No experiences yet — create one');
    get<HTMLButtonElement>(empty, '.state button').click();
    await editor(app);
  });

  it('renders what the service sends as text, never as HTML', async function () {
    this.timeout(20_000);
    const name = unique('<img src=x onerror="window.pwned=1">');
    made.push(name);
    const put = await adminFetch(`experiences/${encodeURIComponent(name)}`, {
      method: 'PUT', body: JSON.stringify({ group: '<b>bold</b>', body: { html: '<script>window.pwned=2</script>' } }),
    });
    expect(put.status).to.equal(201);
    await openConsole();
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    const r = await row(app, name);
    expect(text(r.querySelector('th'))).to.equal(`${name}group <b>bold</b>`);
    expect(r.querySelectorAll('img, b, script')).to.have.length(0);
    get<HTMLButtonElement>(app, 'header nav button:nth-of-type(2)').click();
    const audit = await until(() => find(app, 'svc-admin-audit[status="ready"]'), 'the audit log');
    const entry = audit.shadowRoot!.querySelector(`tr[data-name="${CSS.escape(name)}"]`)!;
    expect(entry.querySelectorAll('img, b, script')).to.have.length(0);
    expect(entry.querySelectorAll('pre')[1]!.textContent).to.contain('<script>window.pwned=2</script>');
    expect((window as { pwned?: unknown }).pwned).to.equal(undefined);
  });

  it('is accessible signed in: the list, the editor and the confirmation dialog (axe)', async function () {
    this.timeout(30_000);
    await openConsole();
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    const experiences = await list(app);
    await until(() => !text(experiences.shadowRoot!.querySelector('table')).includes('loading…'), 'the headline results');
    await expect(app).to.be.accessible();

    await openStep(app, 'results-hero', 'stop');
    await expect(app).to.be.accessible();
    get<HTMLButtonElement>(dialogOf(app), 'button[value="cancel"]').click();

    get<HTMLButtonElement>(experiences, '.toolbar button.primary').click();
    const form = await editor(app);
    await expect(app).to.be.accessible();
    fill(form.shadowRoot!.querySelectorAll<HTMLInputElement>('tbody input[type="number"]')[0]!, '10');
    fill(get<HTMLTextAreaElement>(form, '#condition'), '{');
    await form.updateComplete;
    await expect(app).to.be.accessible();
  });
});
