import { LocalStore } from '../../src/plugin-api.js';
import type { PluginContext } from '../../src/index.js';

// The session announced last, shared by tabs (as the session itself is): a reload or a second tab in the
// same session announces nothing.
const KEY = 'svc.sessionAnnounced';
const UTM = ['source', 'medium', 'campaign', 'term', 'content'] as const;

/** Emits `Session start` once per session id, with referrer, landing page and UTM parameters. */
export function sessionAnnouncer(ctx: PluginContext, redact: (url: string) => string): (sessionId: string) => void {
  const store = new LocalStore();
  let announced: string | null = null;
  return (sessionId) => {
    // Storage is read only when the id changes, not on every event; nothing is written while opted out.
    if (sessionId === announced || !ctx.optedIn()) return;
    announced = sessionId;
    if (store.get(KEY) === sessionId) return;
    store.set(KEY, sessionId);
    const params = new URLSearchParams(location.search);
    const data: Record<string, unknown> = { landingPage: redact(location.href) };
    if (document.referrer) data.referrer = redact(document.referrer);
    const utm: Record<string, string> = {};
    for (const k of UTM) {
      const v = params.get(`utm_${k}`);
      if (v) utm[k] = redact(v);
    }
    if (Object.keys(utm).length) data.utm = utm;
    ctx.emit({ type: 'session', name: 'Session start', data });
  };
}
