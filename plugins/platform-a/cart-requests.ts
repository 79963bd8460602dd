import { guard } from '../../src/plugin-api.js';
import { cartLines, isCartAdd, type CartLine } from './cart-lines.js';

/** Called after a successful AJAX add: the requested lines and the parsed answer (or null). */
export type OnCartAdd = (lines: CartLine[], answer: unknown) => void;

const ok = (status: number): boolean => status >= 200 && status < 300;

/**
 * Watches AJAX adds to the cart through `fetch` and `XMLHttpRequest` (themes use both); reports only adds
 * the store accepted (a sold-out variant answers 422). Returns the teardown that restores the originals.
 */
export function watchCartRequests(onAdd: OnCartAdd): () => void {
  let active = true;
  const report = guard('platform-a', (body: unknown, answer: unknown) => {
    const lines = cartLines(body);
    if (active && lines.length) onAdd(lines, answer);
  });

  const originalFetch = window.fetch;
  const wrappedFetch: typeof fetch = function (input, init) {
    const adding = active && isCartAdd(input instanceof Request ? input.url : String(input));
    // A Request carries its own body: read from a copy made before fetch uses the original up.
    const sent = adding && init?.body === undefined && input instanceof Request ? input.clone().text() : init?.body;
    const response = originalFetch.call(window, input, init);
    if (adding) {
      // Our callback is attached before the caller's, so the body is still unread when we clone it.
      void response.then(
        (r) => (ok(r.status) ? Promise.all([r.clone().json().catch(() => null), sent]).then(([answer, body]) => report(body, answer)) : undefined),
        () => undefined,
      );
    }
    return response;
  };
  window.fetch = wrappedFetch;

  const proto = XMLHttpRequest.prototype;
  const { open, send } = proto;
  const urls = new WeakMap<XMLHttpRequest, string>();
  const wrappedOpen = function (this: XMLHttpRequest, ...args: unknown[]): void {
    urls.set(this, String(args[1]));
    (open as (...a: unknown[]) => void).apply(this, args);
  };
  const wrappedSend = function (this: XMLHttpRequest, body?: Document | XMLHttpRequestBodyInit | null): void {
    if (active && isCartAdd(urls.get(this))) {
      // Once per send, whatever its outcome (an object reused for another add must not report this one again).
      this.addEventListener('loadend', () => {
        if (!ok(this.status)) return;
        let answer: unknown = null;
        try {
          answer = this.responseType === 'json' ? this.response : JSON.parse(this.responseText);
        } catch {
          // not JSON: the product comes from the page instead
        }
        report(body, answer);
      }, { once: true });
    }
    send.call(this, body);
  };
  proto.open = wrappedOpen as typeof proto.open;
  proto.send = wrappedSend;

  return () => {
    active = false;
    // Restore only what is still ours: a wrapper added after us keeps working (ours then passes through).
    if (window.fetch === wrappedFetch) window.fetch = originalFetch;
    if (proto.open === (wrappedOpen as typeof proto.open)) proto.open = open;
    if (proto.send === wrappedSend) proto.send = send;
  };
}
