import { expect } from '@open-wc/testing';
import { ServiceJs, type ServiceConfig } from '../src/index.js';
import { CONFIG, cleanup, makeSvc, stubFetch } from './helpers/svc.js';

const MESSAGE = 'ServiceJs initialization failed: All config fields must be provided.';
const without = (field: keyof ServiceConfig): ServiceConfig => {
  const copy: Partial<ServiceConfig> = { ...CONFIG };
  delete copy[field];
  return copy as ServiceConfig;
};

// Every field must be present and non-empty; booleans may be false.
const bad: [string, unknown][] = [
  ['no config', undefined],
  ['null config', null],
  ['missing organization', without('organization')],
  ['missing sourceId', without('sourceId')],
  ['missing project', without('project')],
  ['missing writeKey', without('writeKey')],
  ['missing platformA', without('platformA')],
  ['missing platformB', without('platformB')],
  ['empty organization', { ...CONFIG, organization: '' }],
  ['blank project', { ...CONFIG, project: '   ' }],
  ['empty writeKey', { ...CONFIG, writeKey: '' }],
  ['null sourceId', { ...CONFIG, sourceId: null }],
  ['platformA as a string', { ...CONFIG, platformA: 'yes' }],
  ['a further platform\'s flag as a string', { ...CONFIG, platformC: 'yes' }],
  ['a further platform\'s flag as null', { ...CONFIG, platformC: null }],
  ['empty api', { ...CONFIG, api: '' }],
];

describe('ServiceJs constructor', () => {
  afterEach(cleanup);

  for (const [name, config] of bad) {
    it(`throws on ${name}`, () => {
      expect(() => new ServiceJs(config as ServiceConfig)).to.throw(Error).with.property('message', MESSAGE);
    });
  }

  it('accepts false for both platform flags', () => {
    expect(() => makeSvc({ platformA: false, platformB: false })).not.to.throw();
  });

  it('accepts a further platform\'s flag, and hands every flag to the plugins as it was given', () => {
    const seen: boolean[] = [];
    makeSvc({ platformA: true, platformB: false, platformC: true }).use({
      name: 'flags',
      setup: (ctx) => void seen.push(...['platformA', 'platformB', 'platformC', 'platformD', 'organization'].map((f) => ctx.flag(f))),
    });
    expect(seen).to.deep.equal([true, false, true, false, false]);
  });

  it('keeps the write key off the instance', () => {
    const svc = makeSvc();
    const seen = JSON.stringify(svc) + Object.keys(svc).join() + Object.getOwnPropertyNames(svc).join();
    expect(seen).not.to.contain('p4ss');
    expect(Object.getOwnPropertyNames(svc)).to.deep.equal([]);
  });

  it('sends Basic credentials split at the first dot of the write key', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc({ writeKey: 'web1.p4ss.word' });
    svc.track({ eventTitle: 'T', data: { a: 1 } });
    await svc.flush();
    const headers = (fetchStub.firstCall.args[1] as RequestInit).headers as Record<string, string>;
    expect(headers.Authorization).to.equal(`Basic ${btoa('web1:p4ss.word')}`);
  });

  it('defaults the api to this origin plus /v1', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc({ api: undefined });
    svc.track({ eventTitle: 'T', data: { a: 1 } });
    await svc.flush();
    expect(String(fetchStub.firstCall.args[0])).to.equal(`${location.origin}/v1/acme/projects/shop/sources/web/track`);
  });

  it('strips a trailing slash from api', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc({ api: 'https://svc.test/v1/' });
    svc.track({ eventTitle: 'T', data: { a: 1 } });
    await svc.flush();
    expect(String(fetchStub.firstCall.args[0])).to.equal('https://svc.test/v1/acme/projects/shop/sources/web/track');
  });
});
