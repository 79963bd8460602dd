import type { ConsentControl } from '../../src/index.js';
import { InstanceSlot } from '../../src/plugin-api.js';

// The SDK instance's consent control, registered by the plugin. Elements may connect before the SDK's
// script has run (the banner is usually high in the page), so they subscribe rather than look it up.
const controls = new InstanceSlot<ConsentControl>();

/** Registers the instance's control (the last set is current); returns its remover, which clears it only while current. */
export function setConsentControl(control: ConsentControl | undefined): () => void {
  return controls.set(control);
}

/** Calls `listener` now (if registered) and on every change; returns the unsubscriber. */
export function watchConsentControl(listener: (control: ConsentControl | undefined) => void): () => void {
  return controls.watch(listener);
}
