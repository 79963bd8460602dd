// What the sign-in screens say when signing in did not work: a sentence a person can act on, and the fields it is
// about (marked invalid). The service's own message is kept where it is already the most precise one (a key's refusal).
import { ApiError } from './api-error.js';

/** A refused sign-in: the fields to mark invalid, and the sentence to show. */
export interface SignInProblem {
  fields: string[];
  message: string;
}

/** How the person tried: the form's email and password, an admin key, or an invitation's new password. */
export type SignInMethod = 'password' | 'key' | 'invitation';

/** What `?signInError=<code>` means, after single sign-on sent the browser back (team-access contract, item 10). */
const SSO_ERRORS: Record<string, string> = {
  sso_no_access: 'Single sign-on worked, but you have no role in this organization yet. Ask one of its admins to add you.',
  sso_failed: 'Single sign-on did not complete. Try again, or sign in with your email and password.',
  sso_expired: 'Single sign-on took too long and expired. Try again.',
};

export function signInErrorText(code: string): string {
  return SSO_ERRORS[code] ?? 'Signing in did not complete. Try again.';
}

/** `Retry-After` as a person reads it: seconds under a minute, else whole minutes (rounded up). */
export function waitText(seconds: number | undefined): string {
  if (seconds === undefined) return 'Too many failed sign-ins. Wait a few minutes, then try again.';
  if (seconds < 60) return `Too many failed sign-ins. Wait ${seconds} ${seconds === 1 ? 'second' : 'seconds'}, then try again.`;
  const minutes = Math.ceil(seconds / 60);
  return `Too many failed sign-ins. Wait ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}, then try again.`;
}

/** The field a code of the service is about, whichever way the person signed in. */
const FIELD_OF_CODE: Record<string, string> = {
  organization_not_found: 'organization',
  project_not_found: 'project',
  key_not_for_project: 'project',
  missing_credentials: 'key',
  admin_key_required: 'key',
  invalid_invitation: 'password',
};

export function signInProblem(error: unknown, method: SignInMethod): SignInProblem {
  const e = error instanceof ApiError ? error : new ApiError(0, 'unexpected', String(error));
  if (e.code === 'rate_limited') return { fields: [], message: waitText(e.retryAfter) };
  if (e.code === 'invalid_credentials') {
    // One sentence for a wrong email and a wrong password: the service does not say which, and neither do we.
    return method === 'password'
      ? { fields: ['email', 'password'], message: 'The email or the password is not right. Check both and try again.' }
      : { fields: ['key'], message: e.message };
  }
  if (e.code === 'invalid_invitation') {
    return { fields: [], message: 'This invitation link is no longer valid: it was used already, replaced by a newer one, or it expired. Ask an admin for a new link.' };
  }
  if (e.code === 'invalid_request' && method === 'invitation') return { fields: ['password'], message: e.message };
  const field = FIELD_OF_CODE[e.code];
  return { fields: field && (field !== 'key' || method === 'key') ? [field] : [], message: e.message };
}
