import type { Actor } from '../auth/management-caller.js';
import type { SqlProgram } from '../storage/sql-program.js';
import { appendAudit } from './audit-log.js';

// Who may do what in an organization is audited apart from its projects' items: people added, given another role,
// invited, removed; keys made and revoked. Written by the people and keys API and by single sign-on (a role the
// identity provider gives), read at `GET /v1/{org}/audit`.

/**
 * An organization's own audit entry (its people and keys): kept under the organization's name, where a project's are
 * under `org/project`. `before` and `after` hold roles and projects, never a secret.
 */
export interface AccessAudit {
  org: string;
  at: number;
  actor: Actor;
  action: 'create' | 'update' | 'delete' | 'invite';
  kind: 'person' | 'key';
  name: string;
  before: object | null;
  after: object | null;
}

export function* recordAccessAudit(entry: AccessAudit): SqlProgram<void> {
  const { org, at, actor, action, kind, name, before, after } = entry;
  yield* appendAudit({ project: org, at, keyId: actor.id, action, kind, name, before, after, actor });
}
