import type { ServiceConfig, ServiceJs } from '../src/index.js';
import { announce } from '../src/dom-events.js';

/** `data-platform-a` present (and not "false") turns the integration on. */
function flag(value: string | undefined): boolean {
  return value !== undefined && value !== 'false';
}

/**
 * Reads the SDK's own `<script data-organization data-project data-source-id data-write-key …>` tag into a
 * config; null when the tag does not ask for self-initialisation.
 */
export function configFromScript(script: HTMLScriptElement | SVGScriptElement | null): ServiceConfig | null {
  const d = script instanceof HTMLScriptElement ? script.dataset : undefined;
  if (!d?.organization) return null;
  const config: ServiceConfig = {
    organization: d.organization,
    project: d.project ?? '',
    sourceId: d.sourceId ?? '',
    writeKey: d.writeKey ?? '',
    platformA: false,
    platformB: false,
  };
  // Every `data-platform-*` attribute is a platform's flag (`data-platform-c` → `platformC`), the contract's two included.
  for (const key in d) if (key.startsWith('platform')) config[key as `platform${string}`] = flag(d[key]);
  if (d.api) config.api = d.api;
  // data-auto-track="false" turns automatic tracking off; absent or any other value leaves it on.
  if (d.autoTrack === 'false') config.autoTrack = false;
  // data-consent-required="true" data-consent-categories="necessary,analytics,marketing"
  if (flag(d.consentRequired) || d.consentCategories) {
    config.consent = { required: flag(d.consentRequired) };
    if (d.consentCategories) config.consent.categories = d.consentCategories.split(',').map((c) => c.trim()).filter(Boolean);
  }
  return config;
}

/**
 * Creates `window.svc` from the script tag, then replays in order the calls the snippet's stub queued on
 * `window.svc` before this file loaded — Segment's queue: an array of `[method, ...args]`. A bad tag or a
 * queued call that throws is reported, never thrown at the page.
 */
export function autoInit(Ctor: typeof ServiceJs, script: HTMLScriptElement | SVGScriptElement | null): void {
  const config = configFromScript(script);
  if (!config) return;
  const queued: unknown = window.svc;
  if (queued && !Array.isArray(queued)) {
    console.warn('[svc] window.svc already exists (the SDK is on this page twice); keeping the first.');
    return;
  }
  try {
    const svc = (window.svc = new Ctor(config));
    for (const [method, ...args] of (queued ?? []) as [string, ...unknown[]][]) {
      try {
        (svc as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!(...args);
      } catch (error) {
        report(error);
      }
    }
    announce('ready', svc);
  } catch (error) {
    report(error);
  }
}

function report(error: unknown): void {
  console.error('[svc]', error instanceof Error ? error.message : error);
}
