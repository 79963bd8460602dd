// The shape of svc.config.json. Extend it, never rename a field: deployed files rely on it.

import type { AutomaticStop } from '../../wire/automatic-stop.js';
import type { ChooseDevice } from '../../wire/choose.js';
import type { MetricType } from '../../wire/results-answer.js';

export type Device = ChooseDevice;

/** `draft`: not served; `running` (the default): served; `stopped`: served to nobody, unless `winner` is set. */
export type ExperienceStatus = 'draft' | 'running' | 'stopped';

/** One variation of an experiment: `weight` is a share of 100 (all weights of an experience sum to 100). */
export interface VariationConfig {
  name: string;
  weight: number;
  body: Record<string, unknown>;
}

/**
 * One experience. Exactly one of three kinds:
 * - experiment: `variations` (weighted, assigned deterministically and stored on first assignment);
 * - personalization: a single `body` served to everyone who matches;
 * - feed-backed: `feed` (+ `limit`) whose body is `{products:[…]}` from that feed.
 */
export interface ExperienceConfig {
  name: string;
  group?: string;
  /** Served only to these devices; absent means every device. */
  devices?: Device[];
  /** Share of units enrolled, 0–100 (default 100). */
  traffic?: number;
  /** Unit of assignment (default `profile`); `session` needs `sessionId` in the request. */
  stickiness?: 'profile' | 'session';
  variations?: VariationConfig[];
  body?: Record<string, unknown>;
  feed?: number;
  limit?: number;
  /** MongoDB-style targeting condition over request and profile attributes (GrowthBook semantics). */
  condition?: Record<string, unknown>;
  /** Mutually exclusive experiments: `[namespaceId, start, end]` with 0 ≤ start < end ≤ 1. */
  namespace?: [string, number, number];
  /** Hash seed; defaults to the experience name. */
  seed?: string;
  /** Assignment hash version (1 or 2, GrowthBook's); default 2. Kept per experience so nobody moves. */
  hashVersion?: 1 | 2;
  /** Lifecycle (default `running`). */
  status?: ExperienceStatus;
  /** With `status: "stopped"`: the variation whose body everyone is served from then on, without exposures. */
  winner?: string;
  /** Experiments only: the results' significance level, 0 < alpha < 0.5 (default 0.05). */
  alpha?: number;
  /** Experiments only: always-valid sequential intervals and p-values in results (default false: fixed-horizon). */
  sequential?: boolean;
  /** Experiments only: the sequential tests' tuning parameter, ≥ 1 (default 5,000). */
  sequentialTuning?: number;
  /** Experiments only: the correction of p-values across the results' metrics × challengers (default `none`). */
  correction?: PValueCorrection;
  /** Experiments only: the metrics it is judged by, by name; the first is the primary one (results, headline, Ship). */
  goals?: string[];
  /** Experiments only: metrics shown beside the goals, which decide nothing. */
  secondary?: string[];
  /** Experiments only: metrics no variation may harm; a significant harm stops the experiment (server/results/guardrail-watch.ts). */
  guardrails?: string[];
  /** Experiments only: a sample-ratio mismatch in the current phase stops the experiment too (default false: it warns). */
  stopOnSrm?: boolean;
  /** Written by the service when it stopped the experiment by itself: why, with the numbers. */
  stoppedBy?: AutomaticStop;
  /**
   * Written by the service: how many times the experiment's phases re-randomised it (PUT `?rerandomize=true`). Each
   * time the hash seed and the stored first assignments are new ones, so everybody is assigned afresh.
   */
  randomization?: number;
  /**
   * Experiments only: how traffic is split. `fixed` (the default): the variations' weights, as a person sets them.
   * `bandit`: the service moves the weights towards the variation that does best on `bandit.metric` (Thompson
   * sampling, server/bandits/); each reweight is recorded and none starts a phase.
   */
  allocation?: 'fixed' | 'bandit';
  /** With `allocation: "bandit"`: what it learns from and how fast. */
  bandit?: BanditSettings;
}

