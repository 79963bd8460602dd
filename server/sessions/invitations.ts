import crypto from 'node:crypto';
import { keyDigest } from '../auth/verified-keys.js';
import { op, type SqlProgram } from '../storage/sql-program.js';

// Invitation links: a random token in the link's fragment (never sent in a request line, so no access log keeps it),
// known to the database by its SHA-256. A new invitation replaces the person's earlier ones; accepting one uses it up.

export const DEFAULT_INVITATION_HOURS = 168;

/** A token's shape (32 random bytes, base64url): anything else is refused before the database is asked. */
export const INVITATION_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/**
 * The console's address of an invitation (relative to the service): the organization and the project to open in the
 * query, the token in the fragment.
 */
export function invitationPath(org: string, token: string, project: string | null = null): string {
  const projectQuery = project === null ? '' : `&project=${encodeURIComponent(project)}`;
  return `/admin/?organization=${encodeURIComponent(org)}${projectQuery}#/invitation/${token}`;
}

export interface NewInvitation {
  /** Shown once: the database keeps its digest only. */
  token: string;
  /** The first project of a person narrowed to some; null for one of the whole organization. */
  firstProject: string | null;
}

/** Makes an invitation for a person of the organization; null: no such person. */
export function* createInvitation(org: string, email: string, at: number, expiresAt: number): SqlProgram<NewInvitation | null> {
  const { rows } = yield op('SELECT projects FROM people WHERE org = ? AND email = ?', org, email);
  const person = rows[0];
  if (person === undefined) return null;
  const projects = person.projects == null ? [] : JSON.parse(String(person.projects)) as string[];
  const token = crypto.randomBytes(32).toString('base64url');
  yield* deleteInvitationsOf(org, email);
  yield op('INSERT INTO invitations (token_hash, org, email, created_at, expires_at) VALUES (?, ?, ?, ?, ?)', keyDigest(token), org, email, at, expiresAt);
  return { token, firstProject: projects[0] ?? null };
}

/** Withdraws every invitation of a person (a newer one replaces them; a removed person's go with them). */
export function* deleteInvitationsOf(org: string, email: string): SqlProgram<void> {
  yield op('DELETE FROM invitations WHERE org = ? AND email = ?', org, email);
}

/** Who an invitation is for and until when, leaving it unused; null when it is unknown, expired or of a removed person. */
export function* findInvitation(org: string, token: string, now: number): SqlProgram<{ email: string; expiresAt: number } | null> {
  const { rows } = yield op(
    `SELECT i.email, i.expires_at FROM invitations i JOIN people p ON p.org = i.org AND p.email = i.email
      WHERE i.token_hash = ? AND i.org = ?`,
    keyDigest(token), org,
  );
  const r = rows[0];
  return r && Number(r.expires_at) > now ? { email: String(r.email), expiresAt: Number(r.expires_at) } : null;
}

/** Uses an invitation up: answers the email it was for, or null when it is unknown, used, expired or of a removed person. */
export function* takeInvitation(org: string, token: string, now: number): SqlProgram<string | null> {
  const found = yield* findInvitation(org, token, now);
  yield op('DELETE FROM invitations WHERE token_hash = ?', keyDigest(token));
  return found?.email ?? null;
}

/** Each person's open invitation's expiry, by email. */
export function* openInvitations(org: string, now: number): SqlProgram<Map<string, number>> {
  const { rows } = yield op('SELECT email, expires_at FROM invitations WHERE org = ? AND expires_at > ?', org, now);
  return new Map(rows.map((r) => [String(r.email), Number(r.expires_at)]));
}
