// The Choose API's engine (DESIGN 3.5): pure and storage-agnostic. It decides who is enrolled and
// in which variation from config and hashing alone; the only I/O is the ports it is given (sticky
// assignments for enrolled units, feed products), so a request costs no other database round trip.

import type { ExperienceConfig } from '../config/config-types.js';
import { chooseVariation } from './choose-variation.js';
import { ChooseError } from './choose-error.js';
import type {
  AssignmentRequest,
  ChooseDeps,
  ChooseOptions,
  ChooseRequest,
  ChooseResult,
  Choice,
} from './choose-types.js';
import { compiledFor, makeChoice } from './compile-experiences.js';
import type { CompiledExperience, CompiledExperiences } from './compile-experiences.js';
import { evalCondition } from './condition.js';
import { hash, hashV2FromSeedState } from './hash.js';
import { inNamespace } from './in-namespace.js';
import { sameElements } from './same-elements.js';

/**
 * An experiment whose variation waits for the assignment port: its place in the answer holds the config's choice of
 * the proposed variation until then, and the stored variation's replaces it (a config choice either way, so its
 * JSON and its exposure pair are built once per config, not per new visitor).
 */
interface PendingAssignment {
  position: number;
  experience: CompiledExperience;
  unit: string;
  proposed: number;
}

/** A feed-backed experience whose body waits for the feed port. */
interface PendingFeed {
  choice: Choice;
  experience: CompiledExperience;
}

/**
 * The experiences the request asks for, each once: `names` in request order, then the members of
 * `groups` in config order.
 */
function select(compiled: CompiledExperiences, request: ChooseRequest): readonly CompiledExperience[] {
  const { names, groups } = request;
  if (names == null && groups == null) {
    throw new ChooseError('names_or_groups_required', "Send 'names' or 'groups' to choose experiences.");
  }
  if (names && groups == null) {
    const last = compiled.lastNames;
    if (last !== null && sameElements(last, names)) return compiled.lastSelected;
  }
  // Selection is synchronous, so a generation stamp on each compiled experience is a safe dedup.
  const generation = ++compiled.generation;
  const selected: CompiledExperience[] = [];
  if (names) {
    for (const name of names) {
      const experience = compiled.byName.get(name);
      if (experience && experience.seen !== generation) {
        experience.seen = generation;
        selected.push(experience);
      }
    }
  }
  if (groups && groups.length > 0) {
    const members = groups.length === 1 ? compiled.byGroup.get(groups[0]!) : compiled.list;
    if (members) {
      for (const experience of members) {
        if (experience.seen === generation || experience.group === undefined) continue;
        if (groups.length > 1 && !groups.includes(experience.group)) continue;
        experience.seen = generation;
        selected.push(experience);
      }
    }
  }
  if (names && groups == null) {
    compiled.lastNames = names.slice();
    compiled.lastSelected = selected;
  }
  return selected;
}

/**
 * One unit's known stored variations (AssignmentPort.knownAssignments), resolved against one compiled config: the
 * config's frozen choice per experience ordinal, filled as experiences are looked up. A stored variation never
 * changes, so a filled slot never goes stale; a new config compiles anew and starts anew.
 */
interface ResolvedChoices {
  byOrdinal: (Readonly<Choice> | undefined)[];
  /** The last answer served with this unit's known variations, frozen; see `sameAsLast`. */
  last: ChooseResult | null;
}

// Per compiled config, then keyed by the known-assignments map itself (the assignment cache's per-unit map): a
// returning unit's request indexes an array per experience instead of two map lookups (experience → variation →
// choice). Per config, so a config replaced by a reload goes with everything resolved against it.
const resolvedChoices = new WeakMap<CompiledExperiences, WeakMap<ReadonlyMap<string, string>, ResolvedChoices>>();

