// Entry of dist/service.js, the one URL a CMS page loads: the global `ServiceJs` (the core: identity, tracking,
// outbox, consent state, Choose) and, when its own <script> tag carries the data-* config, `window.svc` created from
// it. Elements, integrations, auto-tracking and the banner's texts come as chunks when the page uses them.
import { ServiceJs, type ServiceConfig } from '../src/index.js';
import { bannerLanguage } from '../plugins/consent-banner/banner-language.js';
import { autoInit } from './auto-init.js';
import {
  afterFirstPaint, chunkLoader, defineStandIn, ELEMENT_CHUNKS, watchElements, type PluginFactory,
} from './chunk-loader.js';

// Read now: `document.currentScript` names this tag only while the script is being evaluated.
const script = document.currentScript as HTMLScriptElement | null;
const load = chunkLoader(new URL('.', script?.src || location.href).href);
const painted = afterFirstPaint();
/** The element plugins that have arrived, for instances made later. */
const arrived: PluginFactory[] = [];
const instances = new Set<BundledServiceJs>();

/**
 * The `ServiceJs` of dist/service.js: the same class, which installs for every instance (the one made from the
 * script tag, or one a page makes with `new ServiceJs({...})`) auto-tracking unless `autoTrack: false` and a
 * platform integration when its flag is on, then the page's elements. Auto-tracking goes first so that platform
 * events, too, are preceded by their session's `Session start`; elements come after the integrations so that a
 * product page's context is set before `<svc-recommendations>` asks for its feed.
 */
class BundledServiceJs extends ServiceJs {
  /** Settles once this instance's own chunks are in (or failed): elements are installed after them. */
  readonly #own: Promise<unknown>;

  constructor(config: ServiceConfig) {
    super(config);
    const own: [string, object?][] = [];
    if (config.autoTrack !== false) own.push(['auto-track', typeof config.autoTrack === 'object' ? config.autoTrack : {}]);
    if (config.platformA) own.push(['platform-a']);
    if (config.platformB) own.push(['platform-b']);
    this.#own = painted
      .then(() => Promise.all(own.map(([name]) => load(name))))
      .then((factories) => factories.forEach((make, i) => make && this.#install(make, own[i]![1])));
    instances.add(this);
    for (const make of arrived) this.adopt(make);
  }

  /** Installs an element's plugin once this instance's own chunks are in. */
  adopt(make: PluginFactory): void {
    void this.#own.then(() => this.#install(make));
  }

  #install(make: PluginFactory, options?: object): void {
    if (instances.has(this)) this.use(make(options));
  }

  override destroy(): void {
    instances.delete(this);
    super.destroy();
  }
}

void painted.then(() => watchElements((tag, element) => {
  const name = ELEMENT_CHUNKS[tag]!;
  // The banner's texts in the one language it shows, fetched beside its code.
  if (name === 'consent') void load(`texts-${bannerLanguage(element as HTMLElement)}`);
  void load(name).then((make) => {
    if (!make) {
      for (const [other, chunk] of Object.entries(ELEMENT_CHUNKS)) if (chunk === name) defineStandIn(other);
      return;
    }
    if (arrived.includes(make)) return;
    make(); // defines the element, also on a page without an instance yet
    arrived.push(make);
    for (const svc of instances) svc.adopt(make);
  });
}));

window.ServiceJs ??= BundledServiceJs;
autoInit(window.ServiceJs, script);
