import type { ServiceEvent } from '../wire/event.js';

/** The specific event of each operation: `svc:identify`, `svc:product`, `svc:logOut`… */
export type EventKind = 'identify' | 'alias' | 'group' | 'track' | 'record' | 'consent' | 'product' | 'logOut';

/** The specific event an event of `type` fires: one of its own name, `logOut` for `logout`, else `track`. */
export function eventKind(type: ServiceEvent['type']): EventKind {
  if (type === 'logout') return 'logOut';
  const own: string[] = ['identify', 'alias', 'group', 'record', 'consent', 'product'];
  return own.includes(type) ? (type as EventKind) : 'track';
}

/** `detail` of a specific `svc:<kind>` event. */
export interface KindEventDetail {
  eventName: string;
  event: ServiceEvent;
}

/** `detail` of `svc:consent-change`: the visitor's choice per category. */
export interface ConsentChangeDetail {
  categories: Record<string, boolean>;
  validUntil: number;
  /** `accept` when tracking (the `analytics` category) is allowed. */
  action: 'accept' | 'reject';
  /** Who decided: the banner, a CMP through TCF, the page through the API. */
  source: string;
}

/** `detail` of `svc:error`: something was not delivered, and why. */
export interface ErrorEventDetail {
  code: string;
  message: string;
  count?: number;
}

declare global {
  interface WindowEventMap {
    'svc:event': CustomEvent<ServiceEvent>;
    'svc:identify': CustomEvent<KindEventDetail>;
    'svc:alias': CustomEvent<KindEventDetail>;
    'svc:group': CustomEvent<KindEventDetail>;
    'svc:track': CustomEvent<KindEventDetail>;
    'svc:record': CustomEvent<KindEventDetail>;
    'svc:consent': CustomEvent<KindEventDetail>;
    'svc:product': CustomEvent<KindEventDetail>;
    'svc:logOut': CustomEvent<KindEventDetail>;
    'svc:error': CustomEvent<ErrorEventDetail>;
    'svc:consent-change': CustomEvent<ConsentChangeDetail>;
    /** `svc.forget()` cleared the visitor from this browser: the banner asks again. */
    'svc:forget': CustomEvent<null>;
    /** `window.svc` was created from the SDK's script tag. */
    'svc:ready': CustomEvent<unknown>;
  }
}

/** Fires `svc:<name>` on `window` with `detail`, synchronously. */
export function announce(name: string, detail?: unknown): void {
  window.dispatchEvent(new CustomEvent(`svc:${name}`, { detail }));
}

/**
 * Fires `svc:<kind>` then `svc:event`, synchronously. `dispatchEvent` reports a listener's exception to
 * the page's error handlers and carries on, so a faulty listener never breaks the caller.
 */
export function dispatchTracked(kind: EventKind, event: ServiceEvent): void {
  announce(kind, { eventName: event.name, event });
  announce('event', event);
}

export function dispatchError(detail: ErrorEventDetail): void {
  announce('error', detail);
}
