// What the organization's people, keys and sign-in API answers (server/management/), as the console reads it.

import type {
  AccessKey, CreatedKey, Invitation, InvitationFor, Me, NewKey, Person, PersonAccess, Role, SignInOptions,
} from '../wire/api/access-schema.js';
import type { AuditEntry } from './experience.js';

export type { AccessKey, CreatedKey, Invitation, InvitationFor, Me, NewKey, Person, PersonAccess, Role, SignInOptions };

export const ROLES: readonly Role[] = ['viewer', 'editor', 'admin'];

/** One line on each role, as the forms show it. */
export const ROLE_HINTS: Record<Role, string> = {
  viewer: 'Reads results and lists.',
  editor: 'Changes experiences, metrics and feeds, and runs them.',
  admin: 'Also manages people, keys and privacy requests.',
};

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
