// The events the console's views send up to <svc-admin>: where to go next, and what just happened (announced in the
// console's status region, which outlives the view that sent it). They bubble out of shadow roots (composed).
import type { Session } from './admin-api.js';

/** A screen of the console. */
export type AdminView =
  | { name: 'experiences' }
  | { name: 'editor'; experience: string | null }
  /** An experiment's results: a phase (default the current one), one metric (default its own), a breakdown. */
  | { name: 'results'; experience: string; phase?: number; metric?: string; dimension?: string }
  | { name: 'metrics' }
  /** The organization's people and keys (admins). */
  | { name: 'access' }
  | { name: 'audit' }
  | { name: 'privacy' };

declare global {
  interface GlobalEventHandlersEventMap {
    /** The sign-in form verified a session. */
    'svc-admin:sign-in': CustomEvent<Session>;
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

/** Sent on the form itself only (no bubbling): the key in its detail goes to <svc-admin>, not to the whole page. */
export function signedIn(from: Element, session: Session): void {
  from.dispatchEvent(new CustomEvent('svc-admin:sign-in', { detail: session }));
}
