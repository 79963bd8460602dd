// What the organization's people, keys and sign-in API answers (server/management/), as the console reads it.

import type { AccessKey, CreatedKey, Person, Role } from '../wire/access.js';
import type { AuditEntry } from './experience.js';

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

/** Who is signed in (`GET /v1/{org}/me`, and the answer to every sign-in). */
export interface Me {
  actor: { type: 'person' | 'key'; id: string; name: string };
  role: Role;
  /** null: every project of the organization. */
  projects: string[] | null;
  /** Sent back in `X-CSRF-Token` on every write the cookie authenticates. */
  csrfToken?: string;
  /** ISO: when the session ends whatever happens (its absolute end). */
  expiresAt?: string;
  /** A person who has a password, so can change it. */
  password?: boolean;
}

/** How an organization's people sign in (`GET /v1/{org}/sign-in`). */
export interface SignInOptions {
  organization: string;
  password: boolean;
  sso: boolean;
}

/** An invitation just made: `url` is relative to the service and shown this once. */
export interface Invitation {
  email: string;
  url: string;
  expiresAt: string;
}

/** Who an invitation link is for (`POST /v1/{org}/invitations/lookup`). */
export interface InvitationFor {
  email: string;
  expiresAt: string;
}

/** An admin over the whole organization, who manages its people and keys (one narrowed to projects does not). */
export const managesOrganization = (me: Me): boolean => me.role === 'admin' && me.projects === null;

/**
 * An entry of the organization's own audit log (`GET /v1/{org}/audit`): a person added, changed, removed or invited,
 * a key made or revoked. `name` is the person's email or the key's id; `before` and `after` are `{role, projects}`
 * for a person, `{name, role, projects, expiresAt}` for a key, and `{expiresAt}` after an invitation.
 */
export interface AccessAuditEntry extends Omit<AuditEntry, 'action' | 'kind'> {
  action: 'create' | 'update' | 'delete' | 'invite';
  kind: 'person' | 'key';
}