function resolvedFor(known: ReadonlyMap<string, string>, compiled: CompiledExperiences): ResolvedChoices {
  let forConfig = resolvedChoices.get(compiled);
  if (forConfig === undefined) {
    forConfig = new WeakMap();
    resolvedChoices.set(compiled, forConfig);
  }
  let resolved = forConfig.get(known);
  if (resolved === undefined) {
    resolved = { byOrdinal: new Array<Readonly<Choice> | undefined>(compiled.list.length).fill(undefined), last: null };
    forConfig.set(known, resolved);
  }
  return resolved;
}

/** The config's choice for the unit's stored variation of `experience`, or undefined (none known, or removed). */
function knownChoice(
  experience: CompiledExperience, known: ReadonlyMap<string, string>, resolved: ResolvedChoices,
): Readonly<Choice> | undefined {
  const memo = resolved.byOrdinal[experience.ordinal];
  if (memo !== undefined) return memo;
  const variation = known.get(experience.name);
  const index = variation === undefined ? undefined : experience.variationIndex.get(variation);
  if (index === undefined) return undefined;
  const choice = experience.choices[index]!;
  resolved.byOrdinal[experience.ordinal] = choice;
  return choice;
}

/** The unit's position in [0, 1) for this experience: its seed, its hash version. */
function bucketOf(experience: CompiledExperience, unit: string): number {
  return experience.hashVersion === 2
    ? hashV2FromSeedState(experience.seedState, unit)
    : (hash(experience.seed, unit, 1) ?? -1);
}

/**
 * Resolve a Choose request against a project's experiences.
 *
 * Per experience, in order: a QA `force` (apiKey callers) wins and is neither stored nor exposed;
 * then `devices`, the unit (profile, or session with `stickiness: "session"`), `condition`,
 * `namespace` and `traffic` decide enrollment; an enrolled unit of an experiment gets the variation
 * of its hash bucket as a proposal and the assignment port returns the variation stored at its
 * first assignment, which is what is served (so weight changes move nobody already assigned).
 *
 * If the stored variation no longer exists in config (it was removed), the unit is served the
 * variation its hash picks today, for this request only: the stored record is kept, so restoring
 * the variation brings the unit back to it. Units outside `traffic` are not looked up at all, so
 * lowering traffic un-enrolls some previously assigned units (as in GrowthBook).
 *
 * Answers at once when no port answers asynchronously (a returning unit whose assignments are cached: the
 * common request needs no promise), else a promise. Rejects with {@link ChooseError} for bad input before any port
 * is called (a rejected promise, never a synchronous throw). A failing feed port skips that experience with a
 * warning; a failing assignment port rejects, since serving an unstored variation could flip a unit on the next
 * request.
 *
 * @example
 * const { choices, exposed } = await chooseExperiences(project.experiences ?? [],
 *   { names: ['hero-banner'], profileId: 'p-1', device: 'mobile' },
 *   { assignments: store, logger: app.log });
 */
