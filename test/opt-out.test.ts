import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { ServiceJs } from '../src/index.js';
import { captureEvents, cleanup, makeSvc, stubFetch } from './helpers/svc.js';

// The opt-in rule: every one of these returns silently while opted out, valid parameters or not.
const silent: [string, (s: ServiceJs) => void][] = [
  ['identify', (s) => s.identify({ userId: 'u' })],
  ['identify (invalid)', (s) => s.identify(undefined as never)],
  ['group', (s) => s.group({ accountId: 'a' })],
  ['group (invalid)', (s) => s.group({} as never)],
  ['track', (s) => s.track({ eventTitle: 'T', data: { a: 1 } })],
  ['track (forbidden title)', (s) => s.track({ eventTitle: 'view page', data: { a: 1 } })],
  ['record', (s) => s.record({ eventTitle: 'R' })],
  ['record (invalid)', (s) => s.record({} as never)],
  ['alias', (s) => s.alias({ userId: 'a', anotherUserId: 'b' })],
  ['alias (invalid)', (s) => s.alias({} as never)],
  ['consent', (s) => s.consent({ action: 'accept', validUntil: 1 })],
  ['consent (invalid)', (s) => s.consent({ action: 'nope' as never, validUntil: 1 })],
  ['productAdd', (s) => s.productAdd({ productId: 'p' })],
  ['productAdd (invalid)', (s) => s.productAdd(undefined as never)],
  ['productOrdered', (s) => s.productOrdered([{ productId: 'p' }])],
  ['productOrdered (invalid)', (s) => s.productOrdered([])],
  ['productView', (s) => s.productView('p')],
  ['productView (invalid)', (s) => s.productView(undefined as never)],
  ['logOut', (s) => s.logOut()],
];

function storageSnapshot(): Record<string, string | null> {
  return Object.fromEntries(Object.keys(localStorage).map((k) => [k, localStorage.getItem(k)]));
}

describe('opt-in and opt-out', () => {
  afterEach(cleanup);

  it('is opted in by default', () => {
    expect(makeSvc().isUserOptIn()).to.equal(true);
  });

  it('optOut and optIn switch the state', () => {
    const svc = makeSvc();
    svc.optOut();
    expect(svc.isUserOptIn()).to.equal(false);
    svc.optIn();
    expect(svc.isUserOptIn()).to.equal(true);
  });

  it('the choice persists for the browser (a new instance reads it)', () => {
    makeSvc().optOut();
    expect(makeSvc().isUserOptIn()).to.equal(false);
    makeSvc().optIn();
    expect(makeSvc().isUserOptIn()).to.equal(true);
  });

  for (const [name, call] of silent) {
    it(`${name} returns silently while opted out: no throw, no DOM event, no request, no storage`, async () => {
      const fetchStub = stubFetch();
      const svc = makeSvc();
      svc.optOut();
      const before = storageSnapshot();
      const { events, stop } = captureEvents();
      let specific = 0;
      const count = (): void => void specific++;
      for (const kind of ['identify', 'alias', 'group', 'track', 'record', 'consent', 'product', 'logOut'] as const) {
        window.addEventListener(`svc:${kind}`, count);
      }
      try {
        expect(() => call(svc)).not.to.throw();
        await svc.flush();
      } finally {
        stop();
        for (const kind of ['identify', 'alias', 'group', 'track', 'record', 'consent', 'product', 'logOut'] as const) {
          window.removeEventListener(`svc:${kind}`, count);
        }
      }
      expect(events).to.have.length(0);
      expect(specific).to.equal(0);
      expect(fetchStub.callCount).to.equal(0);
      expect(storageSnapshot()).to.deep.equal(before);
    });
  }

  it('writes nothing but the opt-out flag itself', () => {
    const svc = makeSvc();
    svc.optOut();
    svc.track({ eventTitle: 'T', data: { a: 1 } });
    svc.productView('p');
    expect(Object.keys(localStorage)).to.deep.equal(['svc.optIn']);
    expect(document.cookie).to.equal('');
  });

  it('opting out purges what is queued and cancels the scheduled flush', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const fetchStub = stubFetch();
    const svc = makeSvc();
    svc.track({ eventTitle: 'Queued', data: { a: 1 } });
    svc.optOut();
    await clock.tickAsync(60_000);
    svc.optIn();
    await svc.flush();
    expect(fetchStub.callCount).to.equal(0);
  });

  it('an opt-out in another tab stops tracking here too', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    localStorage.setItem('svc.optIn', 'false');
    window.dispatchEvent(new StorageEvent('storage', { key: 'svc.optIn', newValue: 'false' }));
    expect(svc.isUserOptIn()).to.equal(false);
    svc.track({ eventTitle: 'T', data: { a: 1 } });
    await svc.flush();
    expect(fetchStub.callCount).to.equal(0);
  });

  it('after opting in again, tracking resumes', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    svc.optOut();
    svc.optIn();
    const { events, stop } = captureEvents();
    svc.track({ eventTitle: 'Back', data: { a: 1 } });
    stop();
    await svc.flush();
    expect(events).to.have.length(1);
    expect(fetchStub.callCount).to.equal(1);
  });
});
