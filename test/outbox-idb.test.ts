import { expect } from '@open-wc/testing';
import sinon from 'sinon';
import { resolveConfig } from '../src/config.js';
import type { ErrorEventDetail, ServiceEvent } from '../src/index.js';
import { IdbOutbox, type IdbOutboxOptions } from '../src/idb-outbox.js';
import { clearAllOutboxes, idbOutboxStore, type OutboxStore } from '../src/outbox-store.js';
import { trackUrl } from '../src/endpoint-urls.js';
import { createSender } from '../src/transport.js';
import { CONFIG, sentBatches } from './helpers/svc.js';

// The durable outbox on real IndexedDB and real Web Locks in Chromium; only the network (fetch) and the
// clock are fakes. `idle()` waits for the outbox's own work (lock, storage, request), never for time.
const config = resolveConfig(CONFIG);
const SCOPE = trackUrl(config);
const T0 = Date.parse('2026-01-01T10:00:00Z');
const DAY = 24 * 60 * 60 * 1000;

let n = 0;
function ev(extra: Partial<ServiceEvent> = {}): ServiceEvent {
  n++;
  return { eventId: `e-${n}`, type: 'track', name: `E${n}`, profileId: 'p', sessionId: 's', pageId: 'g', timestamp: new Date().toISOString(), ...extra };
}

