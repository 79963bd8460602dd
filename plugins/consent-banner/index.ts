// The `consent-banner` plugin: <svc-consent>, <svc-consent-button>, and the bridges to Google Consent
// Mode v2 (gtag) and IAB TCF v2 CMPs (__tcfapi).
import { defineElement, type ServicePlugin } from '../../src/index.js';
import { SvcConsentButton } from './consent-button-element.js';
import { setConsentControl } from './consent-control.js';
import { SvcConsent } from './consent-element.js';
import { updateGtag } from './gtag-consent.js';
import { categoriesFromTcf, listenToTcf, tcfApi } from './tcf-bridge.js';

export { SvcConsent, SvcConsentButton };
export { consentModeSignals } from './gtag-consent.js';
export { categoriesFromTcf } from './tcf-bridge.js';

export interface ConsentBannerOptions {
  /** How long a decision taken through a TCF CMP is remembered before it is read again; default 1 day. */
  tcfValidDays?: number;
}

/**
 * Defines the consent elements and connects them to this SDK instance.
 * @example svc.use(consentBanner());
 */
export function consentBanner(options: ConsentBannerOptions = {}): ServicePlugin {
  defineElement('svc-consent', SvcConsent);
  defineElement('svc-consent-button', SvcConsentButton);
  return {
    name: 'consent-banner',
    setup(ctx) {
      const control = ctx.consent;
      const unregister = setConsentControl(control);
      const onChange = (e: WindowEventMap['svc:consent-change']): void => updateGtag(e.detail.categories);
      window.addEventListener('svc:consent-change', onChange);
      const remembered = control.current();
      if (remembered) updateGtag(remembered.categories);
      const api = tcfApi();
      const stopTcf = api
        ? // The CMP re-announces its decision on every page: decide() records only a change.
          listenToTcf(api, (data) =>
            control.decide(categoriesFromTcf(data, control.categories), Date.now() + (options.tcfValidDays ?? 1) * 86_400_000, 'tcf'),
          )
        : undefined;
      return () => {
        window.removeEventListener('svc:consent-change', onChange);
        stopTcf?.();
        unregister();
      };
    },
  };
}
