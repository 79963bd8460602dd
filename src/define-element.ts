import { VERSION } from './dev-mode.js';

const versions = new Map<string, string>();

/**
 * Registers a custom element once. Two copies of the SDK on one CMS page are normal (a theme and a
 * plugin each embed it); the second copy's `define` would throw, so it is skipped, with a warning when
 * the versions differ.
 */
export function defineElement(tag: string, ctor: CustomElementConstructor, version = VERSION): void {
  const registered = customElements.get(tag);
  if (registered) {
    const other = versions.get(tag) ?? (registered as { svcVersion?: string }).svcVersion;
    if (other !== undefined && other !== version) {
      console.warn(`[svc] <${tag}> is already defined by svc ${other}; this copy (${version}) uses that one.`);
    }
    return;
  }
  (ctor as { svcVersion?: string }).svcVersion = version;
  versions.set(tag, version);
  customElements.define(tag, ctor);
}
