import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { SESSION_TIMEOUT_MS } from '../src/index.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from './helpers/svc.js';

function trackOne(svc: ReturnType<typeof makeSvc>) {
  const { events, stop } = captureEvents();
  svc.track({ eventTitle: 'T', data: { a: 1 } });
  stop();
  return events[0]!;
}

describe('identity: profileId, sessionId, pageId', () => {
  afterEach(cleanup);

  it('profileId persists across instances (a reload) in first-party storage', () => {
    stubFetch();
    const first = trackOne(makeSvc());
    const second = trackOne(makeSvc());
    expect(second.profileId).to.equal(first.profileId);
    expect(localStorage.getItem('svc.profileId')).to.equal(first.profileId);
  });

  it('pageId is new for each page view (instance) while the session continues', () => {
    stubFetch();
    const first = trackOne(makeSvc());
    const second = trackOne(makeSvc());
    expect(second.pageId).not.to.equal(first.pageId);
    expect(second.sessionId).to.equal(first.sessionId);
  });

  it('with storage blocked, the ids stay the same for every event of the page', () => {
    stubFetch();
    sinon.stub(Storage.prototype, 'getItem').throws(new DOMException('blocked', 'SecurityError'));
    sinon.stub(Storage.prototype, 'setItem').throws(new DOMException('blocked', 'SecurityError'));
    const svc = makeSvc();
    const a = trackOne(svc);
    const b = trackOne(svc);
    expect(b.profileId).to.equal(a.profileId);
    expect(b.sessionId).to.equal(a.sessionId);
  });

  it('the session slides: activity within 30 minutes keeps it, 30 idle minutes end it', () => {
    stubFetch();
    const clock = sinon.useFakeTimers({ now: Date.parse('2026-01-01T10:00:00Z'), toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const svc = makeSvc();
    const first = trackOne(svc);
    clock.tick(SESSION_TIMEOUT_MS - 1);
    const second = trackOne(svc);
    expect(second.sessionId).to.equal(first.sessionId);
    clock.tick(SESSION_TIMEOUT_MS - 1);
    expect(trackOne(svc).sessionId, 'slid from the second event').to.equal(first.sessionId);
    clock.tick(SESSION_TIMEOUT_MS);
    const later = trackOne(svc);
    expect(later.sessionId).not.to.equal(first.sessionId);
    expect(later.profileId).to.equal(first.profileId);
  });

  it('another tab keeping the session alive keeps it for this tab too', () => {
    stubFetch();
    const clock = sinon.useFakeTimers({ now: Date.parse('2026-01-01T10:00:00Z'), toFake: ['Date', 'setTimeout', 'clearTimeout'] });
    const tabA = makeSvc();
    const first = trackOne(tabA);
    clock.tick(20 * 60 * 1000);
    const tabB = makeSvc();
    expect(trackOne(tabB).sessionId).to.equal(first.sessionId);
    clock.tick(20 * 60 * 1000); // 40 minutes after tab A's last event, 20 after tab B's
    expect(trackOne(tabA).sessionId).to.equal(first.sessionId);
  });

  it('logOut sends Log Out with the old ids, then refreshes profile, session and page ids', () => {
    stubFetch();
    const svc = makeSvc();
    const before = trackOne(svc);
    const { events, stop } = captureEvents();
    svc.logOut();
    stop();
    expect(events[0]).to.include({ name: 'Log Out', profileId: before.profileId, sessionId: before.sessionId, pageId: before.pageId });
    const after = trackOne(svc);
    expect(after.profileId).not.to.equal(before.profileId);
    expect(after.sessionId).not.to.equal(before.sessionId);
    expect(after.pageId).not.to.equal(before.pageId);
  });

  it('logOut clears session data (the remembered product)', () => {
    stubFetch();
    const svc = makeSvc();
    svc.productView('p1');
    expect(localStorage.getItem('svc.productId')).to.equal('p1');
    svc.logOut();
    expect(localStorage.getItem('svc.productId')).to.equal(null);
  });
});