/** A bandit's settings (defaults in server/config/bandit-settings.ts). */
export interface BanditSettings {
  /** The decision metric: one of the experiment's goals (default: the first goal). */
  metric?: string;
  /** Equal weights until this many units are exposed (default 0: no floor of units). */
  explorationUnits?: number;
  /** Equal weights for this many hours after the experiment starts (default 0). */
  explorationHours?: number;
  /** Minutes between reweights, at least 5 (default 60). */
  cadenceMinutes?: number;
  /** Every variation keeps at least this share of traffic, percent (default 1; arms × minShare ≤ 100). */
  minShare?: number;
}

export type { AutomaticStop };

export type PValueCorrection = 'none' | 'holm-bonferroni' | 'benjamini-hochberg';

export interface FeedConfig {
  id: number;
  strategy: 'popular' | 'viewed-together' | 'bought-together' | 'recently-viewed' | 'personalized';
  /**
   * How long after a click on one of the feed's products a cart addition or an order of that product by the same
   * person is credited to the click (a whole number of hours, 1–720; default DEFAULT_ATTRIBUTION_HOURS).
   */
  attributionHours?: number;
  /** The most products the feed answers (1–100): a request asking more gets this many. Absent: what the request asks. */
  limit?: number;
  /**
   * Whether a product shown by another widget of the same page view is left out of this feed (default true). Stored
   * and validated; the page-level part is not applied yet.
   */
  dedupe?: boolean;
  /** Merchandising rules (docs/merchandising-rules.md), applied after the strategy. */
  rules?: FeedRule[];
  /** What never appears: `in-cart`, `purchased` (within `purchasedDays`), `viewed`, product ids, `{ids: […]}`. */
  exclude?: FeedExclusion[];
  /** The days back `purchased` looks (default DEFAULT_PURCHASED_DAYS). */
  purchasedDays?: number;
  /** What fills the list when the strategy has too few, in order (default `["popular"]`; `[]`: nothing). */
  fallback?: FeedFallback[];
}

/**
 * A condition on one catalog field: a plain value (equal to it; for `tags`, one of the tags), or operators, all of
 * which must hold. `same: true` compares with the field of the product the page is about; `gte`/`lte` may take
 * `{same: factor}`, the page product's (numeric) field times factor.
 */
export type FieldCondition = string | number | boolean | FieldOperators;

export interface FieldOperators {
  eq?: string | number | boolean;
  in?: (string | number | boolean)[];
  gte?: number | { same: number };
  lte?: number | { same: number };
  same?: true;
}

/** Catalog field → condition: a product matches when every condition holds. */
export type FeedConditions = Record<string, FieldCondition>;

export type FeedRule =
  | { pin: string; position: number }
  | { filter: FeedConditions }
  | { boost: FeedConditions; factor?: number }
  | { bury: FeedConditions; factor?: number };

export type FeedExclusion = 'in-cart' | 'purchased' | 'viewed' | string | { ids: string[] };

/** A strategy, `popular-in-category` (popular in the page product's category), or another feed's list by id. */
export type FeedFallback = FeedConfig['strategy'] | 'popular-in-category' | { feed: number };

/** `purchased` exclusion's window when a feed sets no `purchasedDays`. */
export const DEFAULT_PURCHASED_DAYS = 30;

/** A feed's attribution window when its config sets none (docs/recommendations-report.md says why 24 hours). */
export const DEFAULT_ATTRIBUTION_HOURS = 24;
/** The longest attribution window a feed may set: 30 days, as long as the longest a vendor credits (Dynamic Yield). */
export const MAX_ATTRIBUTION_HOURS = 720;

export interface ProductConfig {
  id: string;
  title?: string;
  price?: number;
  currency?: string;
  url?: string;
  image?: string;
  category?: string;
  brand?: string;
  tags?: string[];
  /** Units in stock (a shop's count; may be negative when oversold). Does not change `available` by itself. */
  inventory?: number;
  available?: boolean;
  [field: string]: unknown;
}

export type { MetricType };

/**
 * Winsorising a metric's unit values from above: at `value`, or at the `value` quantile (0 < value ≤ 1) of the units'.
 */
