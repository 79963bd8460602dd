import { guard, listen } from '../../src/plugin-api.js';
import type { PluginContext } from '../../src/index.js';

// The fragment is not part of a page's identity: jumping to an anchor is not a navigation.
const pageKey = (url: string): string => url.split('#')[0]!;

type HistoryMethod = History['pushState'];

/**
 * `View Page` on load and after each History API or `popstate` navigation, `Leave Page` before each
 * navigation and on pagehide, and a new pageId per navigation. A navigation is a change of URL (without
 * fragment): `replaceState` to the same URL, or `pushState` of new state only, is not one.
 */
export function trackPages(
  ctx: PluginContext, page: boolean, leave: boolean, redact: (url: string) => string,
): { stop: () => void; leave: () => void } {
  let url = location.href;
  let start = Date.now();
  let left = false;

  const view = (referrer: string): void => {
    url = location.href;
    start = Date.now();
    left = false;
    if (!page) return;
    const data: Record<string, unknown> = { url: redact(url), path: redact(location.pathname), title: document.title };
    if (referrer) data.referrer = redact(referrer);
    ctx.emit({ type: 'page', name: 'View Page', data });
  };
  // Emitted before the page id changes, so the event itself carries the page it belongs to as well.
  const leavePage = (): void => {
    if (left) return;
    left = true;
    if (leave) ctx.emit({ type: 'page', name: 'Leave Page', data: { url: redact(url), pageId: ctx.ids().pageId, timeOnPageMs: Date.now() - start } });
  };
  const navigated = guard('auto-track', () => {
    if (pageKey(location.href) === pageKey(url)) return;
    const from = url;
    leavePage();
    ctx.newPage();
    view(from);
  });

  let active = true;
  const wrap = (original: HistoryMethod): HistoryMethod =>
    function (this: History, ...args: Parameters<HistoryMethod>): void {
      original.apply(this, args); // the page's own call: its errors are the page's
      if (active) navigated();
    };
  const { pushState, replaceState } = history;
  const push = (history.pushState = wrap(pushState));
  const replace = (history.replaceState = wrap(replaceState));

  const removers = [
    listen(window, 'popstate', 'auto-track', navigated),
    // Back from the back/forward cache: the same document, shown again, is a new page view.
    listen<PageTransitionEvent>(window, 'pageshow', 'auto-track', (e) => {
      if (!e.persisted) return;
      ctx.newPage();
      view(document.referrer);
    }),
  ];
  view(document.referrer);

  // Leave Page on pagehide comes through the plugin's `pageExit` hook, which the SDK calls before its
  // last send; a listener of our own would run after that send.
  const stop = (): void => {
    active = false;
    // Restore only what is still ours: a later wrapper (a router, another tool) must keep working.
    if (history.pushState === push) history.pushState = pushState;
    if (history.replaceState === replace) history.replaceState = replaceState;
    for (const remove of removers) remove();
  };
  return { stop, leave: leavePage };
}
