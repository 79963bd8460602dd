// Per-config precomputation: everything about an experience that does not depend on the request
// (ranges, seed hash state, lookups) is computed once per config, not once per request.

import type { Device, ExperienceConfig } from '../../config/config-types.js';
import { getBucketRanges } from './bucket-ranges.js';
import { frozenWithJson } from './choices-json.js';
import type { BucketRange } from './bucket-ranges.js';
import type { Condition } from '../../config/condition.js';
import { seedState } from './hash.js';
import type { HashVersion } from './hash.js';
import type { Namespace } from './in-namespace.js';
import type { ChooseLogger, Choice } from './choose-types.js';

/** Number of products a feed-backed experience asks for when its config has no `limit`. */
export const DEFAULT_FEED_LIMIT = 10;

/** `winner`: an experiment stopped with a winner, which serves that variation to everyone (see compileWinner). */
export type ExperienceKind = 'experiment' | 'personalization' | 'feed' | 'winner';

const EMPTY_BODY: Readonly<Record<string, unknown>> = Object.freeze({});

export interface CompiledExperience {
  readonly name: string;
  readonly group: string | undefined;
  readonly kind: ExperienceKind;
  /** Null when the experience runs on every device (absent, or listing both). */
  readonly devices: readonly Device[] | null;
  readonly bySession: boolean;
  readonly condition: Condition | null;
  readonly namespace: Namespace | null;
  readonly hashVersion: HashVersion;
  readonly seed: string;
  /**
   * The name its first assignments are stored under: the experience's name, with `#n` after the n-th
   * re-randomisation, so that nobody's earlier assignment answers for the new one.
   */
  readonly assignmentKey: string;
  /** FNV state after the seed, so hash v2 walks only the unit id per request. */
  readonly seedState: number;
  /** One range per variation (a single range for personalization and feed, i.e. traffic only; none for a winner). */
  readonly ranges: readonly BucketRange[];
  /** False when every unit is enrolled in the only range, so no hash is needed at all. */
  readonly needsHash: boolean;
  /**
   * An experiment whose ranges leave no bucket out (full traffic): every unit is enrolled, so a unit whose stored
   * variation is already known is served it without hashing — the hash could only have proposed a variation
   * that the stored one replaces.
   */
  readonly enrollsEveryUnit: boolean;
  readonly variationNames: readonly string[];
  readonly bodies: readonly Readonly<Record<string, unknown>>[];
  readonly variationIndex: ReadonlyMap<string, number>;
  /**
   * The answer's choice per variation (the single body's for personalization, the winner's alone for a winner; none
   * for feed-backed experiences, whose body is built per request), frozen and shared by every request that serves it
   * as it is, so that its JSON is built once (frozenWithJson attaches it).
   */
  readonly choices: readonly Readonly<Choice>[];
  readonly feed: number | undefined;
  readonly limit: number;
}

export interface CompiledExperiences {
  readonly list: readonly CompiledExperience[];
  readonly byName: ReadonlyMap<string, CompiledExperience>;
  readonly byGroup: ReadonlyMap<string, readonly CompiledExperience[]>;
  /** Names and groups of the experiences with a `condition` (see needsTargeting). */
  readonly conditionNames: ReadonlySet<string>;
  readonly conditionGroups: ReadonlySet<string>;
}

const ALL_DEVICES: readonly Device[] = ['mobile', 'desktop'];

/** The hash seed: the experience's (default its name), with `:n` after the n-th re-randomisation. */
function seedOf(config: ExperienceConfig): string {
  const seed = config.seed ?? config.name;
  return config.randomization ? `${seed}:${config.randomization}` : seed;
}

/**
 * Where first assignments are stored: the name, with `#n` after the n-th re-randomisation. (An experience literally
 * named `hero#1` beside a twice re-randomised `hero` would share rows: a name nobody gives, and the price of keeping the
 * key readable in exports.)
 */
