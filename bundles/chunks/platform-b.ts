// Chunk of dist/service.js: the Magento integration, fetched when the config's platformB is on.
export { platformB as default } from '../../plugins/platform-b/index.js';
