// The engine's inputs, outputs and ports. The route adapts HTTP to these; storage implements the ports.

import type { Choice } from '../../../wire/choose.js';
import type { Device } from '../../config/config-types.js';
import type { SavedGroups } from '../../config/condition.js';
import type { HashVersion } from './hash.js';

/** What to resolve, for whom. The route has already authenticated and resolved identification. */
export interface ChooseRequest {
  /** Experience names, served first and in this order; unknown names are simply absent. */
  names?: readonly string[];
  /** Group names: every experience of these groups, in config order, after `names`. */
  groups?: readonly string[];
  device?: Device;
  sessionId?: string;
  /** The unit of `stickiness: "profile"` (form A's profileId, or the profile linked to form B's userId). */
  profileId: string;
  /**
   * The profile the caller named, when it is not `profileId` (a second device of an identified person): feeds answer
   * for it, as the feed endpoint does for the same profile.
   */
  visitorProfileId?: string;
  /**
   * What `condition` rules see: `url`, profile and account attributes, anything the route knows.
   * `device` is added from the request when this object has none.
   */
  attributes?: Readonly<Record<string, unknown>>;
  /** QA overrides `{experienceName: variationName}`; honoured only with `ChooseOptions.allowForce`. */
  force?: Readonly<Record<string, string>>;
  /** The product the page is about: feed-backed experiences answer for it. */
  productId?: string;
}

export interface ChooseOptions {
  /** Only `apiKey` (server-side) callers may force variations; browser callers must not. */
  allowForce?: boolean;
}

export type { Choice };

export interface ChooseResult {
  choices: Choice[];
  /**
   * The choices to record as exposures: every choice served except forced ones (QA traffic must not skew
   * results) and winners of stopped experiments (which have ended), in the same order. The `choices` array itself
   * when there are none of those, so nothing is built for it.
   */
  exposed: readonly Choice[];
}

/** One first-assignment request; `unitKey` is the profile id, or the session id for session stickiness. */
export interface AssignmentRequest {
  experience: string;
  unitKey: string;
  proposedVariation: string;
  hashVersion: HashVersion;
}

/**
 * Sticky first assignments, the storage edge (a unique key on (project, experience, unit),
 * insert-if-absent). Called only for units that are enrolled after targeting, namespace and traffic.
 */
export interface AssignmentPort {
  /**
   * Stores each request's `proposedVariation` unless its unit already has one, and answers the stored variations in
   * the order asked: one call per Choose request, so one round trip at most. Answers at once, without a promise, when
   * it can (a cache holds every answer).
   */
  getOrCreateAssignments(requests: readonly AssignmentRequest[]): readonly string[] | PromiseLike<readonly string[]>;
  /**
   * Optional: the unit's stored variations known without I/O (a cache), by experience name, or undefined. Lets the
   * engine serve an experiment that enrolls every unit without hashing (see CompiledExperience.enrollsEveryUnit).
   * Asked once per unit and request. A variation in the map never changes (stored assignments never do); entries may
   * be added.
   */
  knownAssignments?(unitKey: string): ReadonlyMap<string, string> | undefined;
}

export interface FeedContext {
  experience: string;
  profileId: string;
  sessionId?: string;
  device?: Device;
  /** The product the page is about (the request's `productId`). */
  productId?: string;
  /** Products the answer's other feed-backed experiences show: a feed that dedupes leaves them out. */
  onPage?: readonly string[];
}

/** A feed answer as the service records it: the products and the answer's `recommendationId`. */
export interface FeedBody {
  products: readonly Readonly<Record<string, unknown>>[];
  recommendationId: string;
}

/** What every feed answers a person in the project's recommendations holdout. */
export interface HoldoutBody {
  products: readonly never[];
  holdout: true;
}

/**
 * Products of feed `feedId` for this visitor, each `{id, …fields}`: a list, or the whole body of the choice as it is:
 * the service's recorded answer (`{products, recommendationId}`), or the holdout's (`{products: [], holdout: true}`).
 */
export type FeedProductsPort = (
  feedId: number,
  limit: number,
  context: FeedContext,
) => PromiseLike<readonly Readonly<Record<string, unknown>>[] | FeedBody | HoldoutBody>;

/** Structurally compatible with pino / Fastify's `app.log`. */
export interface ChooseLogger {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface ChooseDeps {
  assignments: AssignmentPort;
  /** Absent until recommendations land: feed-backed experiences are then skipped with one warning each. */
  feedProducts?: FeedProductsPort;
  /**
   * Whether feed `feedId` leaves out what the answer's other feed-backed experiences show (`dedupe`). Without it, an
   * answer's feeds are asked at once and may repeat a product.
   */
  feedDedupes?: (feedId: number) => boolean;
  logger?: ChooseLogger;
  /** Saved groups for `$inGroup` / `$notInGroup` in conditions. */
  savedGroups?: SavedGroups;
}
