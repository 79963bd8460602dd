// <svc-admin-audit> against our running service: its filters go to the service as query parameters (the service
// filters before it takes the latest entries), and each entry says who made it, with their role, address and browser.
import { expect, fixture, html } from '@open-wc/testing';
import { setViewport } from '@web/test-runner-commands';
import { adminFetch, fill, find, get, keyApi, recordRequests, text, unique, until } from './admin-test-helpers.js';
import { weightChanges, type SvcAdminAudit } from './audit-log.js';
import { defineAdmin } from './define-admin.js';

defineAdmin();

const rows = (el: SvcAdminAudit): HTMLElement[] => [...el.shadowRoot!.querySelectorAll<HTMLElement>('tbody tr')];

async function select(field: HTMLSelectElement, value: string): Promise<void> {
  field.value = value;
  field.dispatchEvent(new Event('change', { bubbles: true, composed: true }));
}

describe('<svc-admin-audit>', () => {
  const made: string[] = [];
  let recorder: ReturnType<typeof recordRequests>;
  let sent: string[] = [];

  beforeEach(() => {
    recorder = recordRequests('/audit');
    sent = recorder.sent;
  });
  afterEach(async () => {
    recorder.stop();
    await setViewport({ width: 800, height: 600 });
  });
  after(async () => {
    for (const name of made) await adminFetch(`experiences/${encodeURIComponent(name)}`, { method: 'DELETE' });
  });

  it('names who asked for a privacy request on the entry the service wrote when it was done, "by the service"', async function () {
    this.timeout(20_000);
    const asked = await adminFetch('privacy/exports', { method: 'POST', body: JSON.stringify({ userId: unique('audit-privacy') }) });
    expect(asked.status).to.equal(202);
    const { id } = await asked.json() as { id: string };
    for (let polls = 0; (await (await adminFetch(`privacy/exports/${id}`)).json() as { status: string }).status !== 'done'; polls++) {
      expect(polls, 'the export is done').to.be.below(400);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const el = await fixture<SvcAdminAudit>(html`<svc-admin-audit .api=${await keyApi()}></svc-admin-audit>`);
    const done = await until(() => rows(el).find((r) => r.dataset.name === id && r.dataset.action === 'update'), 'the entry of the export done');
    const created = rows(el).find((r) => r.dataset.name === id && r.dataset.action === 'create')!;
    const asker = el.entries.find((e) => e.name === id && e.action === 'create')!.actor!.name;
    expect(text(done.querySelector('td.who'))).to.contain(`${asker} (by the service)`);
    expect(text(created.querySelector('td.who'))).to.contain(asker).and.not.contain('by the service');
    await expect(el).to.be.accessible();
  });

  it('sends who, kind, name and dates as query parameters and shows only what matches; Clear shows everything again', async function () {
    this.timeout(20_000);
    const [mine, other] = [unique('audit-mine'), unique('audit-other')];
    made.push(mine, other);
    for (const name of [mine, other]) {
      expect((await adminFetch(`experiences/${name}`, { method: 'PUT', body: JSON.stringify({ body: { text: name } }) })).status).to.equal(201);
    }
    const el = await fixture<SvcAdminAudit>(html`<svc-admin-audit .api=${await keyApi()}></svc-admin-audit>`);
    await until(() => el.status === 'ready' && rows(el).some((r) => r.dataset.name === mine), 'the log');
    const entry = rows(el).find((r) => r.dataset.name === mine)!;
    const actor = el.entries.find((e) => e.name === mine)!.actor!;
    expect(actor).to.include({ type: 'key', role: 'admin' });

    // Who, with the role they had; the address and browser in the row's details.
    expect(text(entry.querySelector('td.who'))).to.contain(actor.name).and.contain('key · admin');
    expect(text(entry.querySelector('[data-field="ip"]'))).to.equal(actor.ip);
    expect(text(entry.querySelector('[data-field="user-agent"]'))).to.equal(navigator.userAgent.slice(0, 256));

    const today = new Date().toISOString().slice(0, 10);
    fill(get<HTMLInputElement>(el, '#filter-actor'), actor.id);
    await select(get<HTMLSelectElement>(el, '#filter-kind'), 'experience');
    fill(get<HTMLInputElement>(el, '#filter-name'), mine);
    fill(get<HTMLInputElement>(el, '#filter-since'), today);
    fill(get<HTMLInputElement>(el, '#filter-until'), today);
    get<HTMLButtonElement>(el, 'form.filters button[type="submit"]').click();
    await until(() => el.status === 'ready' && rows(el).every((r) => r.dataset.name === mine) && rows(el).length > 0, 'the filtered log');
    const query = new URL(sent.at(-1)!).searchParams;
    expect(Object.fromEntries(query)).to.deep.equal({ limit: '50', actor: actor.id, kind: 'experience', name: mine, since: today, until: today });
    expect(text(get(el, '#limit-note'))).to.contain('that match the filters');
    await expect(el).to.be.accessible();

    get<HTMLButtonElement>(el, 'button[data-action="clear-filters"]').click();
    await until(() => rows(el).some((r) => r.dataset.name === other), 'the whole log');
    expect(new URL(sent.at(-1)!).search).to.equal('?limit=50');
  });

  it('says no change matches, and offers to clear the filters', async () => {
    const el = await fixture<SvcAdminAudit>(html`<svc-admin-audit .api=${await keyApi()}></svc-admin-audit>`);
    await until(() => el.status === 'ready' || el.status === 'empty', 'the log');
    fill(get<HTMLInputElement>(el, '#filter-name'), unique('nothing'));
    get<HTMLButtonElement>(el, 'form.filters button[type="submit"]').click();
    await until(() => el.status === 'empty', 'the empty log');
    expect(text(get(el, '.state'))).to.contain('No change matches these filters.');
    get<HTMLButtonElement>(el, '.state button').click();
    await until(() => el.status === 'ready', 'the whole log');
    expect(find(el, 'button[data-action="clear-filters"]')).to.equal(null);
  });

  it('breaks a privacy request\'s id inside its card on a phone', async () => {
    const res = await adminFetch('privacy/exports', { method: 'POST', body: JSON.stringify({ userId: unique('audit-phone') }) });
    expect(res.status).to.equal(202);
    const { id } = await res.json() as { id: string };
    await setViewport({ width: 390, height: 800 });
    const el = await fixture<SvcAdminAudit>(html`<svc-admin-audit .api=${await keyApi()}></svc-admin-audit>`);
    const row = await until(() => find(el, `tr[data-name="${id}"]`), 'the request\'s row');
    const name = row.querySelector('th')!;
    expect(name.scrollWidth, 'the id is not cut').to.be.at.most(name.clientWidth);
    expect(name.getBoundingClientRect().right).to.be.at.most(row.getBoundingClientRect().right);
  });

  it('fits its filters on a phone', async () => {
    await setViewport({ width: 390, height: 800 });
    const el = await fixture<SvcAdminAudit>(html`<svc-admin-audit .api=${await keyApi()}></svc-admin-audit>`);
    await until(() => el.status === 'ready' || el.status === 'empty', 'the log');
    expect(document.documentElement.scrollWidth).to.be.at.most(390);
    await expect(el).to.be.accessible();
  });
});

describe('a bandit\'s reweight in the audit log', () => {
  it('reads as each arm\'s weight before and after', () => {
    const arms = (a: number, b: number) => ({ variations: [{ name: 'feed-1', weight: a }, { name: 'feed-2', weight: b }] });
    expect(weightChanges({ before: arms(50, 50), after: arms(12.5, 87.5) })).to.equal('feed-1 50 → 12.5, feed-2 50 → 87.5');
  });
});
