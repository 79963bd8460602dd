import { resolveConfig, type ResolvedConfig, type ServiceConfig } from './config.js';
import { DEV_MODE } from './dev-mode.js';
import { announce, dispatchTracked, eventKind } from './dom-events.js';
import { trackUrl } from './endpoint-urls.js';
import type { ServiceEvent } from '../wire/event.js';
import { consentDecisions, type ConsentDecisions } from './consent-decisions.js';
import { expireChoice, pageOf, readChoice } from './consent-store.js';
import { Identity } from './identity.js';
import { KEYS, LocalStore } from './local-store.js';
import { OptIn } from './opt-in.js';
import type { Outbox } from './outbox.js';
import { IdbOutbox } from './idb-outbox.js';
import {
  type AliasParams, type Choice, type ChooseParams, type ConsentParams, type GroupParams, type IdentifyParams,
  type ProductParams, type RecommendationParams, type RecordParams, type TrackParams,
} from './params.js';
import { clean } from './clean.js';
import type { EventDraft, PageContext, PluginContext, ServicePlugin } from './plugin.js';
import { PluginHost } from './plugin-host.js';
import { requestChoices, requestFeed, requestFeeds } from './requests.js';
import { createSender } from './transport.js';
import { uuid } from './uuid.js';
import { isText, paramsRequired, validateParams, validateProducts } from './validation.js';

/** A product event's data: the line as given (quantity 1 by default), and the order's id. */
const line = ({ productId, quantity = 1, price, currency }: ProductParams, orderId?: string): Record<string, unknown> =>
  clean({ productId, quantity, price, currency, orderId });

/**
 * The browser client: identity, tracking, consent, DOM events, Choose and recommendations.
 * Everything it holds is private (`#` fields): the write key is not reachable from `window.svc`.
 *
 * @example
 * const svc = new ServiceJs({ organization: 'acme', project: 'shop', sourceId: 'web',
 *   writeKey: 'web1.p4ss', platformA: false, platformB: false });
 * svc.track({ eventTitle: 'Newsletter signup', data: { list: 'weekly' } });
 */
export class ServiceJs {
  readonly #config: ResolvedConfig;
  readonly #store = new LocalStore();
  readonly #optIn: OptIn;
  readonly #identity: Identity;
  readonly #outbox: Outbox;
  readonly #plugins = new PluginHost();
  readonly #ctx: PluginContext;
  #context: PageContext = {};
  #chooseCache = new Map<string, Promise<Choice[]>>();
  readonly #consent: ConsentDecisions;
  readonly #onPageExit = (e: Event): void => {
    if (e.type === 'visibilitychange' && document.visibilityState !== 'hidden') return;
    // Plugins first: what they emit on leaving (Leave Page) must be in this last send.
    if (e.type === 'pagehide') this.#plugins.call('pageExit');
    if (this.#optIn.optedIn) this.#outbox.flushOnExit();
  };

