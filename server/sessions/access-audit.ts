import type { Actor } from '../auth/management-caller.js';
import { op, type SqlProgram } from '../storage/sql-program.js';

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
  yield op(
    'INSERT INTO audit_log (project, at, key_id, action, kind, name, before_item, after_item, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    entry.org, entry.at, entry.actor.id, entry.action, entry.kind, entry.name,
    entry.before === null ? null : JSON.stringify(entry.before), entry.after === null ? null : JSON.stringify(entry.after), JSON.stringify(entry.actor),
  );
}