export function chooseExperiences(
  experiences: readonly ExperienceConfig[],
  request: ChooseRequest,
  deps: ChooseDeps,
  options: ChooseOptions = {},
): ChooseResult | Promise<ChooseResult> {
  try {
    return choose(experiences, request, deps, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

function choose(
  experiences: readonly ExperienceConfig[],
  request: ChooseRequest,
  deps: ChooseDeps,
  options: ChooseOptions,
): ChooseResult | Promise<ChooseResult> {
  const compiled = compiledFor(experiences, deps.logger);
  const selected = select(compiled, request);
  const { device, sessionId, profileId } = request;
  const force = options.allowForce ? request.force : undefined;

  const choices: Choice[] = [];
  // Forced choices served so far (not exposures); null while there are none.
  let forced: Set<Choice> | null = null;
  // The stored variations of the unit last asked about (one question per unit and request).
  let knownUnit: string | undefined;
  let known: ReadonlyMap<string, string> | undefined;
  let resolved: ResolvedChoices | undefined;
  let pendingAssignments: PendingAssignment[] | null = null;
  let pendingFeeds: PendingFeed[] | null = null;
  let attributes: unknown = null;
  let conditions: ConditionResults | null = null;

  for (const experience of selected) {
    const { name, group } = experience;

    if (force && experience.kind === 'experiment' && Object.hasOwn(force, name)) {
      const index = experience.variationIndex.get(force[name]!);
      if (index !== undefined) {
        const choice = experience.choices[index]!;
        choices.push(choice);
        (forced ??= new Set()).add(choice);
        continue;
      }
    }

    if (experience.devices && (device === undefined || !experience.devices.includes(device))) continue;

    let unit: string;
    if (experience.bySession) {
      if (!sessionId) {
        throw new ChooseError(
          'session_id_required',
          `Experience '${name}' is sticky by session: 'sessionId' is required.`,
        );
      }
      unit = sessionId;
    } else {
      unit = profileId;
    }

    if (experience.condition) {
      if (attributes === null) {
        attributes = targetingAttributes(request);
        conditions = conditionResultsFor(attributes, compiled, deps.savedGroups);
      }
      if (!conditionHolds(experience, attributes, conditions, deps.savedGroups)) continue;
    }
    if (experience.namespace && !inNamespace(unit, experience.namespace)) continue;

    // A returning unit of a full-traffic experiment: its stored variation is what the assignment port would
    // answer for any proposal, so the hash is not computed. (A stored variation since removed from config takes
    // the path below, which serves today's hash for this request.)
    if (experience.enrollsEveryUnit && deps.assignments.knownAssignments) {
      if (unit !== knownUnit) {
        knownUnit = unit;
        known = deps.assignments.knownAssignments(unit);
        resolved = known === undefined ? undefined : resolvedFor(known, compiled);
      }
      const choice = known === undefined ? undefined : knownChoice(experience, known, resolved!);
      if (choice !== undefined) {
        choices.push(choice);
        continue;
      }
    }

    let index = 0;
    if (experience.needsHash) {
      index = chooseVariation(bucketOf(experience, unit), experience.ranges);
      if (index < 0) continue;
    }

    if (experience.kind === 'experiment') {
      (pendingAssignments ??= []).push({ position: choices.length, experience, unit, proposed: index });
      choices.push(experience.choices[index]!);
    } else if (experience.kind === 'personalization') {
      choices.push(experience.choices[0]!);
    } else if (deps.feedProducts) {
      const choice = makeChoice(name, group, undefined, experience.bodies[0]!);
      (pendingFeeds ??= []).push({ choice, experience });
      choices.push(choice);
    } else if (!experience.feedWarned) {
      experience.feedWarned = true;
      deps.logger?.warn(
        { experience: name, feed: experience.feed },
        'Feed-backed experience skipped: no feed products port is configured',
      );
    }
  }

  // Ports run only after every check passed, so bad input never stores anything; assignments and
  // feeds are awaited together.
  const waits: PromiseLike<unknown>[] = [];
  if (pendingAssignments) resolveAssignments(pendingAssignments, choices, deps, waits);
  const failedFeeds = pendingFeeds ? new Set<Choice>() : null;
  if (pendingFeeds && failedFeeds && deps.feedProducts) {
    const feedProducts = deps.feedProducts;
    for (const { choice, experience } of pendingFeeds) {
      const context = { experience: experience.name, profileId, sessionId, device };
      waits.push(
        Promise.resolve(feedProducts(experience.feed!, experience.limit, context)).then(
          (products) => {
            choice.body = { products };
          },
          (error: unknown) => {
            failedFeeds.add(choice);
            deps.logger?.warn(
              { experience: experience.name, feed: experience.feed, error: String(error) },
              'Feed-backed experience skipped: the feed failed',
            );
          },
        ),
      );
    }
  }
  if (waits.length === 0) {
    return resolved !== undefined && forced === null && pendingFeeds === null ? sameAsLast(resolved, choices) : result(choices, forced, failedFeeds);
  }
  return Promise.all(waits).then(() => result(choices, forced, failedFeeds));
}

/**
 * The unit's last answer when `choices` are the same choice objects (a returning unit asking for the same
 * experiences again: every page view of a visit does), so the caller sees the same frozen result and can reuse
 * what it derived from it (its JSON text, its exposures being repeats); otherwise this answer, remembered.
 */
function sameAsLast(resolved: ResolvedChoices, choices: Choice[]): ChooseResult {
  const last = resolved.last;
  if (last !== null && sameElements(last.choices, choices)) return last;
  Object.freeze(choices);
  resolved.last = Object.freeze({ choices, exposed: choices });
  return resolved.last;
}

/** The answer's choices without failed feeds, and those of them that are exposed (not forced). */
function result(choices: Choice[], forced: Set<Choice> | null, failedFeeds: Set<Choice> | null): ChooseResult {
  const anyFailed = failedFeeds !== null && failedFeeds.size > 0;
  const served = anyFailed ? choices.filter((c) => !failedFeeds.has(c)) : choices;
  const exposed = forced === null ? served : served.filter((c) => !forced.has(c));
  return { choices: served, exposed };
}

/**
 * The conditions' results for one attributes object and compiled config, by experience ordinal, filled as they are
 * evaluated. Kept only for a frozen attributes object, which is taken as unchanging, nested values included: the
 * route's are (targeting-attributes.ts), and it serves the same object while the profile's stored attributes are
 * cached, so its conditions are evaluated once, not on every request.
 */
interface ConditionResults {
  compiled: CompiledExperiences;
  savedGroups: ChooseDeps['savedGroups'];
  byOrdinal: (boolean | undefined)[];
}

const conditionResults = new WeakMap<object, ConditionResults>();

function conditionResultsFor(attributes: unknown, compiled: CompiledExperiences, savedGroups: ChooseDeps['savedGroups']): ConditionResults | null {
  if (typeof attributes !== 'object' || attributes === null) return null;
  let results = conditionResults.get(attributes);
  if (results === undefined || results.compiled !== compiled || results.savedGroups !== savedGroups) {
    // Asked only for an object not seen yet (a frozen one stays frozen): Object.isFrozen is a call into the runtime.
    if (results === undefined && !Object.isFrozen(attributes)) return null;
    results = { compiled, savedGroups, byOrdinal: new Array<boolean | undefined>(compiled.list.length).fill(undefined) };
    conditionResults.set(attributes, results);
  }
  return results;
}

function conditionHolds(
  experience: CompiledExperience, attributes: unknown, results: ConditionResults | null, savedGroups: ChooseDeps['savedGroups'],
): boolean {
  const known = results?.byOrdinal[experience.ordinal];
  if (known !== undefined) return known;
  const holds = evalCondition(attributes, experience.condition!, savedGroups);
  if (results !== null) results.byOrdinal[experience.ordinal] = holds;
  return holds;
}

function resolveAssignments(
  pending: PendingAssignment[],
  choices: Choice[],
  deps: ChooseDeps,
  waits: PromiseLike<unknown>[],
): void {
  const batch: AssignmentRequest[] = pending.map((p) => ({
    experience: p.experience.name,
    unitKey: p.unit,
    proposedVariation: p.experience.variationNames[p.proposed]!,
    hashVersion: p.experience.hashVersion,
  }));
  const stored = deps.assignments.getOrCreateAssignments(batch);
  const apply = (answers: readonly string[]): void => {
    for (let i = 0; i < pending.length; i++) applyStored(pending[i]!, answers[i], choices);
  };
  // Answered at once (every assignment cached): no promise at all.
  if (Array.isArray(stored)) apply(stored as readonly string[]);
  else waits.push(Promise.resolve(stored).then(apply));
}

/** Serve the stored variation; keep the proposal if it was removed from config (see chooseExperiences). */
function applyStored(p: PendingAssignment, stored: string | undefined, choices: Choice[]): void {
  if (stored === undefined) return;
  const index = p.experience.variationIndex.get(stored);
  if (index === undefined || index === p.proposed) return;
  choices[p.position] = p.experience.choices[index]!;
}

function targetingAttributes(request: ChooseRequest): unknown {
  const { attributes, device } = request;
  if (device === undefined || (attributes && Object.hasOwn(attributes, 'device'))) return attributes ?? {};
  return { ...attributes, device };
}
