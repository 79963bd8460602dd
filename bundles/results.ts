// Entry of dist/svc-results.js: `<svc-results>` alone, for admin pages. It is kept out of dist/service.js, which
// every visitor of a CMS page downloads.
import { defineResults } from '../plugins/results/index.js';

defineResults();
