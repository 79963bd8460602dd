import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { cleanup, makeSvc, stubFetch } from './helpers/svc.js';

describe('recommendation()', () => {
  afterEach(cleanup);

  it('POSTs the spec body with keep-alive and Basic auth, and returns the parsed data', async () => {
    const data = { products: [{ id: 'p2', title: 'Cup' }] };
    const fetchStub = stubFetch(200, data);
    const svc = makeSvc();
    const result = await svc.recommendation({ id: 1, quantity: 4, fields: ['title'] });
    expect(result).to.deep.equal(data);
    const [url, init] = fetchStub.firstCall.args as [string, RequestInit];
    expect(url).to.equal('https://svc.test/v1/acme/projects/shop/feeds/1/data');
    expect(init.keepalive).to.equal(true);
    expect((init.headers as Record<string, string>).Authorization).to.equal(`Basic ${btoa('web1:p4ss.word')}`);
    const body = JSON.parse(String(init.body));
    expect(body).to.deep.equal({ profileId: body.profileId, sourceId: 'web', limit: 4, fields: ['title'] });
    expect(body.profileId).to.be.a('string').and.not.equal('');
  });

  it('sends the product last viewed, kept in local storage', async () => {
    const fetchStub = stubFetch(200, { products: [] });
    const svc = makeSvc();
    svc.productView('p7');
    await svc.recommendation({ id: 2, quantity: 1, fields: [] });
    const call = fetchStub.getCalls().find((c) => String(c.args[0]).includes('/feeds/'))!;
    expect(JSON.parse(String((call.args[1] as RequestInit).body)).productId).to.equal('p7');
  });

  it('sends excludeProducts, the products the page already shows, when given', async () => {
    const fetchStub = stubFetch(200, { products: [] });
    await makeSvc().recommendation({ id: 3, quantity: 2, fields: [], productId: 'p1', excludeProducts: ['p2', 'p5'] });
    const body = JSON.parse(String((fetchStub.firstCall.args[1] as RequestInit).body));
    expect(body).to.deep.include({ productId: 'p1', excludeProducts: ['p2', 'p5'] });
  });

  const failures: [string, () => void][] = [
    ['a network error', () => void sinon.stub(window, 'fetch').rejects(new TypeError('Failed to fetch'))],
    ['a 500', () => void stubFetch(500, { error: { code: 'x', message: 'y' } })],
    ['a 404', () => void stubFetch(404, { error: { code: 'unknown_feed', message: 'no' } })],
    ['a body that is not JSON', () => void stubFetch(200, '<html>oops</html>')],
  ];
  for (const [name, arrange] of failures) {
    it(`returns null on ${name}`, async () => {
      arrange();
      const svc = makeSvc();
      expect(await svc.recommendation({ id: 1, quantity: 4, fields: ['title'] })).to.equal(null);
    });
  }

  it('returns null when the service does not answer in time', async () => {
    const clock = sinon.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    sinon.stub(window, 'fetch').callsFake((_url, init) => new Promise((_resolve, reject) => {
      (init as RequestInit).signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
    }));
    const svc = makeSvc();
    const pending = svc.recommendation({ id: 1, quantity: 4, fields: ['title'] });
    await clock.tickAsync(5000);
    expect(await pending).to.equal(null);
    clock.restore();
  });
});

describe('choose()', () => {
  afterEach(cleanup);

  it('POSTs identification form A, names, groups, device and sessionId; returns the choices', async () => {
    const choices = [{ name: 'hero-banner', group: 'homepage', variation: 'bold', body: { title: 'Big sale' } }];
    const fetchStub = stubFetch(200, { choices });
    const svc = makeSvc();
    expect(await svc.choose({ names: ['hero-banner'], groups: ['homepage'] })).to.deep.equal(choices);
    const [url, init] = fetchStub.firstCall.args as [string, RequestInit];
    expect(url).to.equal('https://svc.test/v1/acme/projects/shop/optimization/choose-api');
    const body = JSON.parse(String(init.body));
    expect(body.identification).to.deep.equal({ sourceId: 'web', profileId: localStorage.getItem('svc.profileId') });
    expect(body).to.include({ device: 'desktop' });
    expect(body.names).to.deep.equal(['hero-banner']);
    expect(body.groups).to.deep.equal(['homepage']);
    expect(body.sessionId).to.be.a('string');
  });

  it('while opted out answers [] without asking: nobody is assigned or exposed', async () => {
    const fetchStub = stubFetch(200, { choices: [{ name: 'a', body: {} }] });
    const svc = makeSvc();
    svc.optOut();
    expect(await svc.choose({ names: ['a'] })).to.deep.equal([]);
    expect(fetchStub.callCount).to.equal(0);
  });

  it('asks once per page view for the same question', async () => {
    const fetchStub = stubFetch(200, { choices: [] });
    const svc = makeSvc();
    await Promise.all([svc.choose({ names: ['a'] }), svc.choose({ names: ['a'] })]);
    await svc.choose({ names: ['b'] });
    expect(fetchStub.callCount).to.equal(2);
  });

  it('answers [] on failure and asks again next time', async () => {
    const fetchStub = stubFetch(500, {});
    const svc = makeSvc();
    expect(await svc.choose({ names: ['a'] })).to.deep.equal([]);
    expect(await svc.choose({ names: ['a'] })).to.deep.equal([]);
    expect(fetchStub.callCount).to.equal(2);
  });

  it('drops malformed choices from the answer', async () => {
    stubFetch(200, { choices: [{ name: 'ok', body: {} }, { name: 'no-body' }, 'text', null] });
    const svc = makeSvc();
    expect(await svc.choose({ groups: ['g'] })).to.deep.equal([{ name: 'ok', body: {} }]);
  });
});
