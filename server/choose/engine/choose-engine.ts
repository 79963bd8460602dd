// The Choose API's engine: pure and storage-agnostic. It decides who is enrolled and in which variation
// from the compiled config and hashing alone; the only I/O is the ports it is given (sticky assignments for enrolled
// units, feed products). It keeps no state between calls and never changes the compiled config it is given.

import { chooseVariation } from './choose-variation.js';
import { ChooseError } from './choose-error.js';
import type {
  AssignmentRequest,
  ChooseDeps,
  ChooseOptions,
  ChooseRequest,
  ChooseResult,
  Choice,
  FeedContext,
  FeedProductsPort,
} from './choose-types.js';
import { makeChoice } from './compile-experiences.js';
import type { CompiledExperience, CompiledExperiences } from './compile-experiences.js';
import { evalCondition } from '../../config/condition.js';
import { hash, hashV2FromSeedState } from './hash.js';
import { inNamespace } from './in-namespace.js';

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
  const selected = new Set<CompiledExperience>();
  if (names) {
    for (const name of names) {
      const experience = compiled.byName.get(name);
      if (experience) selected.add(experience);
    }
  }
  if (groups && groups.length > 0) {
    const members = groups.length === 1 ? compiled.byGroup.get(groups[0]!) : compiled.list;
    for (const experience of members ?? []) {
      if (experience.group !== undefined && (groups.length === 1 || groups.includes(experience.group))) selected.add(experience);
    }
  }
  return [...selected];
}