/** Yields one real task (MessageChannel is not faked): lets IndexedDB and Web Locks answer. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => resolve();
    channel.port2.postMessage(0);
  });
}

const ok = (): Response => new Response('{"accepted":1,"duplicates":0}', { status: 200 });
const status = (code: number, headers: Record<string, string> = {}): Response =>
  new Response(JSON.stringify({ error: { code: 'x', message: `refused with ${code}` } }), { status: code, headers });

describe('IndexedDB outbox', () => {
  let clock: sinon.SinonFakeTimers;
  let outboxes: IdbOutbox[] = [];
  let errors: ErrorEventDetail[] = [];
  const onError = (e: WindowEventMap['svc:error']): void => void errors.push(e.detail);

  /** One "page": an outbox on the shared IndexedDB store, past its start-up flush. */
  async function open(options: Partial<IdbOutboxOptions> = {}): Promise<IdbOutbox> {
    const outbox = new IdbOutbox(createSender(config), { scope: SCOPE, ...options });
    outboxes.push(outbox);
    await clock.tickAsync(0);
    await outbox.idle();
    return outbox;
  }
  const stored = (): Promise<ServiceEvent[]> => idbOutboxStore.load(SCOPE).then((r) => r.map((x) => x.event));

  beforeEach(async () => {
    await clearAllOutboxes();
    clock = sinon.useFakeTimers({ now: T0, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    errors = [];
    window.addEventListener('svc:error', onError);
  });
  afterEach(async () => {
    for (const o of outboxes) o.dispose();
    for (const o of outboxes) await o.idle();
    outboxes = [];
    window.removeEventListener('svc:error', onError);
    clock.restore();
    sinon.restore();
    await clearAllOutboxes();
  });

  it('writes every event to IndexedDB in the tick it was pushed, one transaction per burst', async () => {
    sinon.stub(window, 'fetch').resolves(ok());
    const put = sinon.spy(idbOutboxStore, 'put');
    const outbox = await open();
    const events = [ev(), ev(), ev()];
    for (const e of events) outbox.push(e);
    expect(put.callCount, 'push never touches storage itself').to.equal(0);
    await Promise.resolve();
    expect(put.callCount).to.equal(1);
    await outbox.idle();
    expect(await stored()).to.deep.equal(events);
  });

  it('waits 2 s for more events, then sends one text/plain batch oldest first', async () => {
    const fetchStub = sinon.stub(window, 'fetch').resolves(ok());
    const outbox = await open();
    outbox.push(ev({ name: 'A' }));
    outbox.push(ev({ name: 'B' }));
    await clock.tickAsync(1999);
    await outbox.idle();
    expect(fetchStub.callCount).to.equal(0);
    await clock.tickAsync(1);
    await outbox.idle();
    expect(fetchStub.callCount).to.equal(1);
    const init = fetchStub.firstCall.args[1] as RequestInit;
    expect((init.headers as Record<string, string>)['Content-Type']).to.match(/^text\/plain/);
    expect(sentBatches(fetchStub)[0]!.map((e) => e.name)).to.deep.equal(['A', 'B']);
  });

  it('sends at once when a batch is full (50 events)', async () => {
    const fetchStub = sinon.stub(window, 'fetch').callsFake(async () => ok());
    const outbox = await open();
    for (let i = 0; i < 50; i++) outbox.push(ev());
    await clock.tickAsync(0);
    await outbox.idle();
    expect(sentBatches(fetchStub).map((b) => b.length)).to.deep.equal([50]);
  });

  it('deletes events only after a 2xx for the request that carried them', async () => {
    let answer!: (r: Response) => void;
    sinon.stub(window, 'fetch').callsFake(() => new Promise<Response>((resolve) => (answer = resolve)));
    const outbox = await open();
    outbox.push(ev());
    const flushed = outbox.flush();
    await clock.tickAsync(0);
    while (!answer) await nextTask();
    expect(await stored(), 'in flight, still stored').to.have.length(1);
    answer(ok());
    await flushed;
    expect(await stored()).to.have.length(0);
    expect(outbox.pending).to.equal(0);
  });

  it('sends what an earlier page left, at start-up (persistence across a reload)', async () => {
    const fetchStub = sinon.stub(window, 'fetch').resolves(status(503));
    const first = await open();
    const events = [ev(), ev(), ev()];
    for (const e of events) first.push(e);
    await first.flush(); // 503: kept
    first.dispose();
    fetchStub.resetHistory();
    fetchStub.resolves(ok());
    await open(); // the "reloaded" page
    expect(sentBatches(fetchStub)).to.deep.equal([events]);
    expect(await stored()).to.have.length(0);
  });

  describe('retries', () => {
    it('backoff is full jitter bounded by base·2^attempt: at most 1 s, then 2 s, then 4 s', async () => {
      sinon.stub(Math, 'random').returns(0.9999);
      const fetchStub = sinon.stub(window, 'fetch').resolves(status(503));
      const outbox = await open();
      outbox.push(ev());
      await outbox.flush();
      for (const [attempt, bound] of [[2, 1000], [3, 2000], [4, 4000]] as const) {
        await clock.tickAsync(bound - 2);
        await outbox.idle();
        expect(fetchStub.callCount, `before the bound of attempt ${attempt}`).to.equal(attempt - 1);
        await clock.tickAsync(1);
        await outbox.idle();
        expect(fetchStub.callCount, `at the bound of attempt ${attempt}`).to.equal(attempt);
      }
    });

    it('backoff never exceeds its cap', async () => {
      sinon.stub(Math, 'random').returns(0.9999);
      const fetchStub = sinon.stub(window, 'fetch').resolves(status(500));
      const outbox = await open({ backoffCapMs: 3000 });
      outbox.push(ev());
      await outbox.flush();
      await clock.tickAsync(999); await outbox.idle(); // attempt 2 (≤ 1 s)
      await clock.tickAsync(1999); await outbox.idle(); // attempt 3 (≤ 2 s)
      expect(fetchStub.callCount).to.equal(3);
      await clock.tickAsync(2998); await outbox.idle(); // 4 s capped at 3 s
      expect(fetchStub.callCount).to.equal(3);
      await clock.tickAsync(1); await outbox.idle();
      expect(fetchStub.callCount).to.equal(4);
    });

    const retryable: [string, () => Promise<Response>][] = [
      ['a network error', () => Promise.reject(new TypeError('Failed to fetch'))],
      ['408', async () => status(408)],
      ['429', async () => status(429)],
      ['500', async () => status(500)],
      ['503', async () => status(503)],
    ];
    for (const [name, answer] of retryable) {
      it(`keeps the batch after ${name} and sends the same events again`, async () => {
        sinon.stub(Math, 'random').returns(0.5);
        const fetchStub = sinon.stub(window, 'fetch');
        fetchStub.onFirstCall().callsFake(answer);
        fetchStub.resolves(ok());
        const outbox = await open();
        outbox.push(ev());
        await outbox.flush();
        expect(await stored()).to.have.length(1);
        await clock.tickAsync(500);
        await outbox.idle();
        const batches = sentBatches(fetchStub);
        expect(batches).to.have.length(2);
        expect(batches[1]).to.deep.equal(batches[0]);
        expect(await stored()).to.have.length(0);
      });
    }

    it('a timeout counts as a failure to retry', async () => {
      sinon.stub(Math, 'random').returns(0);
      const fetchStub = sinon.stub(window, 'fetch');
      fetchStub.onFirstCall().callsFake((_url, init) => new Promise<Response>((_resolve, reject) => {
        (init as RequestInit).signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      }));
      fetchStub.resolves(ok());
      const outbox = await open();
      outbox.push(ev());
      const flushed = outbox.flush();
      while (fetchStub.callCount === 0) await nextTask();
      await clock.tickAsync(10_000); // REQUEST_TIMEOUT_MS
      await flushed;
      await clock.tickAsync(1); // a 0 ms timer set during a fake tick is due 1 ms later
      await outbox.idle();
      expect(fetchStub.callCount).to.equal(2);
      expect(await stored()).to.have.length(0);
    });

    // Retry-After in either form (RFC 9110 10.2.3) wins over a shorter backoff: [form, first answer, wait ms].
    const retryAfter: [string, () => Response, number][] = [
      ['in seconds', () => status(429, { 'Retry-After': '30' }), 30_000],
      ['as an HTTP date', () => status(503, { 'Retry-After': new Date(T0 + 45_000).toUTCString() }), 45_000],
    ];
    for (const [form, answer, waitMs] of retryAfter) {
      it(`honours Retry-After ${form} over a shorter backoff`, async () => {
        sinon.stub(Math, 'random').returns(0);
        const fetchStub = sinon.stub(window, 'fetch');
        fetchStub.onFirstCall().resolves(answer());
        fetchStub.resolves(ok());
        const outbox = await open();
        outbox.push(ev());
        await outbox.flush();
        await clock.tickAsync(waitMs - 1); await outbox.idle();
        expect(fetchStub.callCount).to.equal(1);
        await clock.tickAsync(1); await outbox.idle();
        expect(fetchStub.callCount).to.equal(2);
      });
    }

    it('new events do not bring a scheduled retry forward', async () => {
      sinon.stub(Math, 'random').returns(0.9999);
      const fetchStub = sinon.stub(window, 'fetch').resolves(status(503));
      const outbox = await open();
      outbox.push(ev());
      await outbox.flush();
      for (let i = 0; i < 60; i++) outbox.push(ev());
      await clock.tickAsync(998); await outbox.idle();
      expect(fetchStub.callCount).to.equal(1);
    });

    it('coming back online sends at once instead of waiting for the backoff', async () => {
      const fetchStub = sinon.stub(window, 'fetch');
      fetchStub.onFirstCall().resolves(status(503, { 'Retry-After': '3600' }));
      fetchStub.resolves(ok());
      const outbox = await open();
      outbox.push(ev());
      await outbox.flush();
      window.dispatchEvent(new Event('online'));
      await outbox.idle();
      expect(fetchStub.callCount).to.equal(2);
      expect(await stored()).to.have.length(0);
    });
  });

  it('splits a batch in halves after 413, down to single events', async () => {
    const fetchStub = sinon.stub(window, 'fetch');
    fetchStub.onFirstCall().resolves(status(413));
    fetchStub.resolves(ok());
    const outbox = await open();
    for (let i = 0; i < 10; i++) outbox.push(ev());
    await outbox.flush();
    expect(sentBatches(fetchStub).map((b) => b.length)).to.deep.equal([10, 5, 5]);
    expect(await stored()).to.have.length(0);
  });

  it('drops a single event refused with 413 and says so', async () => {
    sinon.stub(window, 'fetch').resolves(status(413));
    const outbox = await open();
    outbox.push(ev());
    await outbox.flush();
    expect(errors).to.deep.equal([{ code: 'event_too_large', message: 'The service refused an event as too large.', count: 1 }]);
    expect(await stored()).to.have.length(0);
  });

  for (const code of [401, 403, 404]) {
    it(`drops a batch refused with ${code} (poison), reports it and never retries it`, async () => {
      const fetchStub = sinon.stub(window, 'fetch').callsFake(async () => status(code));
      const outbox = await open();
      outbox.push(ev());
      outbox.push(ev());
      await outbox.flush();
      await clock.tickAsync(DAY);
      await outbox.idle();
      expect(fetchStub.callCount).to.equal(1);
      expect(errors).to.deep.equal([{ code: `http_${code}`, message: `refused with ${code}`, count: 2 }]);
      expect(await stored()).to.have.length(0);
      expect(outbox.pending).to.equal(0);
    });
  }

  for (const code of [400, 422]) {
    it(`a batch refused with ${code} is halved until each refused event stands alone, then dropped and never retried`, async () => {
      const fetchStub = sinon.stub(window, 'fetch').callsFake(async () => status(code));
      const outbox = await open();
      outbox.push(ev());
      outbox.push(ev());
      await outbox.flush();
      await clock.tickAsync(DAY);
      await outbox.idle();
      expect(sentBatches(fetchStub).map((b) => b.length)).to.deep.equal([2, 1, 1]);
      expect(errors).to.deep.equal([
        { code: `http_${code}`, message: `refused with ${code}`, count: 1 },
        { code: `http_${code}`, message: `refused with ${code}`, count: 1 },
      ]);
      expect(await stored()).to.have.length(0);
      expect(outbox.pending).to.equal(0);
    });
  }

  it('a poison event does not block the events beside and behind it', async () => {
    const poison = ev();
    // The service refuses any request that carries the poison event, and takes every other.
    const fetchStub = sinon.stub(window, 'fetch').callsFake(async (_url, init) =>
      String((init as RequestInit).body).includes(poison.eventId) ? status(400) : ok());
    const outbox = await open({ batchSize: 2 });
    const others = [ev(), ev(), ev()];
    outbox.push(others[0]!);
    outbox.push(poison);
    outbox.push(others[1]!);
    outbox.push(others[2]!);
    await outbox.flush();
    const accepted = sentBatches(fetchStub).filter((b) => !b.some((e) => e.eventId === poison.eventId)).flat();
    expect(accepted.map((e) => e.eventId).sort()).to.deep.equal(others.map((e) => e.eventId).sort());
    expect(errors).to.have.length(1);
    expect(errors[0]).to.include({ code: 'http_400', count: 1 });
    expect(await stored()).to.have.length(0);
  });

  it('a retry that ends in a drop leaves the outbox sending again: later events go after the flush interval', async () => {
    const fetchStub = sinon.stub(window, 'fetch');
    fetchStub.onCall(0).resolves(status(503));
    fetchStub.onCall(1).resolves(status(400));
    fetchStub.resolves(ok());
    const outbox = await open();
    outbox.push(ev({ name: 'refused' }));
    await clock.tickAsync(2_000); // the flush interval: 503, a retry is scheduled
    await outbox.idle();
    await clock.tickAsync(60_000); // the retry: 400, the event is dropped and said so
    await outbox.idle();
    expect(errors.map((e) => e.code)).to.deep.equal(['http_400']);
    outbox.push(ev({ name: 'later' }));
    await clock.tickAsync(2_000);
    await outbox.idle();
    expect(sentBatches(fetchStub).flat().map((e) => e.name)).to.deep.equal(['refused', 'refused', 'later']);
    expect(await stored()).to.have.length(0);
  });

  it('drops an expired entry whatever its place in id order (an older SDK\'s ids sort after UUIDv7 ones)', async () => {
    const fetchStub = sinon.stub(window, 'fetch').resolves(ok());
    const fresh = ev({ name: 'fresh' });
    const old = ev({ name: 'old' });
    await idbOutboxStore.put(SCOPE, [
      { id: '01900000-0000-7000-8000-000000000000', at: T0 - DAY, size: 100, event: fresh },
      { id: `${T0 - 8 * DAY}-tab-1`, at: T0 - 8 * DAY, size: 100, event: old },
    ]);
    await open();
    expect(errors.map((e) => e.code)).to.deep.equal(['outbox_expired']);
    expect(sentBatches(fetchStub).flat().map((e) => e.name)).to.deep.equal(['fresh']);
    expect(await stored()).to.have.length(0);
  });

  describe('limits', () => {
    it('keeps at most 1,000 events: the oldest go and svc:error says how many', async () => {
      const outbox = await open({ active: () => false });
      const events = Array.from({ length: 1003 }, () => ev());
      for (const e of events) outbox.push(e);
      await outbox.idle();
      expect(errors).to.deep.equal([{ code: 'outbox_full', message: 'The outbox was full: the 3 oldest events were dropped.', count: 3 }]);
      const kept = await stored();
      expect(kept).to.have.length(1000);
      expect(kept[0]!.eventId).to.equal(events[3]!.eventId);
      expect(outbox.pending).to.equal(1000);
    });

    it('keeps at most 2 MB of events', async () => {
      const outbox = await open({ active: () => false });
      const big = 'x'.repeat(10_000);
      for (let i = 0; i < 220; i++) outbox.push(ev({ data: { big } }));
      await outbox.idle();
      const kept = await idbOutboxStore.load(SCOPE);
      const bytes = kept.reduce((sum, r) => sum + r.size, 0);
      expect(bytes).to.be.at.most(2 * 1024 * 1024);
      expect(bytes + kept[0]!.size, 'not one more would fit').to.be.greaterThan(2 * 1024 * 1024);
      expect(errors).to.have.length(1);
      expect(errors[0]!.count).to.equal(220 - kept.length);
    });

    it('applies the caps to what all tabs wrote, when the flusher reads the store', async () => {
      const tabA = await open({ active: () => false });
      const tabB = await open({ active: () => false });
      for (let i = 0; i < 600; i++) tabA.push(ev());
      for (let i = 0; i < 600; i++) tabB.push(ev());
      await tabA.idle();
      await tabB.idle();
      expect(errors).to.deep.equal([]);
      sinon.stub(window, 'fetch').resolves(status(503));
      await open();
      expect(errors.map((e) => [e.code, e.count])).to.deep.equal([['outbox_full', 200]]);
      expect(await stored()).to.have.length(1000);
    });

    it('drops events older than 7 days and says so; younger ones are sent', async () => {
      const fetchStub = sinon.stub(window, 'fetch').resolves(status(503));
      const first = await open({ active: () => false });
      first.push(ev({ name: 'old' }));
      await clock.tickAsync(1);
      first.push(ev({ name: 'young' }));
      await first.idle();
      first.dispose();
      await clock.tickAsync(7 * DAY); // 'old' is 7 days and 1 ms old, 'young' exactly 7 days
      fetchStub.resolves(ok());
      await open();
      expect(errors.map((e) => [e.code, e.count])).to.deep.equal([['outbox_expired', 1]]);
      expect(sentBatches(fetchStub).flat().map((e) => e.name)).to.deep.equal(['young']);
      expect(await stored()).to.have.length(0);
    });
  });

  describe('storage failures', () => {
    /** Real IndexedDB, except that writing fails the way a full disk makes it fail. */
    function quotaStore(): OutboxStore & { puts: number } {
      const store = {
        ...idbOutboxStore,
        puts: 0,
        put: async () => {
          store.puts++;
          throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
        },
      };
      return store;
    }

    it('on QuotaExceededError evicts the oldest quarter, keeps the rest in memory and never throws', async () => {
      const fetchStub = sinon.stub(window, 'fetch').resolves(ok());
      const store = quotaStore();
      const outbox = await open({ store });
      const events = Array.from({ length: 8 }, () => ev());
      expect(() => { for (const e of events) outbox.push(e); }).not.to.throw();
      await outbox.idle();
      expect(errors.map((e) => [e.code, e.count])).to.deep.equal([['outbox_quota', 2]]);
      outbox.push(ev({ name: 'later' }));
      await outbox.flush();
      expect(store.puts, 'memory from then on: no more writes').to.equal(1);
      expect(sentBatches(fetchStub).flat().map((e) => e.eventId)).to.deep.equal([...events.slice(2).map((e) => e.eventId), `e-${n}`]);
      expect(outbox.pending).to.equal(0);
    });

    it('other storage errors fall back to memory without losing an event', async () => {
      const fetchStub = sinon.stub(window, 'fetch').resolves(ok());
      const outbox = await open({ store: { ...idbOutboxStore, put: () => Promise.reject(new DOMException('gone', 'UnknownError')) } });
      outbox.push(ev());
      outbox.push(ev());
      await outbox.flush();
      expect(errors).to.deep.equal([]);
      expect(sentBatches(fetchStub).flat()).to.have.length(2);
    });
  });

  describe('several tabs', () => {
    it('one tab sends at a time; a tab closing mid-flush leaves its events for the next holder', async () => {
      const fetchStub = sinon.stub(window, 'fetch');
      // Tab A's request never answers: A "closes" while it is in flight.
      fetchStub.onFirstCall().callsFake((_url, init) => new Promise<Response>((_resolve, reject) => {
        (init as RequestInit).signal!.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      }));
      fetchStub.resolves(ok());
      const tabA = await open();
      const tabB = await open();
      const a = [ev({ name: 'a1' }), ev({ name: 'a2' })];
      for (const e of a) tabA.push(e);
      void tabA.flush();
      while (fetchStub.callCount === 0) await nextTask();
      await clock.tickAsync(1);
      const b = ev({ name: 'b1' });
      tabB.push(b);
      const bFlushed = tabB.flush();
      // B queues behind A's lock instead of sending alongside it.
      while ((await navigator.locks.query()).pending?.length !== 1) await nextTask();
      expect(fetchStub.callCount).to.equal(1);
      tabA.dispose();
      await bFlushed;
      const batches = sentBatches(fetchStub);
      expect(batches).to.have.length(2);
      expect(batches[1]!.map((e) => e.name)).to.deep.equal(['a1', 'a2', 'b1']);
      expect(await stored()).to.have.length(0);
    });

    it("a tab sends other tabs' events, and they are not sent again by their own tab", async () => {
      const fetchStub = sinon.stub(window, 'fetch').callsFake(async () => ok());
      const tabA = await open();
      const tabB = await open();
      tabA.push(ev({ name: 'a' }));
      await clock.tickAsync(1);
      tabB.push(ev({ name: 'b' }));
      await tabB.idle();
      await tabA.flush();
      await tabB.flush();
      expect(sentBatches(fetchStub).map((batch) => batch.map((e) => e.name))).to.deep.equal([['a', 'b']]);
      expect(tabB.pending).to.equal(0);
    });
  });

  describe('page exit', () => {
    it('sends with keepalive in chunks under 60 KiB, within the 64 KiB budget, and keeps events until acknowledged', async () => {
      let answer!: () => void;
      const answered = new Promise<void>((r) => (answer = r));
      const fetchStub = sinon.stub(window, 'fetch').callsFake(async () => {
        await answered;
        return ok();
      });
      const outbox = await open();
      const big = 'x'.repeat(400);
      for (let i = 0; i < 150; i++) outbox.push(ev({ data: { big, i } }));
      await outbox.idle();
      outbox.flushOnExit();
      const calls = fetchStub.getCalls();
      let total = 0;
      for (const call of calls) {
        const init = call.args[1] as RequestInit;
        expect(init.keepalive).to.equal(true);
        const bytes = new TextEncoder().encode(String(init.body)).length;
        expect(bytes).to.be.lessThan(60 * 1024);
        total += bytes;
      }
      expect(calls.length, 'more than one chunk').to.equal(2);
      expect(total).to.be.at.most(64 * 1024);
      const sent = sentBatches(fetchStub).flat().map((e) => e.data?.i);
      expect(sent).to.deep.equal(Array.from({ length: 100 }, (_, i) => i));
      expect(await stored(), 'kept until the answers come').to.have.length(150);
      answer();
      await Promise.all(calls.map((c) => c.returnValue as Promise<Response>));
      await nextTask();
      await outbox.idle();
      expect(await stored(), 'what did not fit waits in IndexedDB').to.have.length(50);
    });

    it('an event too big for what is left of the budget does not stop the smaller ones behind it', async () => {
      const fetchStub = sinon.stub(window, 'fetch').callsFake(async () => ok());
      const outbox = await open({ active: () => false });
      outbox.push(ev({ name: 'huge', data: { big: 'x'.repeat(70_000) } }));
      for (let i = 0; i < 5; i++) outbox.push(ev({ name: 'small' }));
      outbox.flushOnExit();
      const sent = sentBatches(fetchStub).flat().map((e) => e.name);
      expect(sent).to.deep.equal(['small', 'small', 'small', 'small', 'small']);
      await outbox.idle();
    });

    it('sends first what IndexedDB has not confirmed yet', async () => {
      const fetchStub = sinon.stub(window, 'fetch').callsFake(async () => ok());
      const outbox = await open({ active: () => false });
      const big = 'x'.repeat(20_000);
      for (let i = 0; i < 4; i++) outbox.push(ev({ name: 'stored', data: { big } }));
      await outbox.idle();
      outbox.push(ev({ name: 'fresh', data: { big } }));
      outbox.flushOnExit();
      expect(sentBatches(fetchStub).flat().map((e) => e.name)).to.deep.equal(['fresh', 'stored', 'stored']);
    });

    it('what the page-exit send could not deliver is sent by the next page', async () => {
      const fetchStub = sinon.stub(window, 'fetch').rejects(new TypeError('Failed to fetch'));
      const first = await open();
      const events = [ev(), ev()];
      for (const e of events) first.push(e);
      first.flushOnExit();
      await first.idle();
      first.dispose();
      fetchStub.resetHistory();
      fetchStub.resolves(ok());
      await open();
      expect(sentBatches(fetchStub)).to.deep.equal([events]);
    });
  });

  describe('opt-out (purge)', () => {
    it('empties memory and IndexedDB and cancels the scheduled flush', async () => {
      const fetchStub = sinon.stub(window, 'fetch').resolves(ok());
      const outbox = await open();
      outbox.push(ev());
      outbox.push(ev());
      await outbox.idle();
      expect(await stored()).to.have.length(2);
      outbox.purge();
      expect(outbox.pending).to.equal(0);
      expect(await stored()).to.have.length(0);
      await clock.tickAsync(60_000);
      await outbox.idle();
      expect(fetchStub.callCount).to.equal(0);
    });

    it('stops a flush waiting to retry, and a request in flight brings nothing back', async () => {
      let answer!: (r: Response) => void;
      const fetchStub = sinon.stub(window, 'fetch').callsFake(() => new Promise<Response>((resolve) => (answer = resolve)));
      const outbox = await open();
      outbox.push(ev());
      const flushed = outbox.flush();
      while (!answer) await nextTask();
      outbox.purge();
      answer(status(503));
      await flushed;
      await clock.tickAsync(DAY);
      await outbox.idle();
      expect(fetchStub.callCount).to.equal(1);
      expect(await stored()).to.have.length(0);
    });

    it('a scope is purged without touching another configuration on the same origin', async () => {
      const other = new IdbOutbox(createSender(config), { scope: 'https://other.test/track', active: () => false });
      outboxes.push(other);
      other.push(ev());
      await other.idle();
      const outbox = await open({ active: () => false });
      outbox.push(ev());
      await outbox.idle();
      outbox.purge();
      await outbox.idle();
      expect(await stored()).to.have.length(0);
      expect(await idbOutboxStore.load('https://other.test/track')).to.have.length(1);
    });
  });
});