export interface MetricCapConfig {
  type: 'absolute' | 'percentile';
  value: number;
  /** `percentile` only: the quantile is taken over the units whose value is not 0. */
  ignoreZeros?: boolean;
}

/**
 * What an experiment is judged by: per unit, over the events named `event` (an event's `name`, exactly) whose `data`
 * matches `where`, from the unit's first exposure on. `binomial`: 1 if there is at least one such event, else 0;
 * `count`: how many; `sum`: the sum of `data[value]` over them (a value that is not a JSON number counts 0);
 * `ratio`: one metric's per-unit value over another's (revenue per order), Σ numerator / Σ denominator.
 */
export interface MetricConfig {
  name: string;
  /** Every type but `ratio`: the events counted. */
  event?: string;
  type: MetricType;
  /** `ratio`: the names of the project's (non-ratio) metrics divided, per unit summed over units. */
  numerator?: string;
  denominator?: string;
  /** Lower is better (refunds, load time): chance to win and risk point that way. */
  inverse?: boolean;
  /** `count` and `sum` only. */
  cap?: MetricCapConfig;
  /**
   * The numeric `data` field a `sum` adds up, or fields multiplied, joined by `*` (`price*quantity`: an order line's
   * revenue); an event whose field is not a number adds 0.
   */
  value?: string;
  /** `count` only: counts the distinct values of this `data` field (`orderId`: orders, not their lines). */
  distinct?: string;
  /** A condition over the event's `data`, with the operators of experience conditions. */
  where?: Record<string, unknown>;
  /** Counts only events within this many hours after the unit's first exposure. */
  windowHours?: number;
  /** Variance reduction (CUPED) by the same metric's value in the `cupedDays` (default 14) before first exposure. */
  cuped?: boolean;
  cupedDays?: number;
}

export interface LimitsConfig {
  /** Requests per second per (writeKey, client IP) on browser endpoints; default 50 (burst 100). */
  writeKeyPerSecond?: number;
  /** Requests per second per apiKey; unlimited when absent. */
  apiKeyPerSecond?: number;
}

export interface ProjectConfig {
  apiKeys: string[];
  writeKeys: string[];
  sources: string[];
  experiences?: ExperienceConfig[];
  feeds?: FeedConfig[];
  metrics?: MetricConfig[];
  catalog?: ProductConfig[];
  limits?: LimitsConfig;
  /** CORS allow-list for browser endpoints; absent means any origin (write keys are public). */
  allowedOrigins?: string[];
  /** How long data is kept; absent: for ever (server/privacy/retention.ts). */
  retention?: RetentionConfig;
  recommendations?: RecommendationsConfig;
}

/** Project-wide settings of recommendations. */
export interface RecommendationsConfig {
  /**
   * The share of people, in percent (0–50), to whom every feed answers no products: the always-on holdout whose
   * experiment `recommendations-holdout` measures what recommendations add (config/recommendations-holdout.ts).
   */
  holdout?: number;
  /** The currency the holdout's revenue counts (an order line in another is left out); absent: every line. */
  currency?: string;
}

export interface RetentionConfig {
  /** Events received more than this many days ago are deleted. */
  eventsDays?: number;
  /**
   * The exposures of experiments that ended (stopped, given a winner, or removed) more than this many days ago are
   * deleted.
   */
  exposuresDays?: number;
}

export interface OrganizationConfig {
  projects: Record<string, ProjectConfig>;
  /** Keys that open every project of the organization for administration (results today), `<id>.<secret>`. */
  adminKeys?: string[];
  /** Single sign-on to the console with this OpenID Connect provider. */
  oidc?: OidcConfig;
}

/**
 * An organization's OpenID Connect provider (authorization code flow with PKCE). `redirectUri` is the service's
 * `/admin/oidc/callback` as the browser reaches it (registered with the provider). With `roleClaim`, the ID token's
 * (or userinfo's) claim of that name is the person's role (`viewer`, `editor` or `admin`; anything else: no access);
 * without it, only people added to the organization get in, with the role given them there.
 */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  roleClaim?: string;
}

export interface ServiceConfigFile {
  organizations: Record<string, OrganizationConfig>;
}