export function assignmentKeyOf(config: Pick<ExperienceConfig, 'name' | 'randomization'>): string {
  return config.randomization ? `${config.name}#${config.randomization}` : config.name;
}

function compileOne(config: ExperienceConfig, logger: ChooseLogger | undefined): CompiledExperience | null {
  // Drafts and experiments stopped without a winner are served to nobody: left out here, they cost requests nothing
  // and leave no assignment or exposure, as if absent from the config. Not warned about: both are normal states.
  if (config.status === 'draft') return null;
  if (config.status === 'stopped') return config.winner === undefined ? null : compileWinner(config, config.winner, logger);
  const name = config.name;
  const variations = config.variations;
  let kind: ExperienceKind;
  if (Array.isArray(variations) && variations.length > 0) kind = 'experiment';
  else if (config.feed !== undefined && config.feed !== null) kind = 'feed';
  else if (config.body !== undefined && config.body !== null) kind = 'personalization';
  else {
    logger?.warn({ experience: name }, 'Experience has no variations, feed or body; it is never served');
    return null;
  }

  const hashVersion = config.hashVersion ?? 2;
  if (hashVersion !== 1 && hashVersion !== 2) {
    // An unknown version would assign with a hash nobody can reproduce later; serve nothing instead.
    logger?.warn({ experience: name, hashVersion }, 'Experience has an unknown hashVersion; it is never served');
    return null;
  }

  const traffic = config.traffic ?? 100;
  const coverage = traffic / 100;
  const seed = seedOf(config);
  let ranges: BucketRange[];
  let variationNames: string[] = [];
  let bodies: Readonly<Record<string, unknown>>[] = [];
  const variationIndex = new Map<string, number>();
  if (kind === 'experiment' && variations) {
    // Config weights are shares of 100; GrowthBook's are shares of 1 (and fall back to equal
    // weights unless they sum to 1 ± 0.01).
    ranges = getBucketRanges(variations.length, coverage, variations.map((v) => v.weight / 100));
    variationNames = variations.map((v) => v.name);
    bodies = variations.map((v) => v.body ?? EMPTY_BODY);
    variations.forEach((v, i) => {
      if (!variationIndex.has(v.name)) variationIndex.set(v.name, i);
    });
  } else {
    ranges = getBucketRanges(1, coverage, null);
    bodies = [kind === 'personalization' && config.body ? config.body : EMPTY_BODY];
  }

  const devices = config.devices && !ALL_DEVICES.every((d) => config.devices?.includes(d)) ? config.devices : null;
  const condition = config.condition && Object.keys(config.condition).length > 0 ? config.condition : null;

  return {
    name,
    group: config.group,
    kind,
    devices,
    bySession: config.stickiness === 'session',
    condition,
    namespace: config.namespace ?? null,
    hashVersion,
    seed,
    assignmentKey: assignmentKeyOf(config),
    seedState: seedState(seed),
    ranges,
    needsHash: kind === 'experiment' || !(coverage >= 1),
    enrollsEveryUnit: kind === 'experiment' && coversEveryBucket(ranges, hashVersion),
    variationNames,
    bodies,
    variationIndex,
    choices: kind === 'feed' ? [] : bodies.map((body, i) => frozenWithJson(makeChoice(name, config.group, kind === 'experiment' ? variationNames[i] : undefined, body))),
    feed: config.feed,
    limit: config.limit ?? DEFAULT_FEED_LIMIT,
  };
}

/**
 * An experiment stopped with a winner ("ship a winner", as in GrowthBook): the experiment has ended, so devices,
 * stickiness, condition, namespace and traffic no longer decide anything and everyone who asks is served the winner's
 * one frozen choice, without a hash. The engine neither stores nor exposes it: the experiment's results stay those
 * of its running days.
 */
