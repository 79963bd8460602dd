import type { Actor } from '../auth/management-caller.js';
import { op, type SqlProgram } from '../storage/sql-program.js';

// The audit log: who changed what and when, with both sides. The database keeps it append-only; this is the one
// statement that writes it, for every domain that audits a change (management's items, keys and people; single
// sign-on's roles; privacy requests).

export interface AuditEntry {
  /** `org/project` for a project's changes; the organization's name for its people and keys. */
  project: string;
  at: number;
  keyId: string;
  action: string;
  kind: string;
  name: string;
  /** Each side as it was, stored as JSON; null for none (a creation's before, a deletion's after). */
  before: object | null;
  after: object | null;
  /** Who made it; null where nobody was recorded. */
  actor: Actor | null;
}

export function* appendAudit(entry: AuditEntry): SqlProgram<void> {
  yield op(
    'INSERT INTO audit_log (project, at, key_id, action, kind, name, before_item, after_item, actor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
    entry.project, entry.at, entry.keyId, entry.action, entry.kind, entry.name,
    entry.before === null ? null : JSON.stringify(entry.before), entry.after === null ? null : JSON.stringify(entry.after),
    entry.actor === null ? null : JSON.stringify(entry.actor),
  );
}
