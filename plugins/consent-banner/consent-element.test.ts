import { expect, fixture, html } from '@open-wc/testing';
import { sendKeys } from '@web/test-runner-commands';
import sinon from 'sinon';
import type { ConsentChangeDetail, ServiceConfig } from '../../src/index.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from '../../test/helpers/svc.js';
import { consentBanner, consentModeSignals, type SvcConsent } from './index.js';

const REQUIRED: Partial<ServiceConfig> = { consent: { required: true } };

function button(el: SvcConsent, part: string): HTMLButtonElement {
  return el.shadowRoot!.querySelector<HTMLButtonElement>(`button[part~="${part}"]`)!;
}

function consentBodies(fetchStub: sinon.SinonStub): Record<string, unknown>[] {
  return fetchStub.getCalls()
    .filter((c) => String(c.args[0]).endsWith('/consents/data'))
    .map((c) => JSON.parse(String((c.args[1] as RequestInit).body)) as Record<string, unknown>);
}

/** The consent requests sent, each as its [category, action] pairs: one request per decision, with every category. */
function decisions(fetchStub: sinon.SinonStub): [string, string][][] {
  return consentBodies(fetchStub).map((b) => Object.entries(b.categories as Record<string, boolean>).map(([c, ok]) => [c, ok ? 'accept' : 'reject']));
}

async function banner(markup = html`<svc-consent></svc-consent>`): Promise<SvcConsent> {
  const el = await fixture<SvcConsent>(markup);
  await el.updateComplete;
  return el;
}

