import type { ConsentRecord } from '../wire/consent.js';
import { KEYS, type LocalStore } from './local-store.js';

export type { ConsentRecord };

/** What the visitor chose, per category, and until when (epoch ms). */
export interface ConsentChoice {
  categories: Record<string, boolean>;
  validUntil: number;
  /** How it was decided: `banner`, `api`, `tcf`, or `gpc` (the browser's signal, the visitor not asked yet). */
  source?: string;
}


/** The page a consent decision is made on, for its proof: origin and path, no query string or fragment. */
export function pageOf(): string {
  return location.origin + location.pathname;
}

/** Of `categories`, those `refused` when the browser sends Global Privacy Control; none without the signal. */
export function gpcRefuses(categories: readonly string[], refused: readonly string[]): string[] {
  return (navigator as { globalPrivacyControl?: boolean }).globalPrivacyControl ? categories.filter((c) => refused.includes(c)) : [];
}

/** The remembered choice, or null when there is none or it has expired. */
export function readChoice(store: LocalStore, now = Date.now()): ConsentChoice | null {
  try {
    const choice = JSON.parse(store.get(KEYS.consent) ?? 'null') as ConsentChoice | null;
    if (choice && typeof choice.validUntil === 'number' && choice.validUntil > now && typeof choice.categories === 'object') {
      return choice;
    }
  } catch {
    // unreadable: as good as none
  }
  return null;
}

/**
 * An expired choice is forgotten together with the opt-in it set, so the policy's default applies again
 * and the banner asks anew.
 */
export function expireChoice(store: LocalStore, now = Date.now()): void {
  if (store.get(KEYS.consent) !== null && readChoice(store, now) === null) {
    store.remove(KEYS.consent);
    store.remove(KEYS.optIn);
  }
}

export function pendingRecords(store: LocalStore): ConsentRecord[] {
  try {
    const list = JSON.parse(store.get(KEYS.consentPending) ?? '[]') as unknown;
    return Array.isArray(list) ? (list as ConsentRecord[]) : [];
  } catch {
    return [];
  }
}

export function setPendingRecords(store: LocalStore, records: ConsentRecord[]): void {
  if (records.length === 0) store.remove(KEYS.consentPending);
  else store.set(KEYS.consentPending, JSON.stringify(records.slice(-50)));
}
