import type { ResolvedConfig } from './config.js';
import { gpcRefuses, pageOf, pendingRecords, readChoice, setPendingRecords, type ConsentChoice, type ConsentRecord } from './consent-store.js';
import { announce, type ConsentChangeDetail } from './dom-events.js';
import { consentUrl } from './endpoint-urls.js';
import type { ServiceEvent } from '../wire/event.js';
import { postJson } from './fetch-json.js';
import type { Identity } from './identity.js';
import { KEYS, type LocalStore } from './local-store.js';
import type { OptIn } from './opt-in.js';
import type { EventDraft } from './plugin.js';
import { uuid } from './uuid.js';

const SEND_TIMEOUT_MS = 5000;

/** The visitor's consent decisions, as ServiceJs and the consent plugins use them. */
export interface ConsentDecisions {
  /** The categories the browser's Global Privacy Control signal refuses (none without it). */
  readonly gpc: string[];
  /**
   * Global Privacy Control refuses its categories without asking: unless the remembered choice already refuses them,
   * a decision is recorded (source `gpc`), the other categories as remembered or as the policy's default. The banner
   * still asks about those.
   */
  honourGpc(): void;
  decide(chosen: Record<string, boolean>, validUntil: number, source: string, version?: string): void;
  /** Sends consent records at once (keep-alive); what fails is kept in storage and resent by a later page. */
  send(records: ConsentRecord[]): void;
}

/**
 * The visitor's consent decisions: remembered, applied to tracking, sent to the service as proof (how, when, on which
 * page, what was shown) and announced; and the browser's Global Privacy Control signal, which refuses the categories
 * that sell or share data (`gpc`) whatever is decided. Sends at once the records an earlier page could not deliver.
 * Closures rather than a class: the names of its state are minified, which keeps the bundle within its budget.
 */
export function consentDecisions(
  config: ResolvedConfig, store: LocalStore, optIn: OptIn, identity: Identity, emit: (draft: EventDraft) => ServiceEvent | null,
): ConsentDecisions {
  const gpc = gpcRefuses(config.consent.categories, config.consent.gpcCategories);

  const send = (records: ConsentRecord[]): void => {
    const url = consentUrl(config);
    for (const record of records) {
      void postJson(url, config.authorization, record, SEND_TIMEOUT_MS).then((answer) => {
        if (answer === null) setPendingRecords(store, [...pendingRecords(store), record]);
      });
    }
  };

  const decide = (chosen: Record<string, boolean>, validUntil: number, source: string, version?: string): void => {
    const categories = { ...chosen };
    for (const k of gpc) categories[k] = false;
    // Saving the remembered choice again is not a new decision: nothing is sent or tracked.
    if (JSON.stringify(readChoice(store)?.categories) === JSON.stringify(categories)) return;
    // `necessary` is granted whatever the visitor chooses, so it never counts as accepting tracking.
    const governs = config.consent.categories.includes('analytics')
      ? categories.analytics === true
      : Object.values({ ...categories, necessary: false }).some(Boolean);
    const action = governs ? 'accept' : 'reject';
    // The choice itself is the one thing stored whatever it is (issue 7).
    store.set(KEYS.consent, JSON.stringify({ categories, validUntil, source } satisfies ConsentChoice));
    if (governs) optIn.optIn();
    else optIn.optOut();
    const ids = identity.ids();
    const timestamp = new Date().toISOString();
    // One record for the whole decision: the service stores a row per category.
    send([{ eventId: uuid(), profileId: ids.profileId, sourceId: config.sourceId, timestamp, action, validUntil, categories, source, version, page: pageOf() }]);
    const data = { action, validUntil, categories, source };
    // Opted in, the decision is tracked like any consent() call; opted out, it is only announced.
    if (!emit({ type: 'consent', name: 'Consent', data })) {
      const event: ServiceEvent = { eventId: uuid(), type: 'consent', name: 'Consent', ...ids, timestamp, data };
      announce('consent', { eventName: 'Consent', event });
    }
    announce('consent-change', { categories, validUntil, action, source } satisfies ConsentChangeDetail);
  };

  const pending = pendingRecords(store);
  if (pending.length > 0) {
    setPendingRecords(store, []);
    send(pending);
  }

  return {
    gpc,
    send,
    decide,
    honourGpc() {
      const c = config.consent;
      const current = readChoice(store);
      if (gpc.every((k) => current?.categories[k] === false)) return;
      decide(Object.fromEntries(c.categories.map((k) => [k, k === 'necessary' || (current?.categories[k] ?? !c.required)])), Date.now() + 180 * 86_400_000, 'gpc');
    },
  };
}
