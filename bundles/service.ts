// Entry of dist/service.js: everything a CMS page needs — the global `ServiceJs`, every plugin and custom
// element — and, when its own <script> tag carries the data-* config, `window.svc` created from it.
import { autoTrack } from '../plugins/auto-track/index.js';
import { consentBanner } from '../plugins/consent-banner/index.js';
import { experiences } from '../plugins/experiences/index.js';
import { platformA } from '../plugins/platform-a/index.js';
import { platformB } from '../plugins/platform-b/index.js';
import { recommendations } from '../plugins/recommendations/index.js';
import { autoInit } from './auto-init.js';
import { ServiceJs, type ServiceConfig, type ServicePlugin } from '../src/index.js';

// Read now: `document.currentScript` names this tag only while the script is being evaluated.
const script = document.currentScript;

/**
 * The plugins a CMS page gets with its instance: the elements' plugins, auto-tracking unless
 * `autoTrack: false`, and a platform integration when its flag is on. Auto-tracking goes first
 * so that platform events, too, are preceded by their session's `Session start`.
 */
function bundledPlugins(config: ServiceConfig): ServicePlugin[] {
  const plugins = [experiences(), recommendations(), consentBanner()];
  if (config.autoTrack !== false) plugins.push(autoTrack(typeof config.autoTrack === 'object' ? config.autoTrack : {}));
  if (config.platformA) plugins.push(platformA());
  if (config.platformB) plugins.push(platformB());
  return plugins;
}

/**
 * The `ServiceJs` of dist/service.js: the same class, with the bundled plugins installed for every
 * instance — the one made from the script tag and one a page makes itself with `new ServiceJs({...})`.
 */
class BundledServiceJs extends ServiceJs {
  constructor(config: ServiceConfig) {
    super(config);
    for (const plugin of bundledPlugins(config)) this.use(plugin);
  }
}

// The elements are defined now, before any instance exists; they wait for one (`svc:ready`, or the
// plugin registering it) and render their fallback meanwhile.
experiences();
recommendations();
consentBanner();
window.ServiceJs ??= BundledServiceJs;
autoInit(window.ServiceJs, script);
