import sinon from 'sinon';
import { ServiceJs, type ServiceConfig, type ServiceEvent } from '../../src/index.js';
import { clearAllOutboxes } from '../../src/outbox-store.js';

export const CONFIG: ServiceConfig = {
  organization: 'acme',
  project: 'shop',
  sourceId: 'web',
  writeKey: 'web1.p4ss.word',
  platformA: false,
  platformB: false,
  api: 'https://svc.test/v1',
};

const created: ServiceJs[] = [];

/** A ServiceJs on a clean browser profile; destroyed by `cleanup()`. */
export function makeSvc(config: Partial<ServiceConfig> = {}): ServiceJs {
  const merged: ServiceConfig = { ...CONFIG, ...config };
  // `api: undefined` asks for the default (this origin), as a config without `api` would.
  if ('api' in config && config.api === undefined) delete merged.api;
  const svc = new ServiceJs(merged);
  created.push(svc);
  return svc;
}

export async function cleanup(): Promise<void> {
  for (const svc of created.splice(0)) svc.destroy();
  localStorage.clear();
  sinon.restore();
  // The outbox is durable: without this, one test's unsent events would be sent by the next test's SDK.
  await clearAllOutboxes();
}

/** Collects the `svc:event` details dispatched while it is attached. */
export function captureEvents(): { events: ServiceEvent[]; stop: () => void } {
  const events: ServiceEvent[] = [];
  const listener = (e: WindowEventMap['svc:event']): void => {
    events.push(e.detail);
  };
  window.addEventListener('svc:event', listener);
  return { events, stop: () => window.removeEventListener('svc:event', listener) };
}

/** Replaces the network (an edge we do not own) with a stub answering `status` and `body`. */
export function stubFetch(status = 200, body: unknown = { accepted: 1, duplicates: 0 }): sinon.SinonStub {
  return sinon.stub(window, 'fetch').callsFake(async () =>
    new Response(typeof body === 'string' ? body : JSON.stringify(body), {
      status,
      headers: { 'Content-Type': 'application/json' },
    }),
  );
}

/** The `{batch}` bodies sent to the track endpoint through a stubbed fetch. */
export function sentBatches(fetchStub: sinon.SinonStub): ServiceEvent[][] {
  return fetchStub.getCalls()
    .filter((c) => String(c.args[0]).endsWith('/track'))
    .map((c) => (JSON.parse(String((c.args[1] as RequestInit).body)) as { batch: ServiceEvent[] }).batch);
}