function compileWinner(config: ExperienceConfig, winner: string, logger: ChooseLogger | undefined): CompiledExperience | null {
  const name = config.name;
  const variation = config.variations?.find((v) => v.name === winner);
  if (variation === undefined) {
    // Config validation prevents this; a caller that compiles its own config gets nothing rather than a guess.
    logger?.warn({ experience: name, winner }, 'Experience is stopped with a winner that is not one of its variations; it is never served');
    return null;
  }
  const seed = seedOf(config);
  const body = variation.body ?? EMPTY_BODY;
  return {
    name,
    group: config.group,
    kind: 'winner',
    devices: null,
    bySession: false,
    condition: null,
    namespace: null,
    hashVersion: config.hashVersion ?? 2,
    seed,
    assignmentKey: assignmentKeyOf(config),
    seedState: seedState(seed),
    ranges: [],
    needsHash: false,
    enrollsEveryUnit: false,
    variationNames: [winner],
    bodies: [body],
    variationIndex: new Map([[winner, 0]]),
    choices: [frozenWithJson(makeChoice(name, config.group, winner, body))],
    feed: undefined,
    limit: DEFAULT_FEED_LIMIT,
  };
}

/** An answer's choice `{name, group?, variation?, body}`, without the keys it has no value for. */
export function makeChoice(
  name: string,
  group: string | undefined,
  variation: string | undefined,
  body: Readonly<Record<string, unknown>>,
): Choice {
  const choice: Choice = { name, body };
  if (group !== undefined) choice.group = group;
  if (variation !== undefined) choice.variation = variation;
  return choice;
}

/**
 * Whether every bucket the hash can give falls in a range: the ranges run on from 0 without a gap up to past the
 * largest bucket (0.9999 for hash v2, 0.999 for v1). False when traffic leaves units out.
 */
function coversEveryBucket(ranges: readonly BucketRange[], hashVersion: HashVersion): boolean {
  const largestBucket = hashVersion === 2 ? 0.9999 : 0.999;
  let end = 0;
  for (const [start, stop] of ranges) {
    if (start !== end) return false;
    end = stop;
  }
  return end > largestBucket;
}

/**
 * Precompute a project's experiences. Invalid experiences are left out (with a warning) rather
 * than failing every request. The first experience of a name wins; later duplicates are ignored.
 *
 * @example const compiled = compileExperiences(project.experiences ?? [], app.log);
 */
export function compileExperiences(
  experiences: readonly ExperienceConfig[],
  logger?: ChooseLogger,
): CompiledExperiences {
  const list: CompiledExperience[] = [];
  const byName = new Map<string, CompiledExperience>();
  const byGroup = new Map<string, CompiledExperience[]>();
  for (const config of experiences) {
    if (byName.has(config.name)) {
      logger?.warn({ experience: config.name }, 'Duplicate experience name; only the first is served');
      continue;
    }
    const compiled = compileOne(config, logger);
    if (!compiled) continue;
    list.push(compiled);
    byName.set(compiled.name, compiled);
    if (compiled.group !== undefined) {
      const members = byGroup.get(compiled.group);
      if (members) members.push(compiled);
      else byGroup.set(compiled.group, [compiled]);
    }
  }
  const withCondition = list.filter((e) => e.condition !== null);
  return {
    list, byName, byGroup,
    conditionNames: new Set(withCondition.map((e) => e.name)),
    conditionGroups: new Set(withCondition.flatMap((e) => (e.group === undefined ? [] : [e.group]))),
  };
}

/**
 * Whether any experience the request may select has a `condition`. Only then are profile and account attributes
 * read: most requests target nobody and so cost no attribute round trips.
 */
export function needsTargeting(
  compiled: CompiledExperiences, names: readonly string[] | undefined, groups: readonly string[] | undefined,
): boolean {
  if (compiled.conditionNames.size === 0) return false;
  if (names?.some((n) => compiled.conditionNames.has(n))) return true;
  return groups?.some((g) => compiled.conditionGroups.has(g)) ?? false;
}
