// What the organization's people and keys API answers (`/v1/{org}/keys`, `/v1/{org}/people`, `/v1/{org}/me`): the
// contract the service builds (server/management/) and the console reads (admin/), in one place.

/** What a key or a person may do, narrowest first: `viewer` reads, `editor` also changes items, `admin` also manages
 * who may. */
export type Role = 'viewer' | 'editor' | 'admin';

/** An admin key made through the API, as listed: never its secret.
 * `projects` null: every project of the organization. */
export interface AccessKey {
  id: string;
  name: string;
  role: Role;
  projects: string[] | null;
  createdAt: string;
  expiresAt: string | null;
}

/** A key just created: `key` is the whole secret, answered this once (the service keeps only its digest). */
export interface CreatedKey extends AccessKey {
  key: string;
}

/** A person of an organization and what they may do. */
export interface Person {
  email: string;
  role: Role;
  projects: string[] | null;
  createdAt: string;
  updatedAt: string;
  /** Whether they have set a password (else they sign in with single sign-on, or have yet to accept an invitation). */
  password: boolean;
  /** When their open invitation link expires; null: none open. */
  invitedUntil: string | null;
}
