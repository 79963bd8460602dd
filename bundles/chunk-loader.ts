// How dist/service.js brings the rest of the SDK: each element, integration and the banner's language is a chunk (an ES
// module beside service.js, in chunks/), fetched only when the page uses it, after the first contentful paint.
import type { ServicePlugin } from '../src/index.js';
import { provided } from './lazy-requests.js';

/**
 * Set by the build (esbuild.config.mjs): the folder of this build's chunks in chunks/, named after their code. A chunk
 * is `<folder>/<chunk>.js`, and imports one other file, `<folder>/common.js` (what chunks share): both are fetched at
 * once, so a chunk costs one round trip after service.js, never a waterfall through its import.
 */
declare const SVC_CHUNKS: string;

/** A plugin factory: what an element's or integration's chunk exports as its default. */
export type PluginFactory = (options?: object) => ServicePlugin;

/** Each of the page's elements and the chunk that defines it. */
export const ELEMENT_CHUNKS: Record<string, string> = {
  'svc-experience': 'experiences',
  'svc-recommendations': 'recommendations',
  'svc-consent': 'consent',
  'svc-consent-button': 'consent',
};

/**
 * A loader of chunks from `base` (the URL of the folder service.js came from: a CDN and a self-hosted copy both
 * work). Each chunk is fetched once; `load(chunk)` resolves to the chunk's default export, `load(combo, chunk)` to what
 * a combo exports of one of its element chunks, and either to `undefined` when a file of it could not be fetched or run
 * (the caller then leaves the page as it was without svc: never an error thrown).
 */
export function chunkLoader(base: string): (name: string, part?: string) => Promise<PluginFactory | undefined> {
  const loads = new Map<string, Promise<Record<string, PluginFactory> | undefined>>();
  return (name, part = 'default') => {
    let load = loads.get(name);
    if (!load) {
      load = Promise.all([name, 'common'].map((file) => import(`${base}chunks/${SVC_CHUNKS}/${file}.js`) as Promise<Record<string, PluginFactory>>))
        // What the chunk exports beside its plugin (the requests' code) is the core's from now on.
        .then(([own]) => Object.assign(provided, own) && own, () => undefined);
      loads.set(name, load);
    }
    return load.then((own) => own?.[part]);
  };
}

/**
 * Resolves once the page has had its first contentful paint: no chunk competes with the page's own first content.
 * At once when it has been (the README's snippet adds service.js only then) or the tab is hidden; 3 s after `load`
 * when the page never paints content (as the snippet does).
 */
export function afterFirstPaint(): Promise<void> {
  return new Promise((resolve) => {
    const painted = (): boolean => performance.getEntriesByName('first-contentful-paint').length > 0;
    if (document.hidden || !window.PerformanceObserver || painted()) return resolve();
    new PerformanceObserver(() => painted() && setTimeout(resolve)).observe({ type: 'paint', buffered: true });
    const late = (): unknown => setTimeout(resolve, 3000);
    if (document.readyState === 'complete') late();
    else addEventListener('load', late);
  });
}

/**
 * Calls `found(elements)` with the first element of each name not seen before, in ELEMENT_CHUNKS' order (the order
 * the build names a combo in), for the elements in the page now and after each batch of changes (a MutationObserver
 * that looks again on every batch, without filtering the added nodes first, and stops once every name was found).
 */
export function watchElements(found: (elements: Element[]) => void): void {
  const waiting = new Set(Object.keys(ELEMENT_CHUNKS));
  const look = (): void => {
    const elements = [...waiting].flatMap((tag) => document.querySelector(tag) ?? []);
    for (const element of elements) waiting.delete(element.localName);
    if (elements.length > 0) found(elements);
    if (waiting.size === 0) observer.disconnect();
  };
  const observer = new MutationObserver(look);
  observer.observe(document, { childList: true, subtree: true });
  look();
}

/**
 * Defines `tag` as what the page shows when its chunk could not be fetched: the fallback (an experience's own
 * content or the variation the snippet showed; a recommendations element's `error` slot; no banner: a slot nothing
 * fills), in state `error`, never throwing into the page. What the page showed keeps its place: each
 * `<svc-recommendations>` keeps, as its `min-height`, the height it had just before (the box of `limit` cards that the
 * snippet's loader reserves while the element is not defined; none with a `<template>` of its own or without the
 * snippet), and its `error` slot shows inside that box, so nothing below moves. The height is the one at that width:
 * it is not recomputed if the page's width changes later (the loader's formula, copied here, cost more bytes than
 * service.js has to spare). It is kept with `collapse` too.
 */
export function defineStandIn(tag: string): void {
  if (customElements.get(tag)) return;
  // Read while the elements are not defined yet, under the loader's style.
  if (tag === 'svc-recommendations') for (const e of document.querySelectorAll<HTMLElement>(tag)) e.style.minHeight = getComputedStyle(e).height;
  customElements.define(tag, class extends HTMLElement {
    connectedCallback(): void {
      try {
        this.attachShadow({ mode: 'open' }).innerHTML = tag === 'svc-recommendations' ? '<style>:host{display:flow-root}</style><slot name=error>'
          // An experience: the variation the snippet showed (its `content` slot), else what the page wrote (the slot's own
          // content: the default slot); no banner: a slot nothing fills.
          : tag === 'svc-experience' ? '<slot name=content><slot>' : '<slot name=none>';
        this.setAttribute('status', 'error');
      } catch {
        // already has a shadow root (connected again after a move, or the page's own)
      }
    }
  });
}
