import type { ConsentControl } from '../../src/index.js';

// The SDK instance's consent control, registered by the plugin. Elements may connect before the SDK's
// script has run (the banner is usually high in the page), so they subscribe rather than look it up.
let current: ConsentControl | undefined;
const listeners = new Set<(control: ConsentControl | undefined) => void>();

export function setConsentControl(control: ConsentControl | undefined): void {
  current = control;
  for (const listener of listeners) listener(control);
}

/** Calls `listener` now (if registered) and on every change; returns the unsubscriber. */
export function watchConsentControl(listener: (control: ConsentControl | undefined) => void): () => void {
  listeners.add(listener);
  if (current) listener(current);
  return () => listeners.delete(listener);
}
