import { expect } from '@open-wc/testing';
import type { EventKind, KindEventDetail, ServiceEvent, ServiceJs } from '../src/index.js';
import { captureEvents, cleanup, makeSvc, sentBatches, stubFetch } from './helpers/svc.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

// [call, specific DOM event kind, expected event (without the automatic fields)]
const cases: [string, (s: ServiceJs) => void, EventKind, Partial<ServiceEvent>][] = [
  ['identify with the default title', (s) => s.identify({ userId: 'u1' }), 'identify', { type: 'identify', name: 'Identify', userId: 'u1' }],
  ['identify with a title and attributes', (s) => s.identify({ userId: 'u1', eventTitle: 'Signed in', userAttributes: { plan: 'pro' }, data: { via: 'sso' } }), 'identify',
    { type: 'identify', name: 'Signed in', userId: 'u1', userAttributes: { plan: 'pro' }, data: { via: 'sso' } }],
  ['alias', (s) => s.alias({ userId: 'a', anotherUserId: 'b' }), 'alias', { type: 'alias', name: 'Alias', userId: 'a', anotherUserId: 'b' }],
  ['group with the default title', (s) => s.group({ accountId: 'acc' }), 'group', { type: 'group', name: 'Identify', accountId: 'acc' }],
  ['group with a title and attributes', (s) => s.group({ accountId: 'acc', eventTitle: 'Joined', accountAttributes: { size: 3 } }), 'group',
    { type: 'group', name: 'Joined', accountId: 'acc', accountAttributes: { size: 3 } }],
  ['track', (s) => s.track({ eventTitle: 'Video played', data: { id: 'v' } }), 'track', { type: 'track', name: 'Video played', data: { id: 'v' } }],
  ['record', (s) => s.record({ eventTitle: 'Quote', userId: 'u', accountId: 'a', userAttributes: { x: 1 }, accountAttributes: { y: 2 }, data: { z: 3 } }), 'record',
    { type: 'record', name: 'Quote', userId: 'u', accountId: 'a', userAttributes: { x: 1 }, accountAttributes: { y: 2 }, data: { z: 3 } }],
  ['consent', (s) => s.consent({ action: 'accept', validUntil: 1893456000000, category: 'analytics' }), 'consent',
    { type: 'consent', name: 'Consent', data: { action: 'accept', validUntil: 1893456000000, category: 'analytics' } }],
  ['productAdd with the default quantity', (s) => s.productAdd({ productId: 'p1' }), 'product', { type: 'product', name: 'Added to cart', data: { productId: 'p1', quantity: 1 } }],
  ['productAdd with a quantity', (s) => s.productAdd({ productId: 'p1', quantity: 3 }), 'product', { type: 'product', name: 'Added to cart', data: { productId: 'p1', quantity: 3 } }],
  ['productAdd with a price and currency', (s) => s.productAdd({ productId: 'p1', quantity: 2, price: 19.5, currency: 'EUR' }), 'product',
    { type: 'product', name: 'Added to cart', data: { productId: 'p1', quantity: 2, price: 19.5, currency: 'EUR' } }],
  ['productAdd with a price 0 (a gift)', (s) => s.productAdd({ productId: 'p1', price: 0 }), 'product', { type: 'product', name: 'Added to cart', data: { productId: 'p1', quantity: 1, price: 0 } }],
  ['productView', (s) => s.productView('p9'), 'product', { type: 'product', name: 'Product viewed', data: { productId: 'p9' } }],
  ['logOut', (s) => s.logOut(), 'logOut', { type: 'logout', name: 'Log Out' }],
];

