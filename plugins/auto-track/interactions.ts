import type { PluginContext } from '../../src/index.js';
import { listen } from '../../src/plugin-api.js';
import { boundedText, capturedValue, cutText, describe, isExcluded, isField } from './element-info.js';

const CLICKABLE = 'a,button,[role=button],input[type=button],input[type=submit],input[type=reset]';

/** `Click On` for the nearest link or button of a click. */
export function trackClicks(ctx: PluginContext, redact: (url: string) => string): () => void {
  return listen<MouseEvent>(document, 'click', 'auto-track', (e) => {
    // The element clicked, also inside a shadow root (the event's target is then the host).
    const origin = e.composedPath()[0];
    const target = origin instanceof Element ? origin : null;
    const el = target?.closest(CLICKABLE);
    // Inside an editable region (a rich-text editor, a comment box) the text and links are what the visitor typed.
    if (!el || isExcluded(target!) || (el as HTMLElement).isContentEditable) return;
    const data = describe(el);
    // A descendant marked no-capture (a name inside a greeting link) keeps the whole text out.
    if (!el.querySelector('[data-svc-no-capture]')) {
      data.text = boundedText(el instanceof HTMLInputElement ? el.value : el.textContent ?? '');
    }
    // Bounded: a `data:` link (a generated download) can be larger than an event may be.
    if (el instanceof HTMLAnchorElement && el.hasAttribute('href')) data.href = cutText(redact(el.href), 2048);
    ctx.emit({ type: 'track', name: 'Click On', data });
  }, true);
}

/** `Change On` for form fields; the value only from fields marked `data-svc-capture`. */
export function trackChanges(ctx: PluginContext): () => void {
  return listen(document, 'change', 'auto-track', (e) => {
    const el = e.target;
    if (!(el instanceof Element) || !isField(el) || isExcluded(el)) return;
    const data = describe(el);
    if (el.getAttribute('name')) data.field = el.getAttribute('name');
    data.type = el.type;
    const value = capturedValue(el);
    if (value !== undefined) data.value = value;
    ctx.emit({ type: 'track', name: 'Change On', data });
  }, true);
}

/**
 * `Submit On`, emitted synchronously in the capture phase: before any handler can navigate away or stop
 * the event, so a submit is never lost. Only fields marked `data-svc-capture` contribute `values`.
 */
export function trackSubmits(ctx: PluginContext, redact: (url: string) => string): () => void {
  return listen(document, 'submit', 'auto-track', (e) => {
    const form = e.target;
    if (!(form instanceof HTMLFormElement) || isExcluded(form)) return;
    const data = describe(form);
    data.method = (form.getAttribute('method') ?? 'get').toLowerCase();
    const action = form.getAttribute('action');
    if (action) data.action = redact(action);
    // A Map, then own properties: no field name can set the object's prototype. A field named `__proto__` is
    // left out, as the service refuses that key (and the whole event with it).
    const values = new Map<string, string>();
    for (const el of form.querySelectorAll('[data-svc-capture]')) {
      const name = el.getAttribute('name');
      const value = name && name !== '__proto__' && isField(el) ? capturedValue(el) : undefined;
      // A group of radios or checkboxes shares a name: an unchecked one ('') does not overwrite the checked one.
      if (name && value !== undefined && (value !== '' || !values.has(name))) values.set(name, value);
    }
    if (values.size) data.values = Object.fromEntries(values);
    ctx.emit({ type: 'track', name: 'Submit On', data });
  }, true);
}
