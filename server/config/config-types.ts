// The shape of svc.config.json. Extend it, never rename a field: deployed files rely on it. The items the management
// API writes (experiences, metrics, feeds) are its schemas' types (wire/api/item-schema.ts): one definition for the
// file, the API's description and the console.

import type {
  BanditSettings, ExperienceItem, ExperienceStatus, FeedConditions, FeedExclusion, FeedFallback, FeedItem, FeedRule, FieldCondition,
  FieldOperators, MetricCap, MetricItem, PValueCorrection, Variation,
} from '../../wire/api/item-schema.js';
import type { AutomaticStop } from '../../wire/automatic-stop.js';
import type { ChooseDevice } from '../../wire/choose.js';
import type { MetricType } from '../../wire/results-answer.js';

export type Device = ChooseDevice;

export type { AutomaticStop, BanditSettings, ExperienceStatus, PValueCorrection };

/** One variation of an experiment: `weight` is a share of 100 (all weights of an experience sum to 100). */
export type VariationConfig = Variation;

/**
 * One experience. Exactly one of three kinds:
 * - experiment: `variations` (weighted, assigned deterministically and stored on first assignment);
 * - personalization: a single `body` served to everyone who matches;
 * - feed-backed: `feed` (+ `limit`) whose body is `{products:[…]}` from that feed.
 * Each field's meaning is in its schema (ExperienceItemSchema).
 */
export type ExperienceConfig = ExperienceItem;

/** A recommendation feed: its strategy, merchandising rules (docs/merchandising-rules.md), exclusions and fallbacks. */
export type FeedConfig = FeedItem;

export type { FeedConditions, FeedExclusion, FeedFallback, FeedRule, FieldCondition, FieldOperators };

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

/** Winsorising a metric's unit values from above: at `value`, or at the `value` quantile (0 < value ≤ 1) of the units'. */
export type MetricCapConfig = MetricCap;

/**
 * What an experiment is judged by: per unit, over the events named `event` (an event's `name`, exactly) whose `data`
 * matches `where`, from the unit's first exposure on. `binomial`: 1 if there is at least one such event, else 0;
 * `count`: how many; `sum`: the sum of `data[value]` over them (a value that is not a JSON number counts 0);
 * `ratio`: one metric's per-unit value over another's (revenue per order), Σ numerator / Σ denominator.
 */
export type MetricConfig = MetricItem;

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
