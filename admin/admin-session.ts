// Where the console remembers which organization and project this tab works on: sessionStorage, and nothing secret.
// Who is signed in is the service's HttpOnly session cookie, which no script reads; a key, a password or a token in
// web storage would be readable by any script on the origin, so none is ever written here.
import type { Session } from './admin-api.js';

export const SESSION_KEY = 'svc-admin:session';

/** The stored organization and project, or null when there is none or it is not one (a hand-edited value). */
export function readSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Record<string, unknown> | null;
    if (!s || typeof s.organization !== 'string' || typeof s.project !== 'string' || !s.organization || !s.project) return null;
    const session = { organization: s.organization, project: s.project };
    // A value an older console wrote held the admin key: it is rewritten without it.
    if (Object.keys(s).length > 2) saveSession(session);
    return session;
  } catch {
    return null; // storage disabled, or not JSON
  }
}

/** Keeps the organization and project, and only them, whatever else `session` carries. */
export function saveSession(session: Session): void {
  try {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify({ organization: session.organization, project: session.project }));
  } catch {
    // Storage disabled: the console still works until the tab is reloaded.
  }
}

export function clearSession(): void {
  try {
    sessionStorage.removeItem(SESSION_KEY);
  } catch {
    // Nothing was stored.
  }
}
