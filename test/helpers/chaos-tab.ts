// One "tab" of the delivery chaos test: loaded in a same-origin iframe, so it has its own realm, its own
// Web Lock holder and its own page lifecycle (removing the iframe is closing the tab mid-flush).
import { resolveConfig } from '../../src/config.js';
import type { ErrorEventDetail } from '../../src/dom-events.js';
import { IdbOutbox } from '../../src/idb-outbox.js';
import { trackUrl } from '../../src/endpoint-urls.js';
import { createSender } from '../../src/transport.js';

export interface ChaosTab {
  outbox: IdbOutbox;
  errors: ErrorEventDetail[];
}

/** Short timings so that the run ends in seconds: 500 ms request timeout, backoff 50 ms capped at 400 ms. */
export function startTab(api: string): ChaosTab {
  const config = resolveConfig({
    organization: 'acme', project: 'shop', sourceId: 'web', writeKey: 'web1.p4ss', platformA: false, platformB: false, api,
  });
  const outbox = new IdbOutbox(createSender(config, 500), {
    scope: trackUrl(config), flushIntervalMs: 100, backoffBaseMs: 50, backoffCapMs: 400,
  });
  const errors: ErrorEventDetail[] = [];
  addEventListener('svc:error', (e) => void errors.push(e.detail));
  // As ServiceJs does: page exit sends with keepalive and leaves the events stored.
  addEventListener('pagehide', () => outbox.flushOnExit());
  return { outbox, errors };
}
