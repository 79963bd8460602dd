// Entry of dist/service-core.js: the global `ServiceJs` only, no elements, no Lit.
import { ServiceJs } from '../src/index.js';

declare global {
  interface Window {
    ServiceJs: typeof ServiceJs;
    svc?: ServiceJs;
  }
}

window.ServiceJs ??= ServiceJs;
