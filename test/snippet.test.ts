import { expect } from '@open-wc/testing';
import type { ServiceEvent, ServiceJs } from '../src/index.js';

// The README's snippet with the `async` script tag, as a CMS page has them: calls made on `window.svc` before
// dist/service.js arrives are queued by the stub and replayed in order once it has loaded.
type Stubbed = ServiceJs & unknown[];

function addScript(src: string, data: Record<string, string> = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.async = true;
    script.src = src;
    for (const [k, v] of Object.entries(data)) script.dataset[k] = v;
    script.onload = () => resolve();
    script.onerror = () => reject(new Error(`could not load ${src}`));
    document.head.append(script);
  });
}

const TAG = { organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', api: 'https://svc.test/v1', autoTrack: 'false' };

describe('the async snippet', () => {
  const seen: ServiceEvent[] = [];
  const onEvent = (e: WindowEventMap['svc:event']): void => void seen.push(e.detail);

  before(() => window.addEventListener('svc:event', onEvent));
  after(() => {
    window.removeEventListener('svc:event', onEvent);
    window.svc?.destroy();
    delete window.svc;
    localStorage.clear();
  });

  it('queues calls before the SDK loads and replays them in order; ready(fn) runs once; stubbed calls settle', async () => {
    await addScript('/bundles/snippet.js');
    const stub = window.svc as Stubbed;
    expect(Array.isArray(stub), 'the stub is a queue').to.equal(true);

    const readyCalls: unknown[] = [];
    stub.track({ eventTitle: 'First', data: { n: 1 } });
    const readyAnswer = stub.ready((svc) => readyCalls.push(svc));
    stub.identify({ userId: 'u-1' });
    const refused = stub.track({ eventTitle: 'Bad' } as never) as unknown as Promise<void>;
    const chosen = stub.choose({ names: ['hero-banner'] });
    stub.track({ eventTitle: 'Second', data: { n: 2 } });
    expect(seen, 'nothing is tracked before the file loads').to.deep.equal([]);
    expect(readyCalls).to.deep.equal([]);

    await addScript('/dist/service.js', TAG);

    const svc = window.svc!;
    expect(svc).to.be.instanceOf(window.ServiceJs);
    expect(seen.map((e) => [e.type, e.name])).to.deep.equal([['track', 'First'], ['identify', 'Identify'], ['track', 'Second']]);
    expect(seen[1]!.userId).to.equal('u-1');
    expect(readyCalls).to.deep.equal([svc]);
    expect(await readyAnswer).to.equal(svc);
    // A queued call that breaks the rules rejects its own promise with the SDK's message, and nothing else.
    let message = '';
    await refused.catch((error: Error) => (message = error.message));
    expect(message).to.equal(`Track parameters are invalid: 'data' is required.`);
    // The service at svc.test is unreachable: choose answers [] (it never rejects), through the stub too.
    expect(await chosen).to.deep.equal([]);
  });

  it('ready(fn) after the load runs fn at once with the instance, once', async () => {
    const calls: unknown[] = [];
    const answer = window.svc!.ready((svc) => calls.push(svc));
    expect(calls).to.deep.equal([window.svc]);
    expect(await answer).to.equal(window.svc);
    await Promise.resolve();
    expect(calls).to.have.length(1);
  });

  it('a second snippet after the load leaves the instance alone', async () => {
    const svc = window.svc;
    await addScript('/bundles/snippet.js');
    expect(window.svc).to.equal(svc);
    expect(Array.isArray(window.svc)).to.equal(false);
  });
});

describe('a queue in Segment’s shape', () => {
  after(() => {
    window.svc?.destroy();
    delete window.svc;
    localStorage.clear();
  });

  it('is replayed as well: [method, ...args] entries, in order, a failing entry reported and skipped', async () => {
    // The first describe's instance is gone: a fresh queue, written by hand as Segment's snippet writes its own.
    window.svc?.destroy();
    delete window.svc;
    const names: string[] = [];
    const onEvent = (e: WindowEventMap['svc:event']): void => void names.push(e.detail.name);
    window.addEventListener('svc:event', onEvent);
    const errors: unknown[][] = [];
    const original = console.error;
    console.error = (...args: unknown[]) => void errors.push(args);
    try {
      (window as unknown as { svc: unknown[] }).svc = [
        ['track', { eventTitle: 'One', data: { a: 1 } }],
        ['noSuchMethod', 1],
        ['productView', 'sku-1'],
      ];
      await addScript('/dist/service.js', TAG);
    } finally {
      console.error = original;
      window.removeEventListener('svc:event', onEvent);
    }
    expect(window.svc).to.be.instanceOf(window.ServiceJs);
    expect(names).to.deep.equal(['One', 'Product viewed']);
    expect(errors).to.have.length(1);
    expect(String(errors[0]![0])).to.equal('[svc]');
  });
});
