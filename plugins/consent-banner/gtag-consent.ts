type Gtag = (command: 'consent', action: 'update', params: Record<string, 'granted' | 'denied'>) => void;

const state = (allowed: boolean | undefined): 'granted' | 'denied' => (allowed ? 'granted' : 'denied');

/** Google Consent Mode v2 signals for our categories (necessary covers functionality and security). */
export function consentModeSignals(categories: Record<string, boolean>): Record<string, 'granted' | 'denied'> {
  return {
    analytics_storage: state(categories.analytics),
    ad_storage: state(categories.marketing),
    ad_user_data: state(categories.marketing),
    ad_personalization: state(categories.marketing),
    personalization_storage: state(categories.personalization),
    functionality_storage: 'granted',
    security_storage: 'granted',
  };
}

/** Tells the page's gtag, if it has one; Consent Mode forgets between page loads, so this runs on each. */
export function updateGtag(categories: Record<string, boolean>): void {
  const gtag = (window as { gtag?: Gtag }).gtag;
  if (typeof gtag === 'function') gtag('consent', 'update', consentModeSignals(categories));
}
