import type { Choice } from '../wire/choose.js';
import type { Attributes } from '../wire/event.js';

/** `eventTitle` defaults to `Identify`; `userAttributes` need an `eventTitle`. */
export interface IdentifyParams {
  userId: string;
  eventTitle?: string;
  userAttributes?: Attributes;
  data?: Attributes;
}

/** `eventTitle` defaults to `Identify`; `accountAttributes` need an `eventTitle`. */
export interface GroupParams {
  accountId: string;
  eventTitle?: string;
  accountAttributes?: Attributes;
}

export interface TrackParams {
  eventTitle: string;
  /** Required and non-empty. */
  data: Attributes;
}

export interface RecordParams {
  eventTitle: string;
  accountId?: string;
  userId?: string;
  accountAttributes?: Attributes;
  userAttributes?: Attributes;
  data?: Attributes;
}

export interface AliasParams {
  userId: string;
  anotherUserId: string;
}

export interface ConsentParams {
  action: 'accept' | 'reject';
  /** Until when the choice holds, a timestamp in milliseconds. */
  validUntil: number;
  email?: string;
  message?: string;
  category?: string;
}

export interface ProductParams {
  productId: string;
  /** Defaults to 1. */
  quantity?: number;
  /** The price of one unit, a finite number ≥ 0 (the feed report's revenue is price × quantity). */
  price?: number;
  /** The price's currency: an ISO 4217 code in capitals (`EUR`). */
  currency?: string;
}

export interface RecommendationParams {
  /** The feed id. */
  id: number;
  /** How many products to ask for (sent as `limit`). */
  quantity: number;
  /** Product fields to include. */
  fields: string[];
  /** The product the page is about; default: the page context or the last product viewed. */
  productId?: string;
  /**
   * Products the page already shows (at most 200): a feed that dedupes (the default) leaves them out, so a widget
   * added to the page later never repeats another's products. `<svc-recommendations>` sends it by itself.
   */
  excludeProducts?: string[];
}

export interface ChooseParams {
  names?: string[];
  groups?: string[];
  /**
   * The caller shows the choices itself and reports each one when the visitor sees it (a `track` of
   * `Experiment Viewed` with `data: {experience, variation}`): the service records no exposure with the answer, so a
   * visitor who never sees a variation is counted in none. `<svc-experience>` does this.
   */
  deferExposure?: boolean;
}

export type { Choice };

/** Whether a Choose answer's entry is a choice the SDK can use (a name and a body object). */
export function isChoice(value: unknown): value is Choice {
  const c = value as Choice | null;
  return typeof c === 'object' && c !== null && typeof c.name === 'string' && typeof c.body === 'object' && c.body !== null;
}
