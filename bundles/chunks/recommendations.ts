// Chunk of dist/service.js: <svc-recommendations>, fetched when the page has one.
export { recommendations as default } from '../../plugins/recommendations/index.js';
// What <svc-recommendations> asks the service with: handed to the core when this chunk arrives (bundles/lazy-requests.ts).
export { requestFeed, requestFeeds } from '../../src/requests.js';
