// The console's Privacy page against our running service (test/helpers/service-under-test.mjs): a person tracked through
// the service's own endpoint is exported, then erased; the requests show their status until done, and the erased user
// id joins the suppression list. Every person here has ids of their own (the service outlives this file).
import { expect, fixture, html } from '@open-wc/testing';
import type { SvcAdmin } from './admin-app.js';
import { fill, find, get, shop, signIn, text, unique, until } from './admin-test-helpers.js';
import type { SvcAdminConfirm } from './confirm-dialog.js';
import { defineAdmin } from './define-admin.js';
import type { SvcAdminPrivacy } from './privacy-page.js';

defineAdmin();

async function track(events: Record<string, unknown>[]): Promise<void> {
  const res = await fetch(`${shop}/sources/web/track`, {
    method: 'POST', headers: { Authorization: `Basic ${btoa('web1:p4ss')}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ batch: events }),
  });
  expect(res.status).to.equal(200);
}

const event = (profileId: string, extra: Record<string, unknown>) => ({
  eventId: crypto.randomUUID(), profileId, sessionId: `${profileId}-s`, pageId: `${profileId}-p`, timestamp: new Date().toISOString(), ...extra,
});

describe('<svc-admin> privacy page', () => {
  beforeEach(() => sessionStorage.clear());
  afterEach(() => sessionStorage.clear());

  it('exports a person, then erases them after a confirmation; statuses update until done; the user id is suppressed', async function () {
    this.timeout(60_000);
    const userId = unique('privacy-user');
    const profileId = unique('privacy-profile');
    await track([
      event(profileId, { type: 'identify', name: 'identify', userId }),
      event(profileId, { type: 'track', name: 'Clicked banner', data: { position: 1 } }),
      event(profileId, { type: 'track', name: 'Clicked banner', data: { position: 2 } }),
    ]);
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await signIn(app);
    await until(() => find(app, 'svc-admin-experiences'), 'the console');
    const nav = [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('nav button')].find((b) => text(b) === 'Privacy')!;
    nav.click();
    const page = await until(() => find<SvcAdminPrivacy>(app, 'svc-admin-privacy[status="ready"], svc-admin-privacy[status="empty"]'), 'the privacy page');
    expect(nav.getAttribute('aria-current')).to.equal('page');
    await expect(page).to.be.accessible();

    // Export: named by user id (the default), done with the person's rows counted.
    fill(get<HTMLInputElement>(page, 'input[name="value"]'), userId);
    get<HTMLButtonElement>(page, 'button[value="exports"]').click();
    const exported = await until(() => [...page.shadowRoot!.querySelectorAll('tbody tr')]
      .find((r) => text(r).includes(userId) && text(r).includes('Export') && text(r).includes('done')), 'the done export');
    expect(text(exported)).to.contain('3 events').and.contain('1 identities');
    expect(exported.querySelector('button')?.textContent).to.contain('Download JSON');

    // Erase: confirmed in a dialog first; cancelling sends nothing.
    fill(get<HTMLInputElement>(page, 'input[name="value"]'), userId);
    get<HTMLButtonElement>(page, 'button[value="erasures"]').click();
    const dialog = get<SvcAdminConfirm>(page, 'svc-admin-confirm');
    const open = await until(() => find<HTMLDialogElement>(dialog, 'dialog[open]'), 'the confirmation');
    expect(text(open)).to.contain('Erase this person?');
    [...open.querySelectorAll<HTMLButtonElement>('button')].find((b) => text(b) === 'Erase')!.click();
    const erased = await until(() => [...page.shadowRoot!.querySelectorAll('tbody tr')]
      .find((r) => text(r).includes('Erasure') && text(r).includes('done') && text(r).includes('3 events')), 'the done erasure');
    // The erasure forgot whom it was about; the export lost its data.
    expect(text(erased)).to.contain('(userId, erased)');
    const suppressed = await until(() => [...page.shadowRoot!.querySelectorAll('tbody tr')].find((r) => text(r).includes(userId) && text(r).includes('user')), 'the suppressed id');
    expect(text(suppressed)).to.contain(userId);
    expect(text(get(app, '.notices'))).to.contain(`Erasure of ${userId} requested.`);
    await expect(page).to.be.accessible();
  });

  it('says why a request was refused and sends nothing more', async () => {
    const app = await fixture<SvcAdmin>(html`<svc-admin></svc-admin>`);
    await signIn(app);
    await until(() => find(app, 'svc-admin-experiences'), 'the console');
    [...app.shadowRoot!.querySelectorAll<HTMLButtonElement>('nav button')].find((b) => text(b) === 'Privacy')!.click();
    const page = await until(() => find<SvcAdminPrivacy>(app, 'svc-admin-privacy[status="ready"], svc-admin-privacy[status="empty"]'), 'the privacy page');
    get<HTMLInputElement>(page, 'input[value="profileId"]').click();
    await page.updateComplete;
    fill(get<HTMLInputElement>(page, 'input[name="value"]'), 'some-profile');
    fill(get<HTMLInputElement>(page, 'input[name="sourceId"]'), 'nope');
    get<HTMLButtonElement>(page, 'button[value="exports"]').click();
    const alert = await until(() => find(page, '.alert.error'), 'the error');
    expect(text(alert)).to.equal('The source "nope" is not a source of this project.');
  });
});
