import type { ServiceEvent } from '../wire/event.js';
import type { Ids } from './identity.js';
import type { Choice, ChooseParams, RecommendationParams } from './params.js';
import type { ConsentChoice } from './consent-store.js';

/** What the page is about, supplied by plugins (a shop's integration) or elements (the product on a product page). */
export interface PageContext {
  productId?: string;
}

/** An event a plugin emits itself (auto-tracking, a shop's integration): the SDK adds ids, eventId and timestamp. */
export type EventDraft = Omit<ServiceEvent, 'eventId' | 'profileId' | 'sessionId' | 'pageId' | 'timestamp'>;

/** What a plugin's `setup` receives. The write key is deliberately not part of it. */
export interface PluginContext {
  readonly organization: string;
  readonly project: string;
  readonly sourceId: string;
  readonly api: string;
  /**
   * Whether the config turns `flag` on (`platformA: true`): a platform plugin reads its own flag and does nothing
   * unless it is true.
   */
  flag(flag: string): boolean;
  /** Current ids (without counting as activity). */
  ids(): Ids;
  /** Emits an event through the pipeline as if tracked; ignored while opted out. No title checks. */
  emit(draft: EventDraft): void;
  /** Merges into the page context (read by `recommendation()` and elements). */
  setContext(context: PageContext): void;
  getContext(): PageContext;
  /** Starts a new page view (SPA navigation): a new `pageId`. */
  newPage(): void;
  optedIn(): boolean;
  /** The instance's `choose()`: elements resolve experiences through it. */
  choose(params: ChooseParams): Promise<Choice[]>;
  /** The instance's `recommendation()`: `<svc-recommendations>` fetches its feed through it. */
  recommendation(params: RecommendationParams): Promise<unknown>;
  /**
   * Several feeds of one page in one request, no product in two of them (`POST …/feeds/data`): each feed's answer in
   * order, or null on any failure. Parameters are not validated here: the service answers a bad one its own error.
   */
  recommendations(list: RecommendationParams[], excludeProducts?: string[]): Promise<unknown[] | null>;
  readonly consent: ConsentControl;
}

/** What consent plugins (banner, CMP bridges) may do. */
export interface ConsentControl {
  readonly required: boolean;
  readonly categories: readonly string[];
  /** The remembered, unexpired choice, or null (then the visitor should be asked; also when its source is `gpc`). */
  current(): ConsentChoice | null;
  /** The categories the browser's Global Privacy Control signal refuses: every decision keeps them off. */
  readonly gpc: readonly string[];
  /**
   * Applies a choice: remembers it until `validUntil`, opts tracking in or out (the `analytics` category
   * governs it, or any category when there is none), sends one consent record for the decision (kept and
   * resent when sending fails), and dispatches `svc:consent` and `svc:consent-change`. A choice equal to the
   * remembered one is not a new decision and does nothing. The record keeps `source` (how the visitor decided:
   * `banner`, `tcf`…), `version` (of what they were shown, when the site names one) and the page, as proof of consent.
   */
  decide(categories: Record<string, boolean>, validUntil: number, source: string, version?: string): void;
}

/**
 * A plugin: a small object made by a factory, e.g. `autoTrack(options) => plugin`.
 *
 * @example
 * svc.use({ name: 'currency', enrich: (e) => ({ ...e, data: { ...e.data, currency: 'EUR' } }) });
 */
export interface ServicePlugin {
  name: string;
  /** Called once by `use()`; may return its teardown. */
  setup?(ctx: PluginContext): void | (() => void);
  /** Sees every event before it is dispatched and sent: return a new event, `null` to drop it, or nothing. */
  enrich?(event: ServiceEvent): ServiceEvent | null | undefined | void;
  /** Called on `logOut()`, after ids are refreshed. */
  reset?(): void;
  /** Called on `pagehide` before the SDK sends what is pending, so a last event (Leave Page) goes too. */
  pageExit?(): void;
}
