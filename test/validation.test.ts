import { expect } from '@open-wc/testing';
import type { ServiceJs } from '../src/index.js';
import { cleanup, makeSvc, stubFetch } from './helpers/svc.js';

type Call = (svc: ServiceJs) => unknown;
// The SDK's validation messages: [what is called, the exact message thrown].
const cases: [string, Call, string][] = [
  // parameters object missing
  ['identify()', (s) => s.identify(undefined as never), `Parameters for the 'identify' method are required.`],
  ['alias()', (s) => s.alias(undefined as never), `Parameters for the 'alias' method are required.`],
  ['group()', (s) => s.group(undefined as never), `Parameters for the 'group' method are required.`],
  ['track()', (s) => s.track(undefined as never), `Parameters for the 'track' method are required.`],
  ['record()', (s) => s.record(undefined as never), `Parameters for the 'record' method are required.`],
  ['consent()', (s) => s.consent(undefined as never), `Parameters for the 'consent' method are required.`],
  ['productAdd()', (s) => s.productAdd(undefined as never), `Parameters for the 'productAdd' method are required.`],
  ['productOrdered()', (s) => s.productOrdered(undefined as never), `Parameters for the 'productOrdered' method are required.`],
  ['productOrdered({})', (s) => s.productOrdered({} as never), `Parameters for the 'productOrdered' method are required.`],
  ['productView()', (s) => s.productView(undefined as never), `Parameters for the 'productView' method are required.`],
  ['productView("")', (s) => s.productView(''), `Parameters for the 'productView' method are required.`],
  ['recommendation()', (s) => s.recommendation(undefined as never), `Parameters for the 'recommendation' method are required.`],
  ['track(null)', (s) => s.track(null as never), `Parameters for the 'track' method are required.`],
  ['track("x")', (s) => s.track('x' as never), `Parameters for the 'track' method are required.`],
  // required fields
  ['identify without userId', (s) => s.identify({} as never), `Identify parameters are invalid: 'userId' is required.`],
  ['identify with empty userId', (s) => s.identify({ userId: '' }), `Identify parameters are invalid: 'userId' is required.`],
  ['identify with a numeric userId', (s) => s.identify({ userId: 7 as never }), `Identify parameters are invalid: 'userId' is required.`],
  ['identify with attributes but no title', (s) => s.identify({ userId: 'u', userAttributes: { a: 1 } }), `Identify parameters are invalid: set 'eventTitle' to use 'userAttributes'.`],
  ['alias without userId', (s) => s.alias({ anotherUserId: 'b' } as never), `Alias parameters are invalid: 'userId' is required.`],
  ['alias without anotherUserId', (s) => s.alias({ userId: 'a' } as never), `Alias parameters are invalid: 'anotherUserId' is required.`],
  ['group without accountId', (s) => s.group({} as never), `Group parameters are invalid: 'accountId' is required.`],
  ['group with attributes but no title', (s) => s.group({ accountId: 'a', accountAttributes: { n: 1 } }), `Group parameters are invalid: set 'eventTitle' to use 'accountAttributes'.`],
  ['track without eventTitle', (s) => s.track({ data: { a: 1 } } as never), `Track parameters are invalid: 'eventTitle' is required.`],
  ['track without data', (s) => s.track({ eventTitle: 'T' } as never), `Track parameters are invalid: 'data' is required.`],
  ['track with empty data', (s) => s.track({ eventTitle: 'T', data: {} }), `Track parameters are invalid: 'data' can't be empty.`],
  ['track with array data', (s) => s.track({ eventTitle: 'T', data: [1] as never }), `Track parameters are invalid: 'data' is required.`],
  ['record without eventTitle', (s) => s.record({} as never), `Record parameters are invalid: 'eventTitle' is required.`],
  ['consent without action', (s) => s.consent({ validUntil: 1 } as never), `Consent parameters are invalid: action should be either "reject" or "accept".`],
  ['consent with another action', (s) => s.consent({ action: 'maybe' as never, validUntil: 1 }), `Consent parameters are invalid: action should be either "reject" or "accept".`],
  ['consent without validUntil', (s) => s.consent({ action: 'accept' } as never), `Consent parameters are invalid: 'validUntil' is required.`],
  ['consent with a string validUntil', (s) => s.consent({ action: 'accept', validUntil: 'soon' as never }), `Consent parameters are invalid: 'validUntil' is required.`],
  ['productAdd without productId', (s) => s.productAdd({} as never), `ProductAdd parameters are invalid: 'productId' is required.`],
  ['productAdd with quantity 0', (s) => s.productAdd({ productId: 'p', quantity: 0 }), `ProductAdd parameters are invalid: 'quantity' is required.`],
  ['productAdd with a negative price', (s) => s.productAdd({ productId: 'p', price: -1 }), `ProductAdd parameters are invalid: 'price' is required.`],
  ['productAdd with an infinite price', (s) => s.productAdd({ productId: 'p', price: Infinity }), `ProductAdd parameters are invalid: 'price' is required.`],
  ['productAdd with a price as text', (s) => s.productAdd({ productId: 'p', price: '9.5' as never }), `ProductAdd parameters are invalid: 'price' is required.`],
  ['productAdd with a lower-case currency', (s) => s.productAdd({ productId: 'p', price: 9.5, currency: 'eur' }), `ProductAdd parameters are invalid: 'currency' is required.`],
  ['productAdd with a currency name', (s) => s.productAdd({ productId: 'p', currency: 'Euro' }), `ProductAdd parameters are invalid: 'currency' is required.`],
  ['productOrdered item with a NaN price', (s) => s.productOrdered([{ productId: 'a', price: NaN }]), `ProductOrdered parameters are invalid: 'price' is required.`],
  ['productOrdered with empty list', (s) => s.productOrdered([]), `ProductOrdered parameters are invalid: 'products' can't be empty.`],
  ['productOrdered item without productId', (s) => s.productOrdered([{ productId: 'a' }, {} as never]), `ProductOrdered parameters are invalid: 'productId' is required.`],
  ['recommendation without id', (s) => s.recommendation({ quantity: 1, fields: [] } as never), `Recommendation parameters are invalid: 'id' is required.`],
  ['recommendation without quantity', (s) => s.recommendation({ id: 1, fields: [] } as never), `Recommendation parameters are invalid: 'quantity' is required.`],
  ['recommendation without fields', (s) => s.recommendation({ id: 1, quantity: 1 } as never), `Recommendation parameters are invalid: 'fields' is required.`],
  ['identify with a string for userAttributes', (s) => s.identify({ userId: 'u', eventTitle: 'T', userAttributes: 'x' as never }), `Identify parameters are invalid: 'userAttributes' is required.`],
  ['recommendation with a string id', (s) => s.recommendation({ id: '1' as never, quantity: 1, fields: [] }), `Recommendation parameters are invalid: 'id' is required.`],
  ['choose with a string for names', (s) => s.choose({ names: 'a' as never }), `Choose parameters are invalid: 'names' is required.`],
  ['recommendation with string fields', (s) => s.recommendation({ id: 1, quantity: 1, fields: 'title' as never }), `Recommendation parameters are invalid: 'fields' is required.`],
  ['recommendation with excludeProducts not a list of strings', (s) => s.recommendation({ id: 1, quantity: 1, fields: [], excludeProducts: ['p1', 2] as never }), `Recommendation parameters are invalid: 'excludeProducts' is required.`],
  ['choose()', (s) => s.choose(undefined as never), `Parameters for the 'choose' method are required.`],
  ['choose({})', (s) => s.choose({}), `Choose parameters are invalid: 'names' or 'groups' is required.`],
];

