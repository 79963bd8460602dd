// What the organization's people and keys API answers (server/management/access-routes.ts), as the console reads it.

/** What a key or a person may do: `viewer` reads, `editor` also changes items, `admin` also manages who may. */
export type Role = 'viewer' | 'editor' | 'admin';

export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

/** One line on each role, as the forms show it. */
export const ROLE_HINTS: Record<Role, string> = {
  viewer: 'Reads results and lists.',
  editor: 'Changes experiences, metrics and feeds, and runs them.',
  admin: 'Also manages people, keys and privacy requests.',
};

/** An admin key made through the API, as listed: never its secret. `projects` null: every project of the organization. */
export interface AccessKey {
  id: string;
  name: string;
  role: Role;
  projects: string[] | null;
  createdAt: string;
  expiresAt: string | null;
}

/** A key to create. `expiresAt`: an ISO 8601 date or date-time in the future; left out, it never expires. */
export interface NewKey {
  name: string;
  role: Role;
  projects?: string[];
  expiresAt?: string;
}

/** A key just created: `key` is the whole secret, answered this once (the service keeps only its digest). */
export interface CreatedKey extends AccessKey {
  key: string;
}

/** A person of the organization and what they may do. */
export interface Person {
  email: string;
  role: Role;
  projects: string[] | null;
  createdAt: string;
  updatedAt: string;
}

/** A person's access to set. `projects` left out: every project of the organization. */
export interface PersonAccess {
  role: Role;
  projects?: string[];
}
