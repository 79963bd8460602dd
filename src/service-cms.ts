// Entry of dist/service.js: everything a CMS page needs — the global `ServiceJs`, every plugin and custom
// element — and, when its own <script> tag carries the data-* config, `window.svc` created from it.
import { consentBanner } from '../plugins/consent-banner/index.js';
import { experiences } from '../plugins/experiences/index.js';
import { autoInit } from './auto-init.js';
import { ServiceJs } from './service-js.js';
import './service-global.js';

// Read now: `document.currentScript` names this tag only while the script is being evaluated.
const script = document.currentScript;
// Elements are defined before window.svc exists; they find it through `svc:ready`.
const plugins = [experiences(), consentBanner()];
autoInit(ServiceJs, script);
for (const plugin of plugins) window.svc?.use(plugin);
