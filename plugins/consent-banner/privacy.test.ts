// Privacy in the browser: Global Privacy Control refuses the categories that sell or share data without asking (recorded
// by our real service with source "gpc"), and svc.forget() leaves nothing of the visitor behind.
import { expect, fixture, html } from '@open-wc/testing';
import type { ServiceEvent } from '../../src/index.js';
import { cleanup, makeSvc, sentBatches, stubFetch } from '../../test/helpers/svc.js';
import { consentBanner, type SvcConsent } from './index.js';

const api = `${location.origin}/v1`;

/** The browser's Global Privacy Control signal (Chromium has no setting for it; Brave, Firefox and extensions set it). */
function setGpc(on: boolean | undefined): void {
  if (on === undefined) delete (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl;
  else Object.defineProperty(navigator, 'globalPrivacyControl', { value: on, configurable: true });
}

async function stored(profileId: string, count: number): Promise<Record<string, unknown>[]> {
  // Bounded polling on the service's answers, not on time: the records are sent with keep-alive.
  for (let i = 0; i < 200; i++) {
    const rows = (await (await fetch(`/__svc-test/consents?profileId=${encodeURIComponent(profileId)}`)).json()) as Record<string, unknown>[];
    if (rows.length >= count) return rows;
  }
  throw new Error(`fewer than ${count} consent records were stored for ${profileId}`);
}

const byCategory = (rows: Record<string, unknown>[]) => Object.fromEntries(rows.map((r) => [r.category, r.action]));

describe('Global Privacy Control', () => {
  const removers: (() => void)[] = [];
  afterEach(async () => {
    for (const remove of removers.splice(0)) remove();
    setGpc(undefined);
    await cleanup();
  });

  it('refuses marketing and personalization without a click; the service records it with source "gpc"; the banner says so', async () => {
    setGpc(true);
    let consent: ServiceEvent | undefined;
    const onConsent = (e: WindowEventMap['svc:consent']): void => void (consent = e.detail.event);
    window.addEventListener('svc:consent', onConsent);
    const svc = makeSvc({ api, writeKey: 'web1.p4ss', consent: { required: true } });
    window.removeEventListener('svc:consent', onConsent);
    removers.push(svc.use(consentBanner()));
    expect(consent, 'the GPC decision is announced at once').to.not.equal(undefined);
    const rows = await stored(consent!.profileId, 4);
    expect(byCategory(rows)).to.deep.equal({ necessary: 'accept', analytics: 'reject', marketing: 'reject', personalization: 'reject' });
    for (const row of rows) expect(row.source).to.equal('gpc');

    // The banner still asks about the rest, says why the others are off, and keeps their switches off.
    const el = await fixture<SvcConsent>(html`<svc-consent></svc-consent>`);
    await el.updateComplete;
    expect(el.open).to.equal(true);
    expect(el.shadowRoot!.querySelector('[part="gpc"]')!.textContent).to.contain('Global Privacy Control');
    el.shadowRoot!.querySelector<HTMLButtonElement>('button[part~="customize"]')!.click();
    await el.updateComplete;
    const marketing = el.shadowRoot!.querySelector<HTMLInputElement>('input[name="marketing"]')!;
    expect([marketing.checked, marketing.disabled]).to.deep.equal([false, true]);
    await expect(el).to.be.accessible();

    // Accept all: analytics on, the refused categories stay off.
    el.shadowRoot!.querySelector<HTMLButtonElement>('button[part~="accept"]')!.click();
    const after = await stored(consent!.profileId, 8);
    const banner = after.filter((r) => r.source === 'banner');
    expect(byCategory(banner)).to.deep.equal({ necessary: 'accept', analytics: 'accept', marketing: 'reject', personalization: 'reject' });
    expect(svc.isUserOptIn()).to.equal(true);
  });

  it('without a consent policy, tracking stays on and only the sale and sharing categories are refused', async () => {
    setGpc(true);
    const fetchStub = stubFetch(200, { ok: true });
    const svc = makeSvc({ consent: { categories: ['necessary', 'analytics', 'advertising', 'personalization'] } });
    expect(svc.isUserOptIn()).to.equal(true);
    const record = fetchStub.getCalls().map((c) => JSON.parse(String((c.args[1] as RequestInit).body)) as Record<string, unknown>)
      .find((b) => b.source === 'gpc');
    expect(record?.categories).to.deep.equal({ necessary: true, analytics: true, advertising: false, personalization: false });
    // The next page finds the signal honoured already: nothing is sent again.
    fetchStub.resetHistory();
    makeSvc({ consent: { categories: ['necessary', 'analytics', 'advertising', 'personalization'] } });
    expect(fetchStub.callCount).to.equal(0);
  });

  it('without the signal, nothing is decided for the visitor', async () => {
    setGpc(false);
    const fetchStub = stubFetch(200, { ok: true });
    makeSvc({ consent: { required: true } });
    expect(fetchStub.callCount).to.equal(0);
    expect(localStorage.getItem('svc.consent')).to.equal(null);
  });
});

describe('svc.forget()', () => {
  afterEach(() => cleanup());

  it('drops what is queued, clears ids, consent and what was remembered, and starts afresh', async () => {
    const fetchStub = stubFetch(200, { accepted: 1, duplicates: 0 });
    const svc = makeSvc({ consent: { required: true } });
    svc.use(consentBanner());
    const el = await fixture<SvcConsent>(html`<svc-consent></svc-consent>`);
    await el.updateComplete;
    el.shadowRoot!.querySelector<HTMLButtonElement>('button[part~="accept"]')!.click();
    expect(el.open).to.equal(false);
    svc.identify({ userId: 'user-forget-me' });
    svc.productView('p-1');
    const before = localStorage.getItem('svc.profileId');
    expect(before).to.be.a('string');

    svc.forget();
    await el.updateComplete;
    // Nothing of the visitor is left in storage; the banner asks again; tracking is off again (the policy's default).
    expect(Object.keys(localStorage).filter((k) => k.startsWith('svc.'))).to.deep.equal([]);
    expect(el.open).to.equal(true);
    expect(svc.isUserOptIn()).to.equal(false);
    await svc.flush();
    const sent = sentBatches(fetchStub).flat();
    expect(sent.filter((e) => e.userId === 'user-forget-me' || e.name === 'Product viewed')).to.deep.equal([]);

    // A new decision starts a new profile.
    el.shadowRoot!.querySelector<HTMLButtonElement>('button[part~="accept"]')!.click();
    svc.track({ eventTitle: 'After', data: { step: 1 } });
    await svc.flush();
    const after = sentBatches(fetchStub).flat().find((e) => e.name === 'After');
    expect(after?.profileId).to.be.a('string');
    expect(after?.profileId).to.not.equal(before);
  });
});