describe('<svc-consent> and the consent policy', () => {
  const removers: (() => void)[] = [];
  afterEach(() => {
    for (const remove of removers.splice(0)) remove();
    delete (window as { gtag?: unknown }).gtag;
    delete (window as { __tcfapi?: unknown }).__tcfapi;
    cleanup();
  });
  function setup(config: Partial<ServiceConfig> = REQUIRED) {
    const svc = makeSvc(config);
    removers.push(svc.use(consentBanner()));
    return svc;
  }

  it('in required mode nothing reaches the network or storage before acceptance', async () => {
    const fetchStub = stubFetch();
    const svc = setup();
    const el = await banner();
    expect(el.open).to.equal(true);
    expect(svc.isUserOptIn()).to.equal(false);
    const { events, stop } = captureEvents();
    svc.track({ eventTitle: 'Before', data: { a: 1 } });
    svc.productView('p1');
    svc.identify({ userId: 'u' });
    await svc.flush();
    stop();
    expect(events).to.have.length(0);
    expect(fetchStub.callCount).to.equal(0);
    expect(Object.keys(localStorage)).to.deep.equal([]);
  });

  it('without the policy, tracking is on by default and the banner still asks', async () => {
    stubFetch();
    const svc = setup({});
    const el = await banner();
    expect(svc.isUserOptIn()).to.equal(true);
    expect(el.open).to.equal(true);
  });

  it('Accept all: one request for the decision, every category accepted, opted in, remembered after a reload', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    const svc = setup();
    const el = await banner();
    const changes: ConsentChangeDetail[] = [];
    const onChange = (e: WindowEventMap['svc:consent-change']): void => void changes.push(e.detail);
    window.addEventListener('svc:consent-change', onChange);
    const { events, stop } = captureEvents();
    button(el, 'accept').click();
    stop();
    window.removeEventListener('svc:consent-change', onChange);
    await el.updateComplete;
    expect(el.open).to.equal(false);
    expect(svc.isUserOptIn()).to.equal(true);
    const bodies = consentBodies(fetchStub);
    expect(bodies).to.have.length(1);
    expect(bodies[0]).to.include({ sourceId: 'web', profileId: events[0]!.profileId, action: 'accept' });
    expect(bodies[0]!.categories).to.deep.equal({ necessary: true, analytics: true, marketing: true, personalization: true });
    expect(events.map((e) => [e.type, e.name, e.data?.action])).to.deep.equal([['consent', 'Consent', 'accept']]);
    expect(changes[0]).to.include({ action: 'accept', source: 'banner' });
    expect(changes[0]!.categories).to.deep.equal({ necessary: true, analytics: true, marketing: true, personalization: true });
    // a reload: a new instance on the same browser storage
    const reloaded = makeSvc(REQUIRED);
    expect(reloaded.isUserOptIn()).to.equal(true);
    expect(localStorage.getItem('svc.profileId')).to.equal(events[0]!.profileId);
  });

  it('Reject all: reject records, opted out, nothing tracked, remembered after a reload', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    const svc = setup();
    const el = await banner();
    let consentEvents = 0;
    const onConsent = (): void => void consentEvents++;
    window.addEventListener('svc:consent', onConsent);
    button(el, 'reject').click();
    window.removeEventListener('svc:consent', onConsent);
    expect(consentEvents).to.equal(1);
    expect(svc.isUserOptIn()).to.equal(false);
    expect(decisions(fetchStub)).to.deep.equal([[
      ['necessary', 'accept'], ['analytics', 'reject'], ['marketing', 'reject'], ['personalization', 'reject'],
    ]]);
    svc.track({ eventTitle: 'After', data: { a: 1 } });
    await svc.flush();
    expect(fetchStub.getCalls().filter((c) => String(c.args[0]).endsWith('/track'))).to.have.length(0);
    expect(makeSvc(REQUIRED).isUserOptIn()).to.equal(false);
    const again = await banner();
    expect(again.open, 'a valid choice is not asked again').to.equal(false);
  });

  it('Reject all opts out when the policy has no analytics category (necessary is no acceptance)', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    const config: Partial<ServiceConfig> = { consent: { required: true, categories: ['necessary', 'marketing'] } };
    const svc = setup(config);
    const el = await banner();
    button(el, 'reject').click();
    expect(decisions(fetchStub)).to.deep.equal([[['necessary', 'accept'], ['marketing', 'reject']]]);
    expect(consentBodies(fetchStub)[0]).to.include({ action: 'reject' });
    expect(svc.isUserOptIn()).to.equal(false);
    svc.track({ eventTitle: 'After', data: { a: 1 } });
    await svc.flush();
    expect(fetchStub.getCalls().filter((c) => String(c.args[0]).endsWith('/track'))).to.have.length(0);
    expect(makeSvc(config).isUserOptIn()).to.equal(false);
  });

  it("destroying one SDK instance leaves the banner working for another's", async () => {
    const fetchStub = stubFetch(200, { ok: true });
    const first = setup();
    const second = setup();
    const el = await banner();
    first.destroy();
    button(el, 'accept').click();
    expect(second.isUserOptIn()).to.equal(true);
    expect(consentBodies(fetchStub)).to.have.length(1);
  });

  it('Customize: the switches decide each category', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    const svc = setup();
    const el = await banner();
    button(el, 'customize').click();
    await el.updateComplete;
    const switches = [...el.shadowRoot!.querySelectorAll<HTMLInputElement>('input[role="switch"]')];
    expect(switches.map((s) => [s.name, s.checked, s.disabled])).to.deep.equal([
      ['necessary', true, true], ['analytics', false, false], ['marketing', false, false], ['personalization', false, false],
    ]);
    switches[1]!.click(); // analytics on
    switches[3]!.click(); // personalization on
    await el.updateComplete;
    button(el, 'save').click();
    expect(svc.isUserOptIn()).to.equal(true);
    expect(decisions(fetchStub)).to.deep.equal([[
      ['necessary', 'accept'], ['analytics', 'accept'], ['marketing', 'reject'], ['personalization', 'accept'],
    ]]);
  });

  it('saving the remembered choice again sends nothing and tracks nothing; a changed one is a new decision', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    setup();
    const el = await banner();
    button(el, 'accept').click();
    let consentEvents = 0;
    const onConsent = (): void => void consentEvents++;
    window.addEventListener('svc:consent', onConsent);
    await el.show();
    button(el, 'accept').click();
    expect(el.open, 'the banner closes all the same').to.equal(false);
    expect(consentEvents).to.equal(0);
    expect(consentBodies(fetchStub)).to.have.length(1);
    await el.show();
    button(el, 'customize').click();
    await el.updateComplete;
    el.shadowRoot!.querySelector<HTMLInputElement>('input[name="marketing"]')!.click();
    await el.updateComplete;
    button(el, 'save').click();
    window.removeEventListener('svc:consent', onConsent);
    expect(consentEvents).to.equal(1);
    expect(decisions(fetchStub)).to.deep.equal([
      [['necessary', 'accept'], ['analytics', 'accept'], ['marketing', 'accept'], ['personalization', 'accept']],
      [['necessary', 'accept'], ['analytics', 'accept'], ['marketing', 'reject'], ['personalization', 'accept']],
    ]);
  });

  it('an expired choice is forgotten: the banner asks again and tracking is off again', async () => {
    stubFetch(200, { ok: true });
    const clock = sinon.useFakeTimers({ now: Date.parse('2026-01-01T10:00:00Z'), toFake: ['Date'] });
    setup();
    const el = await banner(html`<svc-consent valid-days="30"></svc-consent>`);
    button(el, 'accept').click();
    expect(makeSvc(REQUIRED).isUserOptIn()).to.equal(true);
    clock.tick(30 * 24 * 3600 * 1000);
    for (const remove of removers.splice(0)) remove();
    const svc = setup();
    expect(svc.isUserOptIn()).to.equal(false);
    const asked = await banner();
    expect(asked.open).to.equal(true);
    clock.restore();
  });

  it('a consent record the service did not take is kept and sent again by the next page', async () => {
    const fetchStub = stubFetch(503, {});
    setup();
    const el = await banner();
    button(el, 'reject').click();
    await Promise.all(fetchStub.returnValues);
    await new Promise<void>((resolve) => queueMicrotask(resolve));
    await waitFor(() => JSON.parse(localStorage.getItem('svc.consentPending') ?? '[]').length === 1);
    fetchStub.restore();
    const retry = stubFetch(200, { ok: true });
    makeSvc(REQUIRED);
    expect(decisions(retry)).to.deep.equal([
      [['necessary', 'accept'], ['analytics', 'reject'], ['marketing', 'reject'], ['personalization', 'reject']],
    ]);
    await Promise.all(retry.returnValues);
    await waitFor(() => localStorage.getItem('svc.consentPending') === null);
  });

  it('tells gtag through Consent Mode v2 on each decision and on each page with a remembered choice', async () => {
    stubFetch(200, { ok: true });
    const gtag = sinon.spy();
    (window as { gtag?: unknown }).gtag = gtag;
    setup();
    const el = await banner();
    button(el, 'customize').click();
    await el.updateComplete;
    el.shadowRoot!.querySelector<HTMLInputElement>('input[name="analytics"]')!.click();
    await el.updateComplete;
    button(el, 'save').click();
    expect(gtag.lastCall.args).to.deep.equal(['consent', 'update', {
      analytics_storage: 'granted', ad_storage: 'denied', ad_user_data: 'denied', ad_personalization: 'denied',
      personalization_storage: 'denied', functionality_storage: 'granted', security_storage: 'granted',
    }]);
    gtag.resetHistory();
    setup(); // the next page
    expect(gtag.calledOnceWith('consent', 'update', consentModeSignals({ analytics: true }))).to.equal(true);
  });

  it('with an IAB TCF CMP the banner stays hidden and the CMP decision applies', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    // A test double of the public TCF v2 API (__tcfapi), which we do not own.
    let listener: ((data: object, success: boolean) => void) | undefined;
    (window as { __tcfapi?: unknown }).__tcfapi = (command: string, _v: number, cb: (data: object, success: boolean) => void) => {
      if (command === 'addEventListener') {
        listener = cb;
        cb({ eventStatus: 'cmpuishown', listenerId: 1, gdprApplies: true }, true);
      }
    };
    const svc = setup();
    const el = await banner();
    expect(el.open).to.equal(false);
    expect(svc.isUserOptIn()).to.equal(false);
    const consents = Object.fromEntries([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((p) => [p, p === 1 || p >= 7]));
    listener!({ eventStatus: 'useractioncomplete', listenerId: 1, gdprApplies: true, purpose: { consents } }, true);
    expect(svc.isUserOptIn()).to.equal(true);
    expect(decisions(fetchStub)).to.deep.equal([[
      ['necessary', 'accept'], ['analytics', 'accept'], ['marketing', 'reject'], ['personalization', 'reject'],
    ]]);
    listener!({ eventStatus: 'tcloaded', listenerId: 1, gdprApplies: true, purpose: { consents } }, true);
    expect(consentBodies(fetchStub), 'the same decision again records nothing').to.have.length(1);
  });

  it('texts come from lang, attributes and slots', async () => {
    setup();
    const de = await banner(html`<svc-consent lang="de"></svc-consent>`);
    expect(button(de, 'accept').textContent!.trim()).to.equal('Alle akzeptieren');
    expect(button(de, 'reject').textContent!.trim()).to.equal('Alle ablehnen');
    const custom = await banner(html`<svc-consent title="Cookies?" accept-label="Yes" reject-label="No">
      <a slot="privacy" href="/privacy">Privacy policy</a></svc-consent>`);
    expect(button(custom, 'accept').textContent!.trim()).to.equal('Yes');
    expect(custom.shadowRoot!.querySelector('h2')!.textContent!.trim()).to.equal('Cookies?');
    const slot = custom.shadowRoot!.querySelector<HTMLSlotElement>('slot[name="privacy"]')!;
    expect(slot.assignedElements()[0]!.textContent).to.equal('Privacy policy');
  });

  it('is accessible when open, when customizing, and reopened by <svc-consent-button>', async () => {
    stubFetch(200, { ok: true });
    setup();
    const page = await fixture(html`<div><svc-consent-button>Cookie settings</svc-consent-button><svc-consent></svc-consent></div>`);
    const el = page.querySelector('svc-consent')!;
    await el.updateComplete;
    await expect(el).to.be.accessible();
    button(el, 'customize').click();
    await el.updateComplete;
    await expect(el).to.be.accessible();
    button(el, 'accept').click();
    await el.updateComplete;
    expect(el.open).to.equal(false);
    page.querySelector('svc-consent-button button')!.dispatchEvent(new MouseEvent('click', { bubbles: true }));
    await el.updateComplete;
    expect(el.open).to.equal(true);
    expect(el.shadowRoot!.activeElement).to.equal(button(el, 'reject'));
    await expect(page).to.be.accessible();
  });

  it('can be used with the keyboard alone', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    const svc = setup();
    const el = await banner();
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(button(el, 'reject'));
    await sendKeys({ press: 'Tab' });
    await sendKeys({ press: 'Tab' });
    expect(el.shadowRoot!.activeElement).to.equal(button(el, 'customize'));
    await sendKeys({ press: 'Enter' });
    await el.updateComplete;
    expect(el.shadowRoot!.activeElement).to.equal(el.shadowRoot!.querySelector('input[name="analytics"]'));
    await sendKeys({ press: 'Space' }); // analytics on
    await el.updateComplete;
    for (let i = 0; i < 5; i++) await sendKeys({ press: 'Tab' }); // marketing, personalization, reject, accept, save
    expect(el.shadowRoot!.activeElement).to.equal(button(el, 'save'));
    await sendKeys({ press: 'Enter' });
    expect(svc.isUserOptIn()).to.equal(true);
    expect(decisions(fetchStub)).to.deep.equal([[
      ['necessary', 'accept'], ['analytics', 'accept'], ['marketing', 'reject'], ['personalization', 'reject'],
    ]]);
  });
});

