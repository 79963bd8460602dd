// The Choose API's request body and its answer, `{"choices": [...]}`: what the browser SDK (and a server-side caller)
// sends, and what the service answers.

/** One element of the answer's `choices`: a resolved experience. */
export interface Choice {
  name: string;
  /** The group it was asked through, when it was asked by group. */
  group?: string;
  /** The variation served: experiments only (personalization and feeds have none). */
  variation?: string;
  /** The experience's content (the variation's, for an experiment); the server's config object: never mutated. */
  body: Readonly<Record<string, unknown>>;
}

/** The Choose API's answer: the choices in the order asked (names first, then groups' experiences). */
export interface ChooseAnswer {
  choices: Choice[];
}

/** Which device the visitor is on, as the SDK tells it (targeting conditions see it as `device`). */
export type ChooseDevice = 'mobile' | 'desktop';

/**
 * The Choose API's request body. `identification` names the visitor: a profile of one of the project's sources (form
 * A, what the browser sends), or a user id an earlier identify linked (form B, apiKey callers only).
 */
export interface ChooseRequestBody {
  identification: { sourceId: string; profileId: string } | { userId: string };
  /** Experience names, answered first and in this order. */
  names?: string[];
  /** Group names: every experience of these groups, in config order, after `names`. */
  groups?: string[];
  device?: ChooseDevice;
  sessionId?: string;
  /** The page the experience runs on; targeting conditions see it as `url`. */
  url?: string;
  /** QA overrides `{experience: variation}`: apiKey callers only. */
  force?: Record<string, string>;
  /**
   * The caller reports each exposure itself, when it shows the choice (an `Experiment Viewed` event): the answer
   * records none. `<svc-experience>` asks so, and counts a visitor only once it showed them the variation.
   */
  deferExposure?: boolean;
  /**
   * The product the page is about, as the feed endpoint's `productId`: feed-backed experiences answer for it (the anchor
   * of bought-together and viewed-together, `same` conditions, `popular-in-category`, and never the product itself).
   */
  productId?: string;
}
