// The organization's audit entries in words: whose access an admin gave, changed or took away, as the sentence a reader
// scans for ("Made ola@example.com editor (was viewer)") before opening the entry's before and after.
import type { AccessAuditEntry } from './access.js';
import type { AuditEntry } from './experience.js';

/** What an entry's `before` or `after` holds: a person's `{role, projects}`, a key's also `name` and `expiresAt`. */
interface Access {
  role?: unknown;
  projects?: unknown;
  name?: unknown;
  expiresAt?: unknown;
}

/** An entry of the organization's log rather than a project's: the kinds tell them apart. */
export const isAccessEntry = (entry: AuditEntry | AccessAuditEntry): entry is AccessAuditEntry => entry.kind === 'person' || entry.kind === 'key';

/** A key's id cut short: the row names it whole, the sentence only needs to tell it from the keys around it. */
export const shortKeyId = (id: string): string => (id.length > 8 ? `${id.slice(0, 7)}…` : id);

/** The projects access reaches: null (or absent) is every project of the organization. */
const reach = (projects: unknown): string => (Array.isArray(projects) ? projects.join(', ') : 'every project');

/** A role and, when it is narrowed to projects, which: `editor`, `editor of shop, web`. */
const roleText = (a: Access): string => `${String(a.role)}${Array.isArray(a.projects) ? ` of ${reach(a.projects)}` : ''}`;

/**
 * What `entry` did, in a sentence: "Added ola@example.com as viewer", "Made ola@example.com editor (was viewer)",
 * "Invited ola@example.com, link valid until 3 Mar 2026, 10:00", "Revoked key k1a2b3c… (kiosk)". `date` writes a time
 * of the entry (ISO 8601) in the reader's locale.
 */
export function accessChange(entry: AccessAuditEntry, date: (iso: string) => string): string {
  const before = (entry.before ?? {}) as Access;
  const after = (entry.after ?? {}) as Access;
  const until = typeof after.expiresAt === 'string' ? date(after.expiresAt) : undefined;
  if (entry.kind === 'key') {
    const key = `key ${shortKeyId(entry.name)}${typeof (after.name ?? before.name) === 'string' ? ` (${String(after.name ?? before.name)})` : ''}`;
    if (entry.action === 'create') return `Made ${key} as ${roleText(after)}${until ? `, valid until ${until}` : ''}`;
    if (entry.action === 'delete') return `Revoked ${key}`;
    return `Changed ${key}`;
  }
  const email = entry.name;
  if (entry.action === 'invite') return `Invited ${email}${until ? `, link valid until ${until}` : ''}`;
  if (entry.action === 'create') return `Added ${email} as ${roleText(after)}`;
  if (entry.action === 'delete') return `Removed ${email} (was ${roleText(before)})`;
  const role = before.role !== after.role;
  const projects = JSON.stringify(before.projects ?? null) !== JSON.stringify(after.projects ?? null);
  if (projects && !role) return `Gave ${email} access to ${reach(after.projects)} (was ${reach(before.projects)})`;
  if (role && !projects) return `Made ${email} ${String(after.role)} (was ${String(before.role)})`;
  if (role) return `Made ${email} ${String(after.role)} of ${reach(after.projects)} (was ${String(before.role)} of ${reach(before.projects)})`;
  return `Kept ${email} as ${roleText(after)}`;
}
