// Chunk of dist/service.js: the Choose and feed requests, fetched when the page calls svc.choose() or
// svc.recommendation() without an element whose chunk brought them.
export { requestChoices, requestFeed, requestFeeds } from '../../src/requests.js';