/** Waits for a condition driven by already-settled promises (microtasks), never by time. */
async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !condition(); i++) await new Promise<void>((resolve) => queueMicrotask(resolve));
  expect(condition()).to.equal(true);
}

// Against our real service (started by the test runner behind /v1, see test/helpers/service-under-test.mjs).
describe('<svc-consent> with the running service', () => {
  const api = `${location.origin}/v1`;
  const removers: (() => void)[] = [];
  afterEach(() => {
    for (const remove of removers.splice(0)) remove();
    cleanup();
  });

  async function stored(profileId: string, count: number): Promise<Record<string, unknown>[]> {
    // Bounded polling on the service's answers, not on time: the records are sent with keep-alive.
    for (let i = 0; i < 200; i++) {
      const rows = (await (await fetch(`/__svc-test/consents?profileId=${encodeURIComponent(profileId)}`)).json()) as Record<string, unknown>[];
      if (rows.length >= count) return rows;
    }
    throw new Error(`fewer than ${count} consent records were stored for ${profileId}`);
  }

  const decisions: [string, (el: SvcConsent) => Promise<void>, [string, string][], boolean][] = [
    ['Accept all', async (el) => button(el, 'accept').click(),
      [['necessary', 'accept'], ['analytics', 'accept'], ['marketing', 'accept'], ['personalization', 'accept']], true],
    ['Reject all', async (el) => button(el, 'reject').click(),
      [['necessary', 'accept'], ['analytics', 'reject'], ['marketing', 'reject'], ['personalization', 'reject']], false],
    ['Customize (marketing only)', async (el) => {
      button(el, 'customize').click();
      await el.updateComplete;
      el.shadowRoot!.querySelector<HTMLInputElement>('input[name="marketing"]')!.click();
      await el.updateComplete;
      button(el, 'save').click();
    }, [['necessary', 'accept'], ['analytics', 'reject'], ['marketing', 'accept'], ['personalization', 'reject']], false],
  ];

  for (const [name, decide, records, optedIn] of decisions) {
    it(`${name}: the service stores the right records, and the opt-in state holds after a reload`, async () => {
      const svc = makeSvc({ api, writeKey: 'web1.p4ss', consent: { required: true } });
      removers.push(svc.use(consentBanner()));
      const el = await fixture<SvcConsent>(html`<svc-consent version="2026-11"></svc-consent>`);
      await el.updateComplete;
      let profileId = '';
      const onConsent = (e: WindowEventMap['svc:consent']): void => void (profileId = e.detail.event.profileId);
      window.addEventListener('svc:consent', onConsent);
      await decide(el);
      window.removeEventListener('svc:consent', onConsent);
      const rows = await stored(profileId, 4);
      // One request carried the decision; the service stores a row per category.
      const byCategory = (pairs: [unknown, unknown][]) => Object.fromEntries(pairs);
      expect(byCategory(rows.map((r) => [r.category, r.action]))).to.deep.equal(byCategory(records));
      expect(rows).to.have.length(4);
      // With the proof: decided on the banner, the version of its text, the page (no query string).
      const page = location.origin + location.pathname;
      for (const row of rows) expect(row).to.include({ project: 'acme/shop', sourceId: 'web', source: 'banner', version: '2026-11', page });
      expect(makeSvc({ api, writeKey: 'web1.p4ss', consent: { required: true } }).isUserOptIn()).to.equal(optedIn);
    });
  }
});
