// Entry of dist/service.js: everything a CMS page needs — the global `ServiceJs`, every plugin and custom
// element — and, when its own <script> tag carries the data-* config, `window.svc` created from it.
import { autoTrack } from '../plugins/auto-track/index.js';
import { consentBanner } from '../plugins/consent-banner/index.js';
import { experiences } from '../plugins/experiences/index.js';
import { platformA } from '../plugins/platform-a/index.js';
import { platformB } from '../plugins/platform-b/index.js';
import { recommendations } from '../plugins/recommendations/index.js';
import { autoInit, configFromScript } from './auto-init.js';
import { ServiceJs } from './service-js.js';
import './service-global.js';

// Read now: `document.currentScript` names this tag only while the script is being evaluated.
const script = document.currentScript;
// Elements are defined before window.svc exists; they find it through `svc:ready`.
const plugins = [experiences(), recommendations(), consentBanner()];
// Auto-tracking unless data-auto-track="false"; a platform plugin only when its flag is on. Auto-tracking
// goes first so that platform events, too, are preceded by their session's `Session start`.
const config = configFromScript(script);
if (config?.autoTrack !== false) plugins.push(autoTrack());
if (config?.platformA) plugins.push(platformA());
if (config?.platformB) plugins.push(platformB());
autoInit(ServiceJs, script);
for (const plugin of plugins) window.svc?.use(plugin);
