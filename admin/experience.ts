// An experience as the management API stores and answers it: the shapes are the API's own (wire/api/item-schema.ts,
// their types the schemas'), imported as types only, so the console's bundle carries no service code and no schema.
import type {
  AuditEntry as ApiAuditEntry, BanditSettings, Device, ExperienceAnswer, ExperienceItem as ApiExperienceItem, ExperienceStatus,
  FeedAnswerItem, Variation,
} from '../wire/api/item-schema.js';
import type { AutomaticStop } from '../wire/automatic-stop.js';

export type { AutomaticStop, BanditSettings, Device, ExperienceStatus, Variation };

/**
 * One experience as `PUT …/experiences/{name}` takes it. Fields the console does not edit (stickiness, namespace,
 * seed, hashVersion, and any the service adds later) are carried through unchanged, hence the index signature.
 */
export type ExperienceItem = ApiExperienceItem & { [field: string]: unknown };

/** What an experience serves: variations (an experiment), one body (content for everyone) or a feed. */
export type ExperienceKind = 'experiment' | 'content' | 'feed';

export const DEVICES: readonly Device[] = ['mobile', 'desktop'];

/** An experience as the API answers it: the item plus its version (the ETag), where it comes from, its status. */
export type Experience = ExperienceAnswer & { [field: string]: unknown };

/** A feed as the API answers it (an experience's feed is picked from these). */
export type Feed = FeedAnswerItem;

/** An entry of a project's audit log (`GET …/audit`); the console reads its actor as possibly absent. */
export type AuditEntry = Omit<ApiAuditEntry, 'actor'> & Partial<Pick<ApiAuditEntry, 'actor'>>;

/** How an experiment's traffic is split: the variations' weights as set (`fixed`), or moved by a bandit. */
export type Allocation = NonNullable<ApiExperienceItem['allocation']>;

/** The service's defaults for a bandit's settings (server/config/bandit-settings.ts): one at its default is not written. */
export const BANDIT_DEFAULTS = { explorationUnits: 0, explorationHours: 24, cadenceMinutes: 60, minShare: 1 } as const;

/** The service refuses a bandit that reweights more often than this. */
export const MIN_CADENCE_MINUTES = 5;

/** The service's defaults for an experiment's analysis settings: a setting at its default is not written. */
export const ANALYSIS_DEFAULTS = { alpha: 0.05, sequential: false, sequentialTuning: 5000, correction: 'none' } as const;

export function kindOf(e: ExperienceItem): ExperienceKind {
  if (e.variations !== undefined) return 'experiment';
  return e.feed !== undefined ? 'feed' : 'content';
}

/** The item to write back: what the API added to its answer (version, source) is not part of it. */
export function itemOf(e: Experience): ExperienceItem {
  const { version: _version, source: _source, ...item } = e;
  return item;
}
