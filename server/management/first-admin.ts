import { op } from '../storage/sql-program.js';
import type { Storage } from '../storage/storage.js';
import { createInvitation, DEFAULT_INVITATION_HOURS, invitationPath } from '../sessions/invitations.js';
import { checkNewPassword, hashPassword } from '../sessions/passwords.js';

// The first admin of an organization, made from the command line (`npm run create-admin`) or from the environment
// on start (SVC_FIRST_ADMIN): before anyone can sign in to the console, someone must be there to invite the others.

export interface FirstAdmin {
  org: string;
  email: string;
  /** Set as their password when given; else they get an invitation link to set one. */
  password: string | null;
  /** The project an invitation link opens (`--project`); none: the person names one. */
  project?: string;
}

export interface FirstAdminOutcome {
  /** False when the person was already an admin with a password (nothing changed). */
  changed: boolean;
  /** The link to set a password (relative to the service's address), when no password was given. */
  invitation: string | null;
}

/** Whether the organization has an admin already (anyone with the admin role over all of it). */
export function hasAdmin(storage: Storage, org: string): Promise<boolean> {
  return storage.run(function* () {
    const { rows } = yield op("SELECT email FROM people WHERE org = ? AND role = 'admin' AND projects IS NULL LIMIT 1", org);
    return rows.length > 0;
  });
}

/**
 * Adds the person as an admin of the whole organization (or makes them one), with the password given or an invitation.
 * @throws ServiceError `invalid_request` for a password that is too short or too long.
 */
export async function makeAdmin(storage: Storage, admin: FirstAdmin, now: number): Promise<FirstAdminOutcome> {
  const hash = admin.password === null ? null : await hashPassword(checkNewPassword(admin.password, admin.email));
  return storage.transaction(function* () {
    const { rows } = yield op('SELECT role, projects, password_hash FROM people WHERE org = ? AND email = ?', admin.org, admin.email);
    const before = rows[0];
    if (before === undefined) {
      yield op(
        "INSERT INTO people (org, email, role, projects, created_at, updated_at, password_hash) VALUES (?, ?, 'admin', NULL, ?, ?, ?)",
        admin.org, admin.email, now, now, hash,
      );
    } else {
      yield op(
        "UPDATE people SET role = 'admin', projects = NULL, password_hash = COALESCE(?, password_hash), updated_at = ? WHERE org = ? AND email = ?",
        hash, now, admin.org, admin.email,
      );
    }
    const changed = before === undefined || before.role !== 'admin' || before.projects !== null || hash !== null || before.password_hash == null;
    if (hash !== null || before?.password_hash != null) return { changed, invitation: null };
    const made = yield* createInvitation(admin.org, admin.email, now, now + DEFAULT_INVITATION_HOURS * 3600_000);
    return { changed, invitation: made === null ? null : invitationPath(admin.org, made.token, admin.project ?? null) };
  });
}
