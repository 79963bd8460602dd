// The events the console's views send up to <svc-admin>: where to go next, and what just happened (announced in the
// console's status region, which outlives the view that sent it). They bubble out of shadow roots (composed).
import type { Me } from './access.js';
import type { AdminApi } from './admin-api.js';

/** A screen of the console. */
export type AdminView =
  | { name: 'experiences' }
  | { name: 'editor'; experience: string | null }
  /**
   * An experiment's results: a phase (default the current one; `all`: every phase, stratified), one metric (default
   * its own), a breakdown.
   */
  | { name: 'results'; experience: string; phase?: number | 'all'; metric?: string; dimension?: string }
  /**
   * What an experiment needs: the people and days for 80 % power on a relative change `mde` of `metric` (default its
   * primary goal), and with `days`, what that run can detect.
   */
  | { name: 'plan'; experience: string; metric?: string; mde?: number; days?: number }
  /** The project's recommendation feeds, each with a link to its report. */
  | { name: 'feeds' }
  /** A feed's form with its live preview: a new feed (`feed: null`) or the feed with that id. */
  | { name: 'feed-editor'; feed: number | null }
  /** A feed's report over UTC days `from`…`to` (`YYYY-MM-DD`, both included; default the last 30 days). */
  | { name: 'feed-report'; feed: number; from?: string; to?: string }
  /** The project's metrics, or (`new`) the form of a new one. */
  | { name: 'metrics'; new?: true }
  /** The organization's people and keys (admins). */
  | { name: 'access' }
  /** The audit log: the project's changes, or (`organization`, for its admins) the organization's people and keys'. */
  | { name: 'audit'; scope?: 'organization' }
  | { name: 'privacy' }
  /** The project's webhook endpoints and their delivery logs (admins). */
  | { name: 'webhooks' }
  /** Who is signed in, their password and their sessions. */
  | { name: 'account' }
  /** Setting a password from an invitation link (before signing in). */
  | { name: 'invitation'; token: string };

/** A sign-in that worked: the client of the project, holding the session's CSRF token, and who signed in. */
export interface SignedIn {
  api: AdminApi;
  me: Me;
}

declare global {
  interface GlobalEventHandlersEventMap {
    /** The sign-in form (or the invitation's) opened a session. */
    'svc-admin:sign-in': CustomEvent<SignedIn>;
    'svc-admin:navigate': CustomEvent<AdminView>;
    /** A change was saved: the sentence to announce. */
    'svc-admin:notice': CustomEvent<string>;
  }
}

export function navigate(from: Element, view: AdminView): void {
  from.dispatchEvent(new CustomEvent('svc-admin:navigate', { detail: view, bubbles: true, composed: true }));
}

/** Announces a change. A new screen clears the last notice, so a view that saves and leaves navigates first. */
export function notify(from: Element, message: string): void {
  from.dispatchEvent(new CustomEvent('svc-admin:notice', { detail: message, bubbles: true, composed: true }));
}

/** Sent on the form itself only (no bubbling): the client in its detail can write, so it goes to <svc-admin> alone. */
export function signedIn(from: Element, detail: SignedIn): void {
  from.dispatchEvent(new CustomEvent('svc-admin:sign-in', { detail }));
}
