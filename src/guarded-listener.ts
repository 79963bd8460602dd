import { pluginFailed } from './plugin-host.js';

/**
 * Wraps a plugin's callback so that its exception is logged once and never reaches the host page or the
 * code that triggered it (a click handler, the page's own `history.pushState` call).
 */
export function guard<A extends unknown[]>(plugin: string, fn: (...args: A) => void): (...args: A) => void {
  let warned = false;
  return (...args) => {
    try {
      fn(...args);
    } catch (error) {
      if (warned) return;
      warned = true;
      pluginFailed(plugin, 'a listener', error);
    }
  };
}

/** Adds a guarded listener; returns its removal. */
export function listen<E extends Event>(
  target: EventTarget, type: string, plugin: string, fn: (event: E) => void, capture = false,
): () => void {
  const listener = guard(plugin, fn) as (event: Event) => void;
  target.addEventListener(type, listener, capture);
  return () => target.removeEventListener(type, listener, capture);
}
