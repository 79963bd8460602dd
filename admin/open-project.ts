import type { Me } from './access.js';
import { ApiError, type AdminApi } from './admin-api.js';

/**
 * Checks, right after a sign-in, that the session opens the project the person named: a person or key narrowed to other
 * projects is refused here, and listing the experiences (which every role may) proves the project exists. Signing in
 * names the organization only, so without this a typo in the project would show up later as an error on every screen.
 * @throws ApiError `key_not_for_project`, `project_not_found`, or whatever the listing answered.
 */
export async function openProject(api: AdminApi, me: Me): Promise<void> {
  if (me.projects && !me.projects.includes(api.project)) {
    throw new ApiError(403, 'key_not_for_project', `You may work on ${me.projects.join(', ')} only, not on ${api.project}.`);
  }
  await api.experiences();
}
