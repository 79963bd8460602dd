// Entry of dist/service.js, the one URL a CMS page loads: the global `ServiceJs` (the core: identity, tracking,
// outbox, consent state, Choose) and, when its own <script> tag carries the data-* config, `window.svc` created from
// it. Elements, integrations, auto-tracking and the banner's texts come as chunks when the page uses them.
import { ServiceJs, type ServiceConfig } from '../src/index.js';
import { bannerLanguage } from '../plugins/consent-banner/banner-language.js';
import { autoInit } from './auto-init.js';
import { lazy } from './lazy-requests.js';
import { PLATFORMS } from './platforms.js';
import {
  afterFirstPaint, chunkLoader, defineStandIn, ELEMENT_CHUNKS, watchElements, type PluginFactory,
} from './chunk-loader.js';

// Read now: `document.currentScript` names this tag only while the script is being evaluated.
const script = document.currentScript as HTMLScriptElement | null;
const load = chunkLoader(new URL('.', script?.src || location.href).href);
const painted = afterFirstPaint();
lazy.load = (chunk, part) => painted.then(() => load(chunk, part));
/** The element plugins that have arrived, for instances made later. */
const arrived: PluginFactory[] = [];
/** Each live instance, with what settles once its own chunks are in (or failed): elements are installed after them. */
const instances = new Map<BundledServiceJs, Promise<unknown>>();

/**
 * The `ServiceJs` of dist/service.js: the same class, which installs for every instance (the one made from the
 * script tag, or one a page makes with `new ServiceJs({...})`) auto-tracking unless `autoTrack: false` and each
 * registered platform integration whose flag is on (bundles/platforms.ts), then the page's elements. Auto-tracking goes first so that platform
 * events, too, are preceded by their session's `Session start`; elements come after the integrations so that a
 * product page's context is set before `<svc-recommendations>` asks for its feed.
 */
class BundledServiceJs extends ServiceJs {
  constructor(config: ServiceConfig) {
    super(config);
    // Each chunk with the name its factory is exported under, and the factory's options.
    const own: [string, string, object?][] = [];
    if (config.autoTrack !== false) own.push(['auto-track', 'default', typeof config.autoTrack === 'object' ? config.autoTrack : {}]);
    for (const [flag, chunk] of Object.entries(PLATFORMS)) if (config[flag as `platform${string}`] === true) own.push([chunk, flag]);
    instances.set(this, painted.then(() => Promise.all(own.map(([chunk, part]) => load(chunk, part)))).then((factories) => {
      if (!instances.has(this)) return; // destroyed meanwhile
      factories.forEach((make, i) => make && this.use(make(own[i]![2])));
      for (const make of arrived) this.use(make());
    }));
  }

  override destroy(): void {
    instances.delete(this);
    super.destroy();
  }
}

/** The element chunks fetched so far, each from its own file or in a combo (never both: its plugin is installed once). */
const fetched = new Set<string>();

void painted.then(() => watchElements((elements) => {
  const names = [...new Set(elements.map((element) => ELEMENT_CHUNKS[element.localName]!))].filter((name) => !fetched.has(name));
  // Several kinds of element at one look come in one file, the combo of their chunks (one file gzips smaller).
  const combo = names[1] ? names.join('_') : '';
  for (const name of names) {
    fetched.add(name);
    // The banner's texts in the one language it shows, fetched beside its code.
    const first = elements.find((element) => ELEMENT_CHUNKS[element.localName] === name) as HTMLElement;
    if (name === 'consent') void load(`texts-${bannerLanguage(first)}`);
    // An element is defined once the instances' own chunks are in too: what it sends (an exposure) then comes after
    // its session's `Session start`, as when everything was one file.
    void Promise.all([combo ? load(combo, name) : load(name), ...instances.values()]).then(([make]) => {
      if (!make) {
        for (const [other, chunk] of Object.entries(ELEMENT_CHUNKS)) if (chunk === name) defineStandIn(other);
        return;
      }
      make(); // defines the element, also on a page without an instance yet
      arrived.push(make);
      for (const svc of instances.keys()) svc.use(make());
    });
  }
}));

window.ServiceJs ??= BundledServiceJs;
autoInit(window.ServiceJs, script);