/** The config's choice for the unit's stored variation of `experience`, or undefined (none known, or removed). */
function knownChoice(experience: CompiledExperience, known: ReadonlyMap<string, string>): Readonly<Choice> | undefined {
  const variation = known.get(experience.assignmentKey);
  const index = variation === undefined ? undefined : experience.variationIndex.get(variation);
  return index === undefined ? undefined : experience.choices[index];
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
 * Per experience, in order: an experiment stopped with a winner serves it to everyone, neither stored nor exposed;
 * a QA `force` (apiKey callers) wins and is neither stored nor exposed; then `devices`, the unit (profile, or session
 * with `stickiness: "session"`), `condition`, `namespace` and `traffic` decide enrollment; an enrolled unit of an
 * experiment gets the variation of its hash bucket as a proposal and the assignment port returns the variation stored
 * at its first assignment, which is what is served (so weight changes move nobody already assigned).
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
 * const { choices, exposed } = await chooseExperiences(compileExperiences(project.experiences ?? []),
 *   { names: ['hero-banner'], profileId: 'p-1', device: 'mobile' },
 *   { assignments: store, logger: app.log });
 */
export function chooseExperiences(
  compiled: CompiledExperiences,
  request: ChooseRequest,
  deps: ChooseDeps,
  options: ChooseOptions = {},
): ChooseResult | Promise<ChooseResult> {
  try {
    return choose(compiled, request, deps, options);
  } catch (error) {
    return Promise.reject(error);
  }
}

function choose(
  compiled: CompiledExperiences,
  request: ChooseRequest,
  deps: ChooseDeps,
  options: ChooseOptions,
): ChooseResult | Promise<ChooseResult> {
  const selected = select(compiled, request);
  const { device, sessionId, profileId } = request;
  const force = options.allowForce ? request.force : undefined;

  const choices: Choice[] = [];
  // Choices served so far that are not exposures (forced ones, winners); null while there are none.
  let unexposed: Set<Choice> | null = null;
  // The stored variations of the unit last asked about (one question per unit and request).
  let knownUnit: string | undefined;
  let known: ReadonlyMap<string, string> | undefined;
  let pendingAssignments: PendingAssignment[] | null = null;
  let pendingFeeds: PendingFeed[] | null = null;
  let attributes: unknown = null;

  for (const experience of selected) {
    const { name, group } = experience;

    // The experiment has ended: nobody is enrolled any more, so nothing is stored and results are not diluted by
    // exposures to a variation everyone now gets. A QA force is not honoured either: there is nothing left to test.
    if (experience.kind === 'winner') {
      const choice = experience.choices[0]!;
      choices.push(choice);
      (unexposed ??= new Set()).add(choice);
      continue;
    }

    if (force && experience.kind === 'experiment' && Object.hasOwn(force, name)) {
      const index = experience.variationIndex.get(force[name]!);
      if (index !== undefined) {
        const choice = experience.choices[index]!;
        choices.push(choice);
        (unexposed ??= new Set()).add(choice);
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
      attributes ??= targetingAttributes(request);
      if (!evalCondition(attributes, experience.condition, deps.savedGroups)) continue;
    }
    if (experience.namespace && !inNamespace(unit, experience.namespace)) continue;

    // A returning unit of a full-traffic experiment: its stored variation is what the assignment port would
    // answer for any proposal, so the hash is not computed. (A stored variation since removed from config takes
    // the path below, which serves today's hash for this request.)
    if (experience.enrollsEveryUnit && deps.assignments.knownAssignments) {
      if (unit !== knownUnit) {
        knownUnit = unit;
        known = deps.assignments.knownAssignments(unit);
      }
      const choice = known === undefined ? undefined : knownChoice(experience, known);
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
    } else {
      // Config validation ties every feed-backed experience to a feed, and the service gives a port for them: only a
      // caller that built its own ports gets here.
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
    const page = { profileId: request.visitorProfileId ?? profileId, sessionId, device, ...(request.productId !== undefined ? { productId: request.productId } : {}) };
    waits.push(...askFeeds(pendingFeeds, page, deps, deps.feedProducts, failedFeeds));
  }
  if (waits.length === 0) return result(choices, unexposed, failedFeeds);
  return Promise.all(waits).then(() => result(choices, unexposed, failedFeeds));
}

type FeedPage = Omit<FeedContext, 'experience' | 'onPage'>;

/**
 * Asks each feed-backed experience's feed, setting its choice's body (a failed one is added to `failed`). With
 * `deps.feedDedupes` and two feeds or more, asked as the feed batch endpoint answers a page's widgets: the feeds that
 * do not dedupe first, together, then the deduping ones one after another, each told what the answer shows before it.
 */
function askFeeds(
  pending: readonly PendingFeed[], page: FeedPage, deps: ChooseDeps, feedProducts: FeedProductsPort, failed: Set<Choice>,
): PromiseLike<unknown>[] {
  const ask = ({ choice, experience }: PendingFeed, onPage?: readonly string[]): PromiseLike<string[]> => {
    const context: FeedContext = { experience: experience.name, ...page, ...(onPage !== undefined ? { onPage } : {}) };
    return Promise.resolve(feedProducts(experience.feed!, experience.limit, context)).then(
      (answer) => {
        // A recorded answer or the holdout's is the body as it is; a bare list is the products.
        choice.body = isProductList(answer) ? { products: answer } : { ...answer };
        return (isProductList(answer) ? answer : answer.products).map((p) => String(p.id));
      },
      (error: unknown) => {
        failed.add(choice);
        deps.logger?.warn(
          { experience: experience.name, feed: experience.feed, error: String(error) },
          'Feed-backed experience skipped: the feed failed',
        );
        return [];
      },
    );
  };
  const dedupes = deps.feedDedupes;
  const deduping = dedupes === undefined || pending.length < 2 ? [] : pending.filter((p) => dedupes(p.experience.feed!));
  if (deduping.length === 0) return pending.map((p) => ask(p));
  const shown = new Set<string>();
  const show = (ids: readonly string[]): void => {
    for (const id of ids) shown.add(id);
  };
  let asked: PromiseLike<unknown> = Promise.all(pending.filter((p) => !deduping.includes(p)).map((p) => ask(p).then(show)));
  for (const p of deduping) asked = asked.then(() => ask(p, [...shown]).then(show));
  return [asked];
}

function isProductList(answer: unknown): answer is readonly Readonly<Record<string, unknown>>[] {
  return Array.isArray(answer);
}

/** The answer's choices without failed feeds, and those of them that are exposed (not in `unexposed`). */
function result(choices: Choice[], unexposed: Set<Choice> | null, failedFeeds: Set<Choice> | null): ChooseResult {
  const anyFailed = failedFeeds !== null && failedFeeds.size > 0;
  const served = anyFailed ? choices.filter((c) => !failedFeeds.has(c)) : choices;
  const exposed = unexposed === null ? served : served.filter((c) => !unexposed.has(c));
  return { choices: served, exposed };
}

function resolveAssignments(
  pending: PendingAssignment[],
  choices: Choice[],
  deps: ChooseDeps,
  waits: PromiseLike<unknown>[],
): void {
  const batch: AssignmentRequest[] = pending.map((p) => ({
    experience: p.experience.assignmentKey,
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
