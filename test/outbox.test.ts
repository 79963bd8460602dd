import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import type { ErrorEventDetail } from '../src/index.js';
import { backoffDelay, chunk } from '../src/outbox.js';
import { clearAllOutboxes, idbOutboxStore } from '../src/outbox-store.js';
import { classify, parseRetryAfter } from '../src/transport.js';
import { cleanup, makeSvc, sentBatches, stubFetch } from './helpers/svc.js';

describe('transport and outbox through ServiceJs', () => {
  let clock: sinon.SinonFakeTimers;
  // Other test files' pages share this origin's IndexedDB and may leave unsent events under the same scope.
  before(() => clearAllOutboxes());
  beforeEach(() => {
    clock = sinon.useFakeTimers({ now: Date.parse('2026-01-01T10:00:00Z'), toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(async () => {
    clock.restore();
    await cleanup();
  });

  it('sends a batch to the track endpoint as text/plain JSON', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    svc.track({ eventTitle: 'A', data: { a: 1 } });
    svc.track({ eventTitle: 'B', data: { a: 1 } });
    await svc.flush();
    expect(fetchStub.callCount).to.equal(1);
    const [url, init] = fetchStub.firstCall.args as [string, RequestInit];
    expect(url).to.equal('https://svc.test/v1/acme/projects/shop/sources/web/track');
    expect(init.method).to.equal('POST');
    expect((init.headers as Record<string, string>)['Content-Type']).to.match(/^text\/plain/);
    expect(sentBatches(fetchStub)[0]!.map((e) => e.name)).to.deep.equal(['A', 'B']);
  });

  it('keeps events in IndexedDB after a 503, and opting out purges them there', async () => {
    const fetchStub = stubFetch(503, {});
    const svc = makeSvc();
    svc.track({ eventTitle: 'A', data: { a: 1 } });
    await svc.flush();
    expect(fetchStub.callCount).to.equal(1);
    const scope = 'https://svc.test/v1/acme/projects/shop/sources/web/track';
    expect((await idbOutboxStore.load(scope)).map((r) => r.event.name)).to.deep.equal(['A']);
    svc.optOut();
    // IndexedDB runs this read after the purge's delete, which was issued first.
    expect(await idbOutboxStore.load(scope)).to.deep.equal([]);
  });

  it('drops a batch the service refuses with 400 and says so in svc:error', async () => {
    const fetchStub = stubFetch(400, { error: { code: 'invalid_event', message: 'batch[0].name: required' } });
    const svc = makeSvc();
    const errors: ErrorEventDetail[] = [];
    const onError = (e: WindowEventMap['svc:error']): void => void errors.push(e.detail);
    window.addEventListener('svc:error', onError);
    svc.track({ eventTitle: 'A', data: { a: 1 } });
    await svc.flush();
    await clock.tickAsync(120_000);
    window.removeEventListener('svc:error', onError);
    expect(fetchStub.callCount).to.equal(1);
    expect(errors).to.deep.equal([{ code: 'http_400', message: 'batch[0].name: required', count: 1 }]);
  });

  it('a 400 for one bad event drops only that event: its neighbours are halved out and delivered', async () => {
    // The service refuses any request that carries the bad event, as ours does (the whole batch, 400).
    const fetchStub = sinon.stub(window, 'fetch').callsFake(async (_url, init) => {
      const batch = (JSON.parse(String((init as RequestInit).body)) as { batch: { name: string }[] }).batch;
      const bad = batch.findIndex((e) => e.name === 'Bad');
      return bad === -1
        ? new Response('{"accepted":1,"duplicates":0}', { status: 200 })
        : new Response(JSON.stringify({ error: { code: 'invalid_event', message: `batch[${bad}].name: too long` } }), { status: 400 });
    });
    const svc = makeSvc();
    const errors: ErrorEventDetail[] = [];
    const onError = (e: WindowEventMap['svc:error']): void => void errors.push(e.detail);
    window.addEventListener('svc:error', onError);
    for (let i = 0; i < 7; i++) svc.track({ eventTitle: i === 4 ? 'Bad' : `E${i}`, data: { i } });
    await svc.flush();
    window.removeEventListener('svc:error', onError);
    // What our fake service accepted: every request without the bad event.
    const delivered = sentBatches(fetchStub).filter((b) => !b.some((e) => e.name === 'Bad')).flat().map((e) => e.name);
    expect(delivered.sort()).to.deep.equal(['E0', 'E1', 'E2', 'E3', 'E5', 'E6']);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ code: 'http_400', count: 1 });
  });

  it('a 401 drops the whole batch at once: halving cannot help a refused key', async () => {
    const fetchStub = stubFetch(401, { error: { code: 'invalid_credentials', message: 'no' } });
    const svc = makeSvc();
    for (let i = 0; i < 4; i++) svc.track({ eventTitle: 'E', data: { i } });
    await svc.flush();
    expect(fetchStub.callCount).to.equal(1);
  });

  it('splits a batch in halves after 413', async () => {
    const fetchStub = sinon.stub(window, 'fetch');
    fetchStub.onFirstCall().resolves(new Response('{}', { status: 413 }));
    fetchStub.resolves(new Response('{}', { status: 200 }));
    const svc = makeSvc();
    for (let i = 0; i < 10; i++) svc.track({ eventTitle: 'E', data: { i } });
    await svc.flush();
    expect(sentBatches(fetchStub).map((b) => b.length)).to.deep.equal([10, 5, 5]);
  });

  it('on pagehide sends pending events with keepalive, in batches of at most 50', async () => {
    const fetchStub = stubFetch();
    const svc = makeSvc();
    for (let i = 0; i < 60; i++) svc.track({ eventTitle: 'E', data: { i } });
    window.dispatchEvent(new PageTransitionEvent('pagehide'));
    const calls = fetchStub.getCalls();
    for (const call of calls) expect((call.args[1] as RequestInit).keepalive).to.equal(true);
    expect(sentBatches(fetchStub).map((b) => b.length)).to.deep.equal([50, 10]);
    expect(sentBatches(fetchStub).flat().map((e) => e.data?.i)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i));
  });

  it('backoff is full jitter under the exponential cap, never below Retry-After', () => {
    expect(backoffDelay(0, 1000, 60_000, 0, () => 0.999)).to.equal(999);
    expect(backoffDelay(3, 1000, 60_000, 0, () => 0.5)).to.equal(4000);
    expect(backoffDelay(20, 1000, 60_000, 0, () => 0.999)).to.equal(59_940);
    expect(backoffDelay(0, 1000, 60_000, 5000, () => 0)).to.equal(5000);
    // A Retry-After past what a timer can wait (24.8 days) would fire at once: capped, never a retry storm.
    expect(backoffDelay(0, 1000, 60_000, 30 * 24 * 3_600_000, () => 0)).to.equal(2 ** 31 - 1);
  });

  it('Retry-After takes seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T10:00:00Z');
    expect(parseRetryAfter('7', now)).to.equal(7000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 10:00:30 GMT', now)).to.equal(30_000);
    expect(parseRetryAfter('soon', now)).to.equal(undefined);
    expect(parseRetryAfter(null, now)).to.equal(undefined);
  });

  // status → what happens to the batch
  const statuses: [number, string][] = [
    [200, 'ok'], [202, 'ok'], [408, 'retry'], [429, 'retry'], [500, 'retry'], [503, 'retry'],
    [413, 'split'], [400, 'drop'], [401, 'drop'], [403, 'drop'], [404, 'drop'],
  ];
  for (const [status, kind] of statuses) {
    it(`HTTP ${status} means ${kind}`, () => {
      expect(classify(status, null, '').kind).to.equal(kind);
    });
  }

  it('chunk respects both the count and the byte budget', () => {
    const e = (i: number, size: number) => ({ eventId: String(i), type: 'track' as const, name: 'x'.repeat(size), profileId: 'p', sessionId: 's', pageId: 'g', timestamp: 't' });
    expect(chunk(Array.from({ length: 120 }, (_, i) => e(i, 1)), 50, 60_000).map((c) => c.length)).to.deep.equal([50, 50, 20]);
    expect(chunk(Array.from({ length: 4 }, (_, i) => e(i, 25_000)), 50, 60_000).map((c) => c.length)).to.deep.equal([2, 2]);
  });
});