describe('tracked events and DOM events', () => {
  afterEach(cleanup);

  for (const [name, call, kind, expected] of cases) {
    it(`${name}: svc:${kind} and svc:event fire synchronously with the event`, () => {
      stubFetch();
      const svc = makeSvc();
      const specific: KindEventDetail[] = [];
      const onKind = (e: Event): void => void specific.push((e as CustomEvent<KindEventDetail>).detail);
      window.addEventListener(`svc:${kind}`, onKind);
      const { events, stop } = captureEvents();
      try {
        call(svc);
      } finally {
        stop();
        window.removeEventListener(`svc:${kind}`, onKind);
      }
      expect(events).to.have.length(1);
      const event = events[0]!;
      expect(event).to.deep.include(expected);
      expect(event.eventId).to.match(UUID_V7);
      expect(event.profileId).to.be.a('string').and.not.equal('');
      expect(event.sessionId).to.be.a('string').and.not.equal('');
      expect(event.pageId).to.be.a('string').and.not.equal('');
      expect(new Date(event.timestamp).toISOString()).to.equal(event.timestamp);
      expect(specific).to.have.length(1);
      expect(specific[0]!.eventName).to.equal(expected.name);
      expect(specific[0]!.event).to.deep.equal(event);
    });
  }

  it('productOrdered emits one Product ordered per product sharing one orderId', () => {
    stubFetch();
    const svc = makeSvc();
    const { events, stop } = captureEvents();
    svc.productOrdered([{ productId: 'a', quantity: 2 }, { productId: 'b' }]);
    stop();
    expect(events.map((e) => [e.type, e.name, e.data?.productId, e.data?.quantity])).to.deep.equal([
      ['product', 'Product ordered', 'a', 2],
      ['product', 'Product ordered', 'b', 1],
    ]);
    const orderId = events[0]!.data?.orderId;
    expect(orderId).to.be.a('string').and.match(UUID_V7);
    expect(events[1]!.data?.orderId).to.equal(orderId);
  });

  it('productOrdered sends each line\'s price and currency when given, and nothing for a line without', () => {
    stubFetch();
    const svc = makeSvc();
    const { events, stop } = captureEvents();
    svc.productOrdered([{ productId: 'a', quantity: 2, price: 12.5, currency: 'USD' }, { productId: 'b' }]);
    stop();
    const orderId = events[0]!.data?.orderId;
    expect(events.map((e) => e.data)).to.deep.equal([
      { productId: 'a', quantity: 2, price: 12.5, currency: 'USD', orderId },
      { productId: 'b', quantity: 1, orderId },
    ]);
  });

  it('svc:event carries exactly the event that is sent', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    const { events, stop } = captureEvents();
    svc.track({ eventTitle: 'A', data: { n: 1 } });
    svc.identify({ userId: 'u' });
    stop();
    await svc.flush();
    expect(sentBatches(fetchStub).flat()).to.deep.equal(events);
  });

  it('events carry no undefined members', () => {
    stubFetch();
    const svc = makeSvc();
    const { events, stop } = captureEvents();
    svc.identify({ userId: 'u' });
    stop();
    expect(Object.keys(events[0]!).sort()).to.deep.equal(['eventId', 'name', 'pageId', 'profileId', 'sessionId', 'timestamp', 'type', 'userId']);
  });

  it('every event gets its own eventId', () => {
    stubFetch();
    const svc = makeSvc();
    const { events, stop } = captureEvents();
    for (let i = 0; i < 20; i++) svc.track({ eventTitle: 'T', data: { i } });
    stop();
    expect(new Set(events.map((e) => e.eventId)).size).to.equal(20);
  });

  it('a listener that throws reaches neither the caller nor the other listeners', () => {
    stubFetch();
    const svc = makeSvc();
    const onError = window.onerror;
    window.onerror = () => true; // the browser reports listener errors here; keep the test runner calm
    const bad = (): void => {
      throw new Error('listener bug');
    };
    window.addEventListener('svc:track', bad);
    const { events, stop } = captureEvents();
    try {
      expect(() => svc.track({ eventTitle: 'T', data: { a: 1 } })).not.to.throw();
    } finally {
      window.removeEventListener('svc:track', bad);
      window.onerror = onError;
      stop();
    }
    expect(events).to.have.length(1);
  });

  it('consent also posts the record to the consent endpoint', async () => {
    const fetchStub = stubFetch(200, { ok: true });
    const svc = makeSvc();
    const { events, stop } = captureEvents();
    svc.consent({ action: 'reject', validUntil: 1893456000000, email: 'a@b.c', message: 'no', category: 'marketing' });
    stop();
    const call = fetchStub.getCalls().find((c) => String(c.args[0]).endsWith('/consents/data'));
    expect(call, 'consent request').to.exist;
    expect(String(call!.args[0])).to.equal('https://svc.test/v1/acme/projects/shop/consents/data');
    const init = call!.args[1] as RequestInit;
    expect(init.keepalive).to.equal(true);
    expect(JSON.parse(String(init.body))).to.deep.equal({
      eventId: events[0]!.eventId, profileId: events[0]!.profileId, sourceId: 'web', timestamp: events[0]!.timestamp,
      action: 'reject', validUntil: 1893456000000, email: 'a@b.c', message: 'no', category: 'marketing',
      // Proof of consent: how the visitor decided, and the page (no query string).
      source: 'api', page: location.origin + location.pathname,
    });
  });
});
