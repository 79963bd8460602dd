import type { Choice } from '../../wire/choose.js';
import type { OfrepEvaluationSuccess, OfrepReason } from '../../wire/api/ofrep-schema.js';
import type { ExperienceConfig } from '../config/config-types.js';

/** An experience as a flag: whether the Choose API may serve it, and why it has the value it serves. */
export interface Flag {
  key: string;
  /** False for a draft, an experiment stopped without a winner, or an experience with nothing to serve. */
  live: boolean;
  /** Its unit is the session (`stickiness: "session"`), so a context without `sessionId` cannot be answered. */
  bySession: boolean;
  /** The reason of a choice served (SPLIT, TARGETING_MATCH or STATIC). */
  servedReason: OfrepReason;
  /** Feed-backed: its value is a feed's answer, `{products, recommendationId}`, issued anew by each evaluation. */
  feed: boolean;
}

function hasCondition(experience: ExperienceConfig): boolean {
  return experience.condition != null && Object.keys(experience.condition).length > 0;
}

/** Devices that leave one out: the experience is for some visitors only. */
function someDevices(experience: ExperienceConfig): boolean {
  const devices = experience.devices;
  return devices != null && !(devices.includes('mobile') && devices.includes('desktop'));
}

/**
 * The reason of what a personalization or a feed serves: who it is for decides (a condition or devices: a targeting
 * match), then how many (a share of traffic or a namespace: a split), and otherwise everyone gets it: the same body
 * (static), or a feed's products for this person (a targeting match).
 */
function servedReasonOf(experience: ExperienceConfig, feed: boolean): OfrepReason {
  if (hasCondition(experience) || someDevices(experience)) return 'TARGETING_MATCH';
  if ((experience.traffic ?? 100) < 100 || experience.namespace != null) return 'SPLIT';
  return feed ? 'TARGETING_MATCH' : 'STATIC';
}

/**
 * Reads an experience as a flag, from the fields the Choose API's compile step reads (compileExperiences): what it
 * may serve is decided there, this says only why. An experiment is a `SPLIT` whatever its targeting: a condition
 * decides who is enrolled (the others are `DEFAULT`), the variation is the split's. A stopped experiment's winner is
 * `STATIC`: everyone gets it, nothing is stored.
 * @example flagOf({ name: 'hero', variations: [...] }) // { key: 'hero', live: true, bySession: false, servedReason: 'SPLIT', feed: false }
 */
export function flagOf(experience: ExperienceConfig): Flag {
  const flag = { key: experience.name, live: true, bySession: experience.stickiness === 'session', feed: false };
  if (experience.status === 'draft') return { ...flag, live: false, servedReason: 'DISABLED' };
  if (experience.status === 'stopped') {
    return experience.winner === undefined
      ? { ...flag, live: false, servedReason: 'DISABLED' }
      : { ...flag, bySession: false, servedReason: 'STATIC' };
  }
  if (Array.isArray(experience.variations) && experience.variations.length > 0) return { ...flag, servedReason: 'SPLIT' };
  if (experience.feed != null) return { ...flag, feed: true, servedReason: servedReasonOf(experience, true) };
  if (experience.body != null) return { ...flag, servedReason: servedReasonOf(experience, false) };
  return { ...flag, live: false, servedReason: 'DISABLED' };
}

/**
 * The flag's evaluation from the Choose API's choice for it: the variation's name as `variant` and its body as
 * `value`; no choice is `DEFAULT` (live but serving this person nothing), and a flag that is not live `DISABLED`,
 * both without a value (the caller's code default stands).
 */
export function evaluationOf(flag: Flag, choice: Choice | undefined): OfrepEvaluationSuccess {
  if (!flag.live) return { key: flag.key, reason: 'DISABLED' };
  if (choice === undefined) return { key: flag.key, reason: 'DEFAULT' };
  const evaluation: OfrepEvaluationSuccess = { key: flag.key, reason: flag.servedReason };
  if (choice.variation !== undefined) evaluation.variant = choice.variation;
  evaluation.value = choice.body;
  return evaluation;
}

/** The project's experiences as flags, each name once (the first, as the Choose API serves it), in config order. */
export function flagsOf(experiences: readonly ExperienceConfig[] | undefined): Flag[] {
  const seen = new Set<string>();
  const flags: Flag[] = [];
  for (const experience of experiences ?? []) {
    if (seen.has(experience.name)) continue;
    seen.add(experience.name);
    flags.push(flagOf(experience));
  }
  return flags;
}
