// Chunk of dist/service.js: <svc-consent> and <svc-consent-button>, fetched when the page has one.
export { consentBanner as default } from '../../plugins/consent-banner/index.js';
