// The `auto-track` plugin: page views, leaves, clicks, changes, submits and session starts.
import type { AutoTrackOptions } from '../../src/plugin-api.js';
import type { ServicePlugin } from '../../src/index.js';
import { trackChanges, trackClicks, trackSubmits } from './interactions.js';
import { trackPages } from './page-views.js';
import { redactUrl } from './redact-url.js';
import { sessionAnnouncer } from './session-start.js';

export type { AutoTrackOptions };

/**
 * Automatic, privacy-safe tracking; every kind is on unless its option is `false`. Field values are sent
 * only from fields marked `data-svc-capture` (never password or hidden inputs), and nothing at all from
 * inside an element marked `data-svc-no-capture`; URLs lose the values of sensitive parameters and e-mail addresses
 * (redact-url.ts). `dist/service.js` installs it unless `data-auto-track="false"`.
 * @example svc.use(autoTrack({ change: false }));
 */
export function autoTrack(options: AutoTrackOptions = {}): ServicePlugin {
  const on = (kind: Exclude<keyof AutoTrackOptions, 'redactParams'>): boolean => options[kind] !== false;
  const extra = Array.isArray(options.redactParams) ? options.redactParams : [];
  const redact = (url: string): string => redactUrl(url, extra);
  let announce: ((sessionId: string) => void) | undefined;
  let leave: (() => void) | undefined;
  return {
    name: 'auto-track',
    setup(ctx) {
      if (on('session')) {
        announce = sessionAnnouncer(ctx, redact);
        // This plugin's enrich is not active during its own setup: the first View Page is preceded by hand.
        announce(ctx.ids().sessionId);
      }
      const removers: (() => void)[] = [];
      if (on('page') || on('leave')) {
        const pages = trackPages(ctx, on('page'), on('leave'), redact);
        leave = pages.leave;
        removers.push(pages.stop);
      }
      if (on('click')) removers.push(trackClicks(ctx, redact));
      if (on('change')) removers.push(trackChanges(ctx));
      if (on('submit')) removers.push(trackSubmits(ctx, redact));
      return () => {
        announce = undefined;
        leave = undefined;
        for (const remove of removers) remove();
      };
    },
    pageExit() {
      leave?.();
    },
    // Any event may be the first of a session (a track() after 30 idle minutes): `Session start` goes first.
    enrich(event) {
      announce?.(event.sessionId);
    },
  };
}