// Every title the SDK's own trackers use, in lower case and in the case a person would write.
const FORBIDDEN = ['auto-track', 'view page', 'leave page', 'change on', 'click on', 'submit on', 'identify', 'consent'];
const titleCased = (t: string): string => t.replace(/(^|[\s-])(\w)/g, (_m, sep: string, c: string) => sep + c.toUpperCase());
const titled: [string, (svc: ServiceJs, title: string) => unknown][] = [
  ['track', (s, t) => s.track({ eventTitle: t, data: { a: 1 } })],
  ['record', (s, t) => s.record({ eventTitle: t })],
  ['identify', (s, t) => s.identify({ userId: 'u', eventTitle: t })],
  ['group', (s, t) => s.group({ accountId: 'a', eventTitle: t })],
];

describe('validation messages', () => {
  afterEach(cleanup);

  for (const [name, call, message] of cases) {
    it(`${name} throws "${message}"`, () => {
      stubFetch();
      const svc = makeSvc();
      expect(() => call(svc)).to.throw(Error, message).with.property('message', message);
    });
  }

  for (const [method, call] of titled) {
    for (const title of FORBIDDEN) {
      for (const variant of new Set([title, titleCased(title), title.toUpperCase()])) {
        it(`${method} refuses the forbidden title "${variant}"`, () => {
          const svc = makeSvc();
          const message = `The '${variant}' event title is forbidden`;
          expect(() => call(svc, variant)).to.throw(Error).with.property('message', message);
        });
      }
    }
  }

  it('a refused call dispatches nothing and queues nothing', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    let dispatched = 0;
    const count = (): void => void dispatched++;
    window.addEventListener('svc:event', count);
    try {
      expect(() => svc.track({ eventTitle: 'View Page', data: { a: 1 } })).to.throw();
      expect(() => svc.track({ eventTitle: 'T', data: {} })).to.throw();
      await svc.flush();
    } finally {
      window.removeEventListener('svc:event', count);
    }
    expect(dispatched).to.equal(0);
    expect(fetchStub.callCount).to.equal(0);
  });

  it('titles that merely contain a forbidden word are allowed', () => {
    stubFetch();
    const svc = makeSvc();
    expect(() => svc.track({ eventTitle: 'Identify later', data: { a: 1 } })).not.to.throw();
    expect(() => svc.track({ eventTitle: 'Clicked on banner', data: { a: 1 } })).not.to.throw();
  });
});
