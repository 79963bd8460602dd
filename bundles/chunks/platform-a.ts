// Chunk of dist/service.js: the Shopify integration, fetched when the config's platformA is on.
export { platformA as default } from '../../plugins/platform-a/index.js';