  constructor(config: ServiceConfig) {
    this.#config = resolveConfig(config);
    expireChoice(this.#store);
    this.#optIn = new OptIn(
      this.#store,
      (optedIn) => {
        if (optedIn) this.#identity.persist();
        else this.#outbox.purge();
      },
      !this.#config.consent.required,
    );
    this.#identity = new Identity(this.#store, () => this.#optIn.optedIn);
    this.#consent = consentDecisions(this.#config, this.#store, this.#optIn, this.#identity, (draft) => this.#emit(draft));
    this.#outbox = new IdbOutbox(createSender(this.#config), { scope: trackUrl(this.#config), active: () => this.#optIn.optedIn });
    // Never `unload`/`beforeunload`: they break the back/forward cache and do not fire on mobile.
    window.addEventListener('visibilitychange', this.#onPageExit);
    window.addEventListener('pagehide', this.#onPageExit);
    const c = this.#config;
    this.#ctx = {
      organization: c.organization,
      project: c.project,
      sourceId: c.sourceId,
      api: c.api,
      flag: (flag) => c[flag as `platform${string}`] === true,
      ids: () => ({ profileId: this.#identity.profileId, sessionId: this.#identity.sessionId, pageId: this.#identity.pageId }),
      emit: (draft) => this.#emit(draft),
      setContext: (context) => {
        this.#context = { ...this.#context, ...context };
      },
      getContext: () => ({ ...this.#context }),
      newPage: () => {
        this.#identity.newPage();
        this.#chooseCache.clear();
      },
      optedIn: () => this.#optIn.optedIn,
      choose: (params) => this.choose(params),
      recommendation: (params) => this.recommendation(params),
      recommendations: (list, exclude) => requestFeeds(c, this.#identity.profileId, list, this.#productId(), exclude),
      consent: {
        required: c.consent.required,
        categories: c.consent.categories,
        current: () => readChoice(this.#store),
        gpc: this.#consent.gpc,
        decide: this.#consent.decide,
      },
    };
    this.#consent.honourGpc();
  }

  /** Turns tracking on for this browser. */
  optIn(): void {
    this.#optIn.optIn();
  }

  /** Turns tracking off for this browser: nothing is tracked, stored or sent, and what is queued is dropped. */
  optOut(): void {
    this.#optIn.optOut();
  }

  isUserOptIn(): boolean {
    return this.#optIn.optedIn;
  }

  /**
   * Links the current profile to a known user.
   * @example svc.identify({ userId: 'u-42', eventTitle: 'Signed in', userAttributes: { plan: 'pro' } });
   */
  identify(params: IdentifyParams): void {
    if (!this.#optIn.optedIn) return;
    validateParams('identify', params);
    this.#emit({
      type: 'identify',
      name: params.eventTitle || 'Identify',
      userId: params.userId,
      userAttributes: params.userAttributes,
      data: params.data,
    });
  }

  /** Declares that two user ids are the same person. */
  alias(params: AliasParams): void {
    if (!this.#optIn.optedIn) return;
    validateParams('alias', params);
    this.#emit({ type: 'alias', name: 'Alias', userId: params.userId, anotherUserId: params.anotherUserId });
  }

  /** Links the current profile to an account (company, household). */
  group(params: GroupParams): void {
    if (!this.#optIn.optedIn) return;
    validateParams('group', params);
    this.#emit({
      type: 'group',
      name: params.eventTitle || 'Identify',
      accountId: params.accountId,
      accountAttributes: params.accountAttributes,
    });
  }

  /**
   * Tracks a named event with its data.
   * @example svc.track({ eventTitle: 'Video played', data: { videoId: 'v1' } });
   */
  track(params: TrackParams): void {
    if (!this.#optIn.optedIn) return;
    validateParams('track', params);
    this.#emit({ type: 'track', name: params.eventTitle, data: params.data });
  }

  /** Tracks an event that may also carry user and account ids and attributes. */
  record(params: RecordParams): void {
    if (!this.#optIn.optedIn) return;
    validateParams('record', params);
    this.#emit({
      type: 'record',
      name: params.eventTitle,
      accountId: params.accountId,
      userId: params.userId,
      accountAttributes: params.accountAttributes,
      userAttributes: params.userAttributes,
      data: params.data,
    });
  }

  /** Records the visitor's consent decision, as an event and in the service's consent store. */
  consent(params: ConsentParams): void {
    if (!this.#optIn.optedIn) return;
    validateParams('consent', params);
    const { action, validUntil, email, message, category } = params;
    const event = this.#emit({ type: 'consent', name: 'Consent', data: clean({ action, validUntil, email, message, category }) });
    if (!event) return;
    const { eventId, profileId, timestamp } = event;
    const sourceId = this.#config.sourceId;
    this.#consent.send([clean({ eventId, profileId, sourceId, timestamp, action, validUntil, email, message, category, source: 'api', page: pageOf() })]);
  }

  /**
   * Tracks `Added to cart`; `quantity` defaults to 1; `price` (per unit) and `currency` are sent when given.
   * @example svc.productAdd({ productId: 'p1', quantity: 2, price: 19.5, currency: 'EUR' });
   */
  productAdd(params: ProductParams): void {
    if (!this.#optIn.optedIn) return;
    validateParams('productAdd', params);
    this.#emit({ type: 'product', name: 'Added to cart', data: line(params) });
  }

  /** Tracks `Product ordered` once per product (with its `price` and `currency` when given), all sharing one `orderId`. */
  productOrdered(products: ProductParams[]): void {
    if (!this.#optIn.optedIn) return;
    validateProducts(products);
    const orderId = uuid();
    for (const p of products) this.#emit({ type: 'product', name: 'Product ordered', data: line(p, orderId) });
  }

  /** Tracks `Product viewed` and remembers the product for recommendations. */
  productView(productId: string): void {
    if (!this.#optIn.optedIn) return;
    if (!isText(productId)) throw paramsRequired('productView');
    this.#store.set(KEYS.productId, productId);
    this.#emit({ type: 'product', name: 'Product viewed', data: { productId } });
  }

  /** Tracks `Log Out`, then starts afresh: new profile, session and page ids, session data cleared. */
  logOut(): void {
    if (!this.#optIn.optedIn) return;
    this.#emit({ type: 'logout', name: 'Log Out' });
    this.#identity.reset();
    this.#store.remove(KEYS.productId);
    this.#context = {};
    this.#chooseCache.clear();
    this.#plugins.call('reset');
  }

  /**
   * Products from a recommendation feed, or `null` on any failure (it never rejects).
   * @example const data = await svc.recommendation({ id: 1, quantity: 4, fields: ['title', 'price'] });
   */
  recommendation(params: RecommendationParams): Promise<unknown> {
    validateParams('recommendation', params);
    return requestFeed(this.#config, this.#identity.profileId, params, params.productId ?? this.#productId());
  }

  /** The product the page is about: the page context, else the last product viewed. */
  #productId(): string | undefined {
    return this.#context.productId ?? this.#store.get(KEYS.productId) ?? undefined;
  }

  /**
   * Resolves experiences for this visitor through the Choose API; `[]` on any failure, and `[]` without a
   * request while opted out. Answers are kept for the page view, so several elements asking the same
   * question cost one request.
   * @example const [hero] = await svc.choose({ names: ['hero-banner'] });
   */
  choose(params: ChooseParams): Promise<Choice[]> {
    validateParams('choose', params);
    // Opted out, nobody is assigned or exposed: the service would store both for a throwaway profile id.
    // Pages show their fallback content.
    if (!this.#optIn.optedIn) return Promise.resolve([]);
    const key = JSON.stringify([params.names ?? [], params.groups ?? [], params.deferExposure === true]);
    let answer = this.#chooseCache.get(key);
    if (!answer) {
      answer = this.#requestChoices(params);
      this.#chooseCache.set(key, answer);
    }
    return answer;
  }

  /**
   * Adds a plugin; returns a function that removes it again. A plugin that fails to load is reported and
   * the rest keep running.
   */
  use(plugin: ServicePlugin): () => void {
    if (plugin === null || typeof plugin !== 'object' || !isText(plugin.name)) throw paramsRequired('use');
    return this.#plugins.use(plugin, this.#ctx);
  }

  /**
   * Runs `fn` with this instance, at once: the SDK has loaded. The snippet's stub queues `ready` calls made
   * before the file arrives, so `svc.ready(fn)` works on either side of the load; the promise resolves too.
   * @example svc.ready((svc) => svc.track({ eventTitle: 'Loaded' }));
   */
  ready(fn?: (svc: this) => void): Promise<this> {
    fn?.(this);
    return Promise.resolve(this);
  }

  /** Sends what is queued now instead of waiting for the next batch. */
  flush(): Promise<void> {
    return this.#optIn.optedIn ? this.#outbox.flush() : Promise.resolve();
  }

  /**
   * Forgets this visitor in this browser (their privacy request, a shared computer): what is queued is dropped, and
   * ids, consent and everything remembered are cleared; the next event starts a new profile, as a first visit does.
   * The service keeps what it already holds: erasing that is the site's privacy request (its management API).
   */
  forget(): void {
    this.#outbox.purge();
    for (const key of Object.values(KEYS)) this.#store.remove(key);
    this.#identity.reset();
    this.#optIn.reset();
    this.#context = {};
    this.#chooseCache.clear();
    this.#plugins.call('reset');
    announce('forget');
    this.#consent.honourGpc();
  }

  /** Removes every listener and plugin of this instance (tests, single-page apps replacing the SDK). */
  destroy(): void {
    window.removeEventListener('visibilitychange', this.#onPageExit);
    window.removeEventListener('pagehide', this.#onPageExit);
    this.#plugins.removeAll();
    this.#optIn.dispose();
    this.#outbox.dispose();
  }

  async #requestChoices(params: ChooseParams): Promise<Choice[]> {
    const choices = await requestChoices(this.#config, this.#identity, params);
    if (!choices) this.#chooseCache.clear(); // a failure is not remembered: the next element may try again
    return choices ?? [];
  }

  /**
   * Builds, enriches, dispatches (as `svc:<kind>` of the draft's type) and queues one event; returns it, or null when
   * dropped or opted out.
   */
  #emit(draft: EventDraft): ServiceEvent | null {
    if (!this.#optIn.optedIn) return null;
    const event = this.#plugins.enrich(
      clean({ eventId: uuid(), ...this.#identity.ids(), timestamp: new Date().toISOString(), ...draft }) as ServiceEvent,
    );
    if (!event) return null;
    if (DEV_MODE && typeof event.name !== 'string') console.warn('[svc] a plugin returned an event without a name', event);
    dispatchTracked(eventKind(draft.type), event);
    this.#outbox.push(event);
    return event;
  }
}
