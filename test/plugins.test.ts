import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { PluginContext } from '../src/index.js';
import { captureEvents, cleanup, makeSvc, sentBatches, stubFetch } from './helpers/svc.js';

describe('plugins', () => {
  afterEach(cleanup);

  it('setup receives a context without the write key, and its teardown runs on removal', () => {
    const svc = makeSvc();
    let ctx: PluginContext | undefined;
    const teardown = sinon.spy();
    const remove = svc.use({ name: 'probe', setup: (c) => ((ctx = c), teardown) });
    expect(ctx).to.include({ organization: 'acme', project: 'shop', sourceId: 'web', api: 'https://svc.test/v1' });
    expect(JSON.stringify(ctx)).not.to.contain('p4ss');
    remove();
    expect(teardown.calledOnce).to.equal(true);
  });

  it('enrich may change an event before it is dispatched and sent', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    svc.use({ name: 'currency', enrich: (e) => ({ ...e, data: { ...e.data, currency: 'EUR' } }) });
    const { events, stop } = captureEvents();
    svc.track({ eventTitle: 'Buy', data: { amount: 3 } });
    stop();
    await svc.flush();
    expect(events[0]!.data).to.deep.equal({ amount: 3, currency: 'EUR' });
    expect(sentBatches(fetchStub)[0]![0]!.data).to.deep.equal({ amount: 3, currency: 'EUR' });
  });

  it('enrich returning null drops the event: no DOM event, nothing sent', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    svc.use({ name: 'filter', enrich: (e) => (e.name === 'Noise' ? null : e) });
    const { events, stop } = captureEvents();
    svc.track({ eventTitle: 'Noise', data: { a: 1 } });
    svc.track({ eventTitle: 'Signal', data: { a: 1 } });
    stop();
    await svc.flush();
    expect(events.map((e) => e.name)).to.deep.equal(['Signal']);
    expect(sentBatches(fetchStub).flat().map((e) => e.name)).to.deep.equal(['Signal']);
  });

  it('a throwing enrich is contained and reported once; the event and later plugins go on', () => {
    stubFetch();
    const svc = makeSvc();
    const error = sinon.stub(console, 'error');
    svc.use({ name: 'broken', enrich: () => { throw new Error('bug'); } });
    svc.use({ name: 'tagger', enrich: (e) => ({ ...e, data: { ...e.data, tagged: true } }) });
    const { events, stop } = captureEvents();
    expect(() => svc.track({ eventTitle: 'A', data: { a: 1 } })).not.to.throw();
    expect(() => svc.track({ eventTitle: 'B', data: { a: 1 } })).not.to.throw();
    stop();
    expect(events.map((e) => e.data?.tagged)).to.deep.equal([true, true]);
    expect(error.callCount).to.equal(1);
  });

  it('a plugin whose setup throws is reported and the others keep running', () => {
    stubFetch();
    const svc = makeSvc();
    const error = sinon.stub(console, 'error');
    expect(() => svc.use({ name: 'bad', setup: () => { throw new Error('no'); }, enrich: () => null })).not.to.throw();
    svc.use({ name: 'good', enrich: (e) => ({ ...e, name: `${e.name}!` }) });
    const { events, stop } = captureEvents();
    svc.track({ eventTitle: 'A', data: { a: 1 } });
    stop();
    expect(events.map((e) => e.name)).to.deep.equal(['A!']);
    expect(error.calledOnce).to.equal(true);
  });

  it('ctx.emit tracks through the pipeline without title checks, and not while opted out', () => {
    stubFetch();
    const svc = makeSvc();
    let ctx!: PluginContext;
    svc.use({ name: 'auto', setup: (c) => void (ctx = c) });
    const { events, stop } = captureEvents();
    ctx.emit({ type: 'page', name: 'View Page', data: { url: '/' } });
    svc.optOut();
    ctx.emit({ type: 'page', name: 'View Page', data: { url: '/2' } });
    stop();
    expect(events.map((e) => [e.type, e.name])).to.deep.equal([['page', 'View Page']]);
  });

  it('logOut calls reset on plugins; ctx.newPage gives a new pageId', () => {
    stubFetch();
    const svc = makeSvc();
    const reset = sinon.spy();
    let ctx!: PluginContext;
    svc.use({ name: 'r', setup: (c) => void (ctx = c), reset });
    const page = ctx.ids().pageId;
    ctx.newPage();
    expect(ctx.ids().pageId).not.to.equal(page);
    svc.logOut();
    expect(reset.calledOnce).to.equal(true);
  });

  it('use() refuses something that is not a plugin', () => {
    const svc = makeSvc();
    expect(() => svc.use(undefined as never)).to.throw(`Parameters for the 'use' method are required.`);
  });
});
