// What the organization's people and keys API answers (server/management/access-routes.ts), as the console reads it.

import type { AccessKey, CreatedKey, Person, Role } from '../wire/access.js';

export type { AccessKey, CreatedKey, Person, Role };

export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

/** One line on each role, as the forms show it. */
export const ROLE_HINTS: Record<Role, string> = {
  viewer: 'Reads results and lists.',
  editor: 'Changes experiences, metrics and feeds, and runs them.',
  admin: 'Also manages people, keys and privacy requests.',
};

/** A key to create. `expiresAt`: an ISO 8601 date or date-time in the future; left out, it never expires. */
export interface NewKey {
  name: string;
  role: Role;
  projects?: string[];
  expiresAt?: string;
}

/** A person's access to set. `projects` left out: every project of the organization. */
export interface PersonAccess {
  role: Role;
  projects?: string[];
}
