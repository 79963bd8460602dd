// Chunk of dist/service.js: <svc-experience>, fetched when the page has one.
export { experiences as default } from '../../plugins/experiences/index.js';
// What <svc-experience> asks the service with: handed to the core when this chunk arrives (bundles/lazy-requests.ts).
export { requestChoices } from '../../src/requests.js';
