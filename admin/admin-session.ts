// Where the signed-in session lives: sessionStorage only. The admin key can change every experiment, so it must not
// outlive the tab (localStorage would keep it on disk for anyone using the browser later) and is never put in a URL or
// an attribute.
import type { Session } from './admin-api.js';

export const SESSION_KEY = 'svc-admin:session';

/** The stored session, or null when there is none or it is not one (a hand-edited value). */
export function readSession(): Session | null {
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? 'null') as Partial<Session> | null;
    return s && typeof s.organization === 'string' && typeof s.project === 'string' && typeof s.key === 'string' && s.key
      ? { organization: s.organization, project: s.project, key: s.key }
      : null;
  } catch {
    return null; // storage disabled, or not JSON
  }
}

export function saveSession(session: Session): void {
  try {
    sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
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
