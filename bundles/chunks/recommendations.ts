// Chunk of dist/service.js: <svc-recommendations>, fetched when the page has one.
export { recommendations as default } from '../../plugins/recommendations/index.js';
