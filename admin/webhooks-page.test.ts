// The console's Webhooks page against our running service (test/helpers/service-under-test.mjs), which may send to
// loopback and has a receiver beside it (`/__svc-test/webhook/<status>`, answered by the test runner itself). The
// service outlives this file: every endpoint made here is deleted after its test, and each test finds its own by id.
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import type { SvcAdmin } from './admin-app.js';
import { adminFetch, attributeValues, fill, find, get, resetAddress, signIn, signOutEverywhere, storedValues, text, until } from './admin-test-helpers.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { defineAdmin } from './define-admin.js';
import type { CreatedWebhook, WebhookEndpoint } from './webhook.js';
import type { SvcAdminWebhookForm } from './webhook-form.js';
import type { SvcAdminWebhooks } from './webhooks-page.js';

defineAdmin();

/** The test runner's receiver, which answers `status`; the service reaches it over loopback. */
const receiver = (status = 200): string => `${location.origin}/__svc-test/webhook/${status}`;
const made: string[] = [];

async function createByApi(body: Record<string, unknown>): Promise<CreatedWebhook> {
  const res = await adminFetch('webhooks', { method: 'POST', body: JSON.stringify({ events: ['experiment.started'], ...body }) });
  expect(res.status, await res.clone().text()).to.equal(201);
  const created = await res.json() as CreatedWebhook;
  made.push(created.id);
  return created;
}

