// Chunk of dist/service.js: automatic tracking, fetched unless the config turns it off.
export { autoTrack as default } from '../../plugins/auto-track/index.js';
