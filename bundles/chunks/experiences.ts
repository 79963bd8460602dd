// Chunk of dist/service.js: <svc-experience>, fetched when the page has one.
export { experiences as default } from '../../plugins/experiences/index.js';