/** Asks the service until `condition` holds, a bounded number of times. */
async function eventually(condition: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

/** Signs in and opens Webhooks from the nav, as a person would. */
async function openPage(): Promise<{ app: SvcAdmin; page: SvcAdminWebhooks }> {
  const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
  await signIn(app);
  await until(() => find(app, 'svc-admin-experiences'), 'the console');
  const nav = [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('nav button')].find((b) => text(b) === 'Webhooks')!;
  nav.click();
  const page = await until(() => find<SvcAdminWebhooks>(app, 'svc-admin-webhooks[status="ready"], svc-admin-webhooks[status="empty"]'), 'the page');
  expect(nav.getAttribute('aria-current')).to.equal('page');
  expect(location.hash).to.equal('#/webhooks');
  return { app, page };
}

const card = (page: SvcAdminWebhooks, id: string, holds: (c: HTMLElement) => boolean = () => true) => until(() => {
  const c = find(page, `li[data-id="${CSS.escape(id)}"]`);
  return c && holds(c) ? c : null;
}, `the card of ${id}`);

const button = (root: Element | ShadowRoot, action: string): HTMLButtonElement => {
  const b = root.querySelector<HTMLButtonElement>(`button[data-action="${action}"]`);
  if (!b) throw new Error(`no ${action} button`);
  return b;
};

const newForm = (page: SvcAdminWebhooks) => get<SvcAdminWebhookForm>(page, 'section.new svc-admin-webhook-form');

/** Checks a form's event checkbox (or "Every experiment event"). */
function check(form: SvcAdminWebhookForm, selector: string): void {
  get<HTMLInputElement>(form, selector).click();
}

/** A cell's value, without the column's name it shows on a phone. */
function cell(row: Element, column: string): string {
  const td = [...row.querySelectorAll('td')].find((c) => text(c.querySelector('.cell-label')) === column);
  if (!td) throw new Error(`no column ${column}`);
  return text(td).slice(column.length).trim();
}

/** The first delivery's value in `column`, or undefined while there is none. */
const cellOf = (log: Element, column: string): string | undefined => {
  const row = find(log, 'tbody tr');
  return row ? cell(row, column) : undefined;
};

async function confirmDelete(page: SvcAdminWebhooks, answer: 'Delete' | 'Cancel'): Promise<void> {
  const dialog = get<SvcAdminConfirm>(page, 'svc-admin-confirm');
  const open = await until(() => find<HTMLDialogElement>(dialog, 'dialog[open]'), 'the confirmation');
  expect(text(open)).to.contain('Delete the endpoint');
  [...open.querySelectorAll<HTMLButtonElement>('button')].find((b) => text(b) === answer)!.click();
}

describe('<svc-admin> webhooks page', () => {
  beforeEach(async () => {
    sessionStorage.clear();
    resetAddress();
    await signOutEverywhere();
  });
  afterEach(async () => {
    await setViewport({ width: 800, height: 600 });
    for (const id of made.splice(0)) await adminFetch(`webhooks/${encodeURIComponent(id)}`, { method: 'DELETE' });
    sessionStorage.clear();
  });

  it('creates an endpoint: its secret shows once, focused, then the list shows it without the secret', async function () {
    this.timeout(30_000);
    const { app, page } = await openPage();
    await expect(page).to.be.accessible();
    const form = newForm(page);
    fill(get<HTMLInputElement>(form, '#url'), receiver());
    fill(get<HTMLInputElement>(form, '#description'), 'the team channel');
    check(form, '#all-experiments');
    check(form, 'input[value="feed.changed"]');
    check(form, 'input[name="format"][value="slack"]');
    await form.updateComplete;
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();

    const box = await until(() => find(page, '.secret[data-kind="webhook"]'), 'the secret');
    const secret = text(box.querySelector('code'));
    expect(secret).to.match(/^whsec_[A-Za-z0-9+/=]{32}$/);
    expect(text(box)).to.contain('not shown again').and.contain('Standard Webhooks');
    await until(() => box.contains(page.shadowRoot!.activeElement), 'the focus in the secret box');
    expect(text(get(app, '.notices'))).to.contain('created');
    // Nowhere but in the box's text: no attribute, no storage.
    expect(attributeValues(app).some((v) => v.includes(secret))).to.equal(false);
    expect(storedValues().some((v) => v.includes(secret))).to.equal(false);

    const list = await (await adminFetch('webhooks')).json() as { webhooks: WebhookEndpoint[] };
    const endpoint = list.webhooks.find((w) => w.url === receiver())!;
    made.push(endpoint.id);
    expect(endpoint).to.not.have.property('secret');
    const c = await card(page, endpoint.id);
    expect(text(c.querySelector('h3'))).to.equal(new URL(receiver()).host);
    expect(text(c)).to.contain(receiver()).and.contain('the team channel').and.contain('Slack').and.contain('Enabled');
    expect([...c.querySelectorAll('.chips li')].map((li) => text(li))).to.deep.equal([
      'experiment.started', 'experiment.stopped', 'experiment.phase_started', 'experiment.srm_detected', 'experiment.significant', 'feed.changed',
    ]);
    await expect(page).to.be.accessible();

    // Done: the secret is gone for good, also after leaving the page and coming back.
    button(box, 'dismiss').click();
    await until(() => !find(page, '.secret'), 'the box gone');
    expect(page.shadowRoot!.activeElement?.id).to.equal('endpoints-title');
    expect(page.shadowRoot!.textContent).to.not.contain(secret);
  });

  it('says by the field what is missing, and why the service refused the URL', async function () {
    this.timeout(20_000);
    const { page } = await openPage();
    const form = newForm(page);
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    const urlError = await until(() => find(form, '#url-error'), 'the URL\'s problem');
    expect(text(urlError)).to.equal('Enter the URL the events are sent to.');
    expect(get(form, '#url').getAttribute('aria-invalid')).to.equal('true');
    expect(form.shadowRoot!.activeElement?.id).to.equal('url');

    fill(get<HTMLInputElement>(form, '#url'), 'https://10.0.0.1/hook');
    await form.updateComplete;
    expect(find(form, '#url-error')).to.equal(null);
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    expect(text(await until(() => find(form, '#events-error'), 'the events\' problem'))).to.equal('Choose at least one event.');
    expect(form.shadowRoot!.activeElement?.id).to.equal('all-experiments');

    // The service's own refusal, by the field it names.
    check(form, 'input[value="experiment.stopped"]');
    await form.updateComplete;
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    const refused = await until(() => find(form, '#url-error'), 'the service\'s refusal');
    expect(text(refused)).to.contain('10.0.0.1').and.contain('private');
    expect(text(refused)).to.not.match(/^url:/);
    expect(get(form, '#url').getAttribute('aria-invalid')).to.equal('true');
    expect(get(form, '#url').getAttribute('aria-describedby')).to.contain('url-error');
    expect(find(page, '.secret')).to.equal(null);
    await expect(page).to.be.accessible();
  });

  it('edits an endpoint and disables it; a change made meanwhile is refused and their version offered', async function () {
    this.timeout(30_000);
    const created = await createByApi({ url: receiver(), description: 'before' });
    const { app, page } = await openPage();
    let c = await card(page, created.id);

    button(c, 'edit').click();
    const form = await until(() => find<SvcAdminWebhookForm>(c, 'svc-admin-webhook-form'), 'the edit form');
    await until(() => form.shadowRoot!.activeElement?.id === 'url', 'the focus in the form');
    fill(get<HTMLInputElement>(form, '#description'), 'after');
    check(form, 'input[value="bandit.reweighted"]');
    await form.updateComplete;
    get<HTMLButtonElement>(form, 'button[type="submit"]').click();
    c = await card(page, created.id, (el) => !el.querySelector('svc-admin-webhook-form') && text(el).includes('after'));
    expect(text(c)).to.contain('version 2');
    expect([...c.querySelectorAll('.chips li')].map((li) => text(li))).to.deep.equal(['experiment.started', 'bandit.reweighted']);
    expect(text(get(app, '.notices'))).to.contain('saved');

    button(c, 'toggle').click();
    c = await card(page, created.id, (el) => text(el.querySelector('.badge')) === 'Disabled');
    expect(text(button(c, 'toggle'))).to.contain('Enable');
    const stored = await (await adminFetch(`webhooks/${created.id}`)).json() as WebhookEndpoint;
    expect(stored).to.include({ enabled: false, version: 3, description: 'after' });

    // Someone else saves meanwhile: this edit is refused (412), nothing is overwritten, their version is one click away.
    button(c, 'edit').click();
    const again = await until(() => find<SvcAdminWebhookForm>(c, 'svc-admin-webhook-form'), 'the edit form');
    const theirs = await adminFetch(`webhooks/${created.id}`, {
      method: 'PUT', body: JSON.stringify({ url: receiver(), events: ['feed.changed'], enabled: false, description: 'theirs' }),
    });
    expect(theirs.status).to.equal(200);
    fill(get<HTMLInputElement>(again, '#description'), 'mine');
    get<HTMLButtonElement>(again, 'button[type="submit"]').click();
    const conflict = await until(() => find(again, '.alert.error'), 'the conflict');
    expect(text(conflict)).to.contain('Someone else changed this endpoint');
    expect((await (await adminFetch(`webhooks/${created.id}`)).json() as WebhookEndpoint).description).to.equal('theirs');
    [...conflict.querySelectorAll('button')].find((b) => text(b) === 'Load their version')!.click();
    await until(() => get<HTMLInputElement>(again, '#description').value === 'theirs', 'their version in the form');
    expect(get<HTMLInputElement>(again, 'input[value="feed.changed"]').checked).to.equal(true);
    expect(find(again, '.alert.error')).to.equal(null);
    await expect(page).to.be.accessible();
  });

  it('sends a test event: its delivery shows in the endpoint\'s log as it succeeds, and Resend sends it again', async function () {
    this.timeout(30_000);
    const created = await createByApi({ url: receiver(), events: ['privacy.request_done'] });
    const { app, page } = await openPage();
    const c = await card(page, created.id);
    button(c, 'test').click();
    const log = await until(() => find(c, 'svc-admin-webhook-deliveries'), 'the delivery log');
    expect(button(c, 'log').getAttribute('aria-expanded')).to.equal('true');
    expect(text(get(app, '.notices'))).to.contain('Test event queued');
    // The log reads itself again while the delivery is due: it is seen arriving, as the receiver answered.
    const row = await until(() => find(log, 'tbody tr[data-status="succeeded"]'), 'the delivery succeeded');
    expect(cell(row, 'Event')).to.equal('test event');
    expect(cell(row, 'Status')).to.equal('Succeeded');
    expect(cell(row, 'Response')).to.equal('200');
    expect(cell(row, 'Latency')).to.match(/^\d+ ms$/);
    expect(cell(row, 'Attempts')).to.equal('1');
    expect(cell(row, 'Next attempt')).to.equal('—');
    await expect(page).to.be.accessible();

    button(row, 'resend').click();
    await until(() => find(log, 'tbody tr[data-status="succeeded"]') && cellOf(log, 'Attempts') === '2', 'sent again');
    expect(log.shadowRoot!.querySelectorAll('tbody tr').length).to.equal(1);
    expect(text(get(app, '.notices'))).to.contain('queued again');
  });

  it('shows a failing endpoint\'s retries, then why and since when the service disabled it; Enable clears it', async function () {
    this.timeout(30_000);
    const created = await createByApi({ url: receiver(500) });
    expect((await adminFetch(`webhooks/${created.id}/test`, { method: 'POST', body: '{}' })).status).to.equal(202);
    await eventually(async () => (await (await adminFetch(`webhooks/${created.id}`)).json() as WebhookEndpoint).failingSince !== null, 'the first failure');
    const { page } = await openPage();
    let c = await card(page, created.id);
    expect(text(c.querySelector('.badge'))).to.equal('Enabled, failing');
    expect(text(c.querySelector('.alert.warning'))).to.contain('Deliveries have failed since').and.contain('24 hours');
    button(c, 'log').click();
    const log = await until(() => find(c, 'svc-admin-webhook-deliveries'), 'the delivery log');
    const row = await until(() => find(log, 'tbody tr'), 'the delivery');
    expect(cell(row, 'Status')).to.equal('Pending');
    expect(cell(row, 'Response')).to.equal('500');
    expect(cell(row, 'Next attempt')).to.not.equal('—');
    expect(cell(row, 'Error')).to.not.equal('—');
    expect(row.querySelector('button[data-action="resend"]')).to.equal(null);

    // A day later the service gives up: the card says so, why and since when; the delivery is failed, and may be resent.
    expect((await fetch('/__svc-test/webhook-gave-up?endpoint=' + encodeURIComponent(created.id))).status).to.equal(204);
    // The page's Refresh reads the endpoints again and the logs that are open.
    get<HTMLButtonElement>(page, '.toolbar button').click();
    c = await card(page, created.id, (el) => text(el.querySelector('.badge')) === 'Disabled by the service');
    expect(text(c.querySelector('.alert.error'))).to.contain('The service disabled this endpoint: it had failed since').and.contain('answered 500');
    const failed = await until(() => find(log, 'tbody tr[data-status="failed"]'), 'the delivery given up');
    expect(cell(failed, 'Status')).to.equal('Failed');
    expect(failed.querySelector('button[data-action="resend"]')).to.not.equal(null);
    await expect(page).to.be.accessible();

    button(c, 'toggle').click();
    c = await card(page, created.id, (el) => text(el.querySelector('.badge')) === 'Enabled');
    expect(c.querySelector('.alert')).to.equal(null);
  });

  it('deletes an endpoint after a confirmation; cancelling keeps it', async function () {
    this.timeout(20_000);
    const created = await createByApi({ url: receiver(404) });
    const { app, page } = await openPage();
    let c = await card(page, created.id);
    button(c, 'delete').click();
    await confirmDelete(page, 'Cancel');
    await page.updateComplete;
    expect((await adminFetch(`webhooks/${created.id}`)).status).to.equal(200);

    c = await card(page, created.id);
    button(c, 'delete').click();
    await confirmDelete(page, 'Delete');
    await until(() => !find(page, `li[data-id="${CSS.escape(created.id)}"]`), 'the card gone');
    expect((await adminFetch(`webhooks/${created.id}`)).status).to.equal(404);
    made.splice(made.indexOf(created.id), 1);
    expect(text(get(app, '.notices'))).to.contain('deleted');
    expect(page.shadowRoot!.activeElement?.id).to.equal('endpoints-title');
  });

  it('fits a phone: the delivery log is a card per delivery, the page never scrolls sideways', async function () {
    this.timeout(30_000);
    await setViewport({ width: 390, height: 800 });
    const created = await createByApi({ url: `${receiver()}?${'long-query-'.repeat(12)}` });
    const { page } = await openPage();
    const c = await card(page, created.id);
    button(c, 'test').click();
    const log = await until(() => find(c, 'svc-admin-webhook-deliveries'), 'the delivery log');
    await until(() => find(log, 'tbody tr'), 'the delivery');
    expect(document.documentElement.scrollWidth).to.be.at.most(390);
    expect(getComputedStyle(get(log, 'thead')).display).to.equal('none');
    await expect(page).to.be.accessible();
  });
});
