import { DEV_MODE } from './dev-mode.js';
import type { ServiceEvent } from '../wire/event.js';
import type { PluginContext, ServicePlugin } from './plugin.js';

/** Reports a plugin's failure; callers report each plugin once. The error object itself only in development builds. */
export function pluginFailed(plugin: string | undefined, where: string, error: unknown): void {
  console.error(`[svc] plugin "${plugin}" failed in ${where}; the page and the other plugins are unaffected.`, DEV_MODE ? error : '');
}

interface Installed {
  plugin: ServicePlugin;
  teardown?: () => void;
  warned: boolean;
}

/**
 * Runs plugins in the order they were added. One plugin's exception is logged once and contained (like
 * Segment's `attempt()`): it never reaches the host page and never stops another plugin or the event.
 */
export class PluginHost {
  #installed: Installed[] = [];

  use(plugin: ServicePlugin, ctx: PluginContext): () => void {
    const entry: Installed = { plugin, warned: false };
    try {
      const teardown = plugin.setup?.(ctx);
      if (typeof teardown === 'function') entry.teardown = teardown;
    } catch (error) {
      pluginFailed(plugin?.name, 'setup', error);
      return () => {};
    }
    this.#installed.push(entry);
    return () => this.#remove(entry);
  }

  /** The event after every plugin's `enrich`, or null when one dropped it. */
  enrich(event: ServiceEvent): ServiceEvent | null {
    let current = event;
    for (const entry of this.#installed) {
      if (!entry.plugin.enrich) continue;
      try {
        const next = entry.plugin.enrich(current);
        if (next === null) return null;
        if (next) current = next;
      } catch (error) {
        this.#warnOnce(entry, 'enrich', error);
      }
    }
    return current;
  }

  /** Calls one optional hook on every plugin, each failure contained. */
  call(hook: 'reset' | 'pageExit'): void {
    for (const entry of this.#installed) {
      try {
        entry.plugin[hook]?.();
      } catch (error) {
        this.#warnOnce(entry, hook, error);
      }
    }
  }

  removeAll(): void {
    for (const entry of [...this.#installed]) this.#remove(entry);
  }

  #remove(entry: Installed): void {
    const i = this.#installed.indexOf(entry);
    if (i === -1) return;
    this.#installed.splice(i, 1);
    try {
      entry.teardown?.();
    } catch (error) {
      this.#warnOnce(entry, 'teardown', error);
    }
  }

  #warnOnce(entry: Installed, hook: string, error: unknown): void {
    if (entry.warned) return;
    entry.warned = true;
    pluginFailed(entry.plugin.name, hook, error);
  }
}
