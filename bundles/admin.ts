// Entry of dist/svc-admin.js: the admin console's elements (served at /admin/) and <svc-results>; never part of
// dist/service.js.
import { defineResults } from '../plugins/results/index.js';
import { defineAdmin } from '../admin/define-admin.js';

defineResults();
defineAdmin();
