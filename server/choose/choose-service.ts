import type { AuthResult } from '../auth/authenticate.js';
import type { ProjectRef } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import type { CanonicalProfileCache } from '../identity/canonical-profile-cache.js';
import { profileTargetingProgram, type StoredTargeting } from '../identity/identity-programs.js';
import { canonicalProfile, resolveUser } from '../identity/identity-store.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';
import type { FeedService } from '../recommendations/feed-service.js';
import { feedDedupes, feedProductsPort } from './feed-products-port.js';
import type { Storage } from '../storage/storage.js';
import { AssignmentCache } from './assignment-cache.js';
import { choicesJson } from './engine/choices-json.js';
import { chooseStore, type ChooseStore } from './choose-store.js';
import { chooseExperiences } from './engine/choose-engine.js';
import { ChooseError } from './engine/choose-error.js';
import { compileExperiences, needsTargeting, type CompiledExperiences } from './engine/compile-experiences.js';
import type { ChooseDeps, ChooseLogger, ChooseRequest, ChooseResult } from './engine/choose-types.js';
import { ExposureDedupe } from './exposure-dedupe.js';
import { ExposureWriter, type ExposureWriterLogger } from './exposure-writer.js';
import type { ExposureSet } from './exposure-programs.js';
import type { AssignmentInput } from './assignment-programs.js';
import { proposingAssignmentPort, storageAssignmentPort } from './storage-assignment-port.js';
import { TargetingAttributeCache } from './targeting-attribute-cache.js';
import { loadTargetingAttributes, withRequestFacts } from './targeting-attributes.js';
import type { ValidChooseRequest } from './validate-choose-request.js';
import { HOLDOUT_EXPERIMENT, HOLDOUT_VARIATION } from '../config/recommendations-holdout.js';
import type { ChooseAnswer } from '../../wire/choose.js';
import { holdoutFeeds } from './holdout-feeds.js';
import { HoldoutPhases } from '../phases/holdout-phases.js';

/** How long a node reuses a profile's stored targeting attributes (README "Choose API"). */
export const TARGETING_TTL_MS = 10_000;

export interface ChooseServiceOptions {
  storage: Storage;
  feeds: FeedService;
  /** Profile → canonical profile; the track route clears it when this node stores an identify or alias. */
  canonicalProfiles: CanonicalProfileCache;
  now: () => number;
  /** Counts the first assignments and exposures written. */
  metrics: Pick<ServiceMetrics, 'assignmentsWritten' | 'exposuresWritten'>;
  logger: ChooseLogger & ExposureWriterLogger & { error(details: Record<string, unknown>, message: string): void };
  /**
   * Erased profiles and users (this node's copy of the suppression list): a request naming one, or resolving to one, is
   * answered without any experience, and nothing is stored.
   */
  suppressions?: { hasProfile(project: string, profileId: string): boolean; hasUser(project: string, userId: string): boolean };
}

/** A project's compiled experiences and the engine's ports for it. */
interface PreparedProject {
  compiled: CompiledExperiences;
  deps: ChooseDeps;
}

/** A Choose request on its way to the answer (ChooseService's stages). */
interface Pending {
  auth: AuthResult;
  body: ValidChooseRequest;
  /** The profile the caller identified (form A), or the one form B's userId resolved to. */
  profileId: string;
}

/**
 * The Choose API of one app, built once in buildApp: it owns the per-node caches (assignments,
 * targeting attributes, exposure dedupe), the writer of first assignments and exposures, and each project's engine
 * ports; the route only authenticates, parses and sends what `answer()` returns.
 *
 * Order of work, cheapest refusal first: the whole body is validated (400, no lookup yet), then the identification
 * is checked against the key (403) and resolved (form B: 400 `unknown_user`), then the engine runs; the answer is
 * sent once its first assignments and its exposures are committed (not yet flushed to disk: the README's "What a
 * crash can lose").
 *
 * The unit of `stickiness: "profile"` is the person's canonical profile (canonicalProfile in identity-store.ts): once
 * a profile is identified as a user, it shares the assignments of the first profile linked to that user, and form B's
 * userId resolves to that same profile. So an anonymous visitor keeps the variation after log-in, and a second device
 * of the same person gets it too once identified.
 * @example const choose = new ChooseService({ storage, feeds, canonicalProfiles, metrics, now: Date.now, logger: app.log });
 */
export class ChooseService {
  private readonly sink: ChooseStore;
  private readonly writer: ChooseStore;
  private readonly exposures: ExposureWriter;
  private readonly dedupe = new ExposureDedupe();
  private readonly assignmentCache = new AssignmentCache();
  /** Stored targeting attributes for 10 s (staleness is acceptable for targeting). */
  private readonly targetingCache: TargetingAttributeCache;
  private readonly holdoutPhases: HoldoutPhases;
  /**
   * A project's compiled experiences and engine ports, built on its first request (a reload brings new project
   * objects).
   */
  private readonly projects = new WeakMap<ProjectRef, PreparedProject>();

  constructor(private readonly options: ChooseServiceOptions) {
    this.writer = chooseStore(options.storage);
    this.sink = countedWrites(this.writer, options.metrics);
    this.exposures = new ExposureWriter(this.sink, { logger: options.logger });
    this.targetingCache = new TargetingAttributeCache(options.now, TARGETING_TTL_MS);
    this.holdoutPhases = new HoldoutPhases(options.storage, options.now);
  }

  /**
   * The JSON text of the answer to an authenticated request's body: at once when nothing must be read or written (a
   * returning visitor in a session already exposed), else a promise. Throws or rejects with a ServiceError.
   */
  answer(auth: AuthResult, body: ValidChooseRequest): string | Promise<string> {
    const project = auth.project;
    const identification = body.identification;
    if (identification.form === 'user') {
      // A writeKey is public (it ships in every page), so accepting a userId from it would let anyone read any
      // known user's assignments: form B is for server-side apiKey callers.
      if (auth.kind !== 'apiKey') {
        throw new ServiceError('identification_not_allowed', "identification.userId: needs an apiKey; browser callers send {sourceId, profileId}.");
      }
      // An erased user: answered as an erased profile is, before any read.
      if (this.options.suppressions?.hasUser(project.key, identification.userId)) return NO_CHOICES;
      return this.fromStorage(resolveUser(this.options.storage, project.key, identification.userId)).then((resolved) => {
        if (resolved === null) {
          throw new ServiceError('unknown_user', `identification.userId: no profile is linked to user ${quoted(identification.userId)}.`);
        }
        // resolveUser already answers the person's canonical profile.
        return this.withUnit({ auth, body, profileId: resolved }, resolved);
      });
    }
    if (!project.config.sources.includes(identification.sourceId)) {
      throw new ServiceError('source_not_allowed', `The source ${quoted(identification.sourceId)} is not a source of this project.`);
    }
    // An erased person's browser, still holding the old profile id: the site's defaults, and nothing of it stored.
    if (this.options.suppressions?.hasProfile(project.key, identification.profileId)) return NO_CHOICES;
    const pending: Pending = { auth, body, profileId: identification.profileId };
    const canonicalProfiles = this.options.canonicalProfiles;
    // Remembered for 2 s and cleared when this node stores a link (canonical-profile-cache.ts).
    const cached = canonicalProfiles.get(project.key, pending.profileId);
    if (cached !== undefined) return this.withUnit(pending, cached);
    const generation = canonicalProfiles.generation;
    const targeting = needsTargeting(this.prepared(project).compiled, body.names, body.groups);
    if (targeting && this.targetingCache.holds(project.key, pending.profileId)) return this.readCanonical(pending, generation);
    // Nothing of this profile, its assignments or its session is remembered: a new visitor, mostly. Answered as one
    // (firstVisit). A profile whose assignments are remembered has been served before: it is read, not guessed.
    if (this.assignmentCache.unitAssignments(project.key, pending.profileId) === undefined
      && !this.dedupe.holdsSession(project.key, pending.profileId, body.sessionId)) {
      return this.firstVisit(pending, targeting, generation);
    }
    return this.read(pending, targeting, generation);
  }

  /** The canonical profile, then the rest (withUnit); with targeting, its stored targeting in the same read. */
  private read(pending: Pending, targeting: boolean, generation: number): Promise<string> {
    const { auth: { project }, profileId } = pending;
    if (!targeting) return this.readCanonical(pending, generation);
    // The canonical profile and stored targeting in one read, the targeting remembered for withUnit to find.
    return this.fromStorage(this.options.storage.run(() => profileTargetingProgram(project.key, profileId))).then((read) => {
      this.targetingCache.set(project.key, profileId, read.canonicalProfileId, read.targeting);
      return this.withUnit(pending, this.options.canonicalProfiles.set(project.key, profileId, read.canonicalProfileId, generation));
    });
  }

  private readCanonical(pending: Pending, generation: number): Promise<string> {
    const { auth: { project }, profileId } = pending;
    return this.fromStorage(canonicalProfile(this.options.storage, project.key, profileId)).then((canonical) =>
      this.withUnit(pending, this.options.canonicalProfiles.set(project.key, profileId, canonical, generation)));
  }

  /**
   * A profile nothing remembers, answered as a new visitor's: its own canonical profile, no stored targeting, and the
   * proposed variation for every unit the assignment cache does not hold. ONE write then stores that answer and checks
   * what it assumed (firstVisitProgram): the profile unknown to the identity graph, and every variation stored as
   * proposed; the exposures go in the same transaction. If an assumption was wrong, the answer is built again from
   * what is stored (read), and its exposures are written as any answer's: a new visitor's answer waits for one
   * write and no read, a returning visitor that nothing remembers for one write more than before.
   */
  private firstVisit(pending: Pending, targeting: boolean, generation: number): Promise<string> {
    const { auth, body, profileId } = pending;
    const project = auth.project;
    const prepared = this.prepared(project);
    const chooseRequest = this.chooseRequest(body, profileId, profileId);
    const nothingStored: StoredTargeting = { profile: {}, account: {} };
    if (targeting) chooseRequest.attributes = withRequestFacts(nothingStored, { profileId, device: body.device, url: body.url, attributes: body.attributes });
    const proposed: AssignmentInput[] = [];
    const deps: ChooseDeps = {
      ...this.withHoldout(pending, prepared.deps), assignments: proposingAssignmentPort(project.key, this.assignmentCache, proposed),
    };
    const chosen = chooseExperiences(prepared.compiled, chooseRequest, deps, { allowForce: auth.kind === 'apiKey' });
    return this.fromStorage(Promise.resolve(chosen)).then((result) => {
      // Nothing to assign: the answer's exposures alone go the way of any answer's (the ExposureWriter keeps them while
      // the database refuses writes, and the answer still goes out).
      if (proposed.length === 0) return this.read(pending, targeting, generation);
      // A caller that reports its exposures when it shows them records none now.
      const exposed = body.deferExposure ? [] : result.exposed;
      const exposures: ExposureSet | null = exposed.length === 0 ? null : {
        project: project.key, profileId, sessionId: body.sessionId ?? null, device: body.device ?? null, context: body.context ?? null, time: this.options.now(),
        choices: exposed,
      };
      const visit = { project: project.key, profileId, targeting, assignments: proposed, exposures };
      return this.sink.storeFirstVisit(visit).then((outcome) => {
        if (outcome.kind === 'answered') {
          this.options.canonicalProfiles.set(project.key, profileId, profileId, generation);
          if (targeting) this.targetingCache.set(project.key, profileId, profileId, nothingStored);
          for (const p of proposed) this.assignmentCache.set(project.key, p.experience, p.unit, p.variation);
          // Stored with the assignments: the session's repeats are dropped from now on.
          this.dedupe.record(project.key, profileId, body.sessionId ?? body.dedupeKey, exposed, STORED);
          return choicesJson(result.choices);
        }
        if (outcome.kind === 'differs') {
          for (const a of outcome.assignments) this.assignmentCache.set(project.key, a.experience, a.unit, a.variation);
        }
        return this.read(pending, targeting, generation);
      }, (error: unknown) => {
        // The one write failed (the exposure row, say): answered the way it was before first visits, whose separate
        // writes fail as they did (503 only for assignments that cannot be stored).
        this.options.logger.warn({ err: error }, 'choose: a first visit\'s write failed; answering from a read');
        return this.read(pending, targeting, generation);
      });
    });
  }

  /**
   * Does before the first request what it would otherwise wait for: compiles every project's experiences, warms the
   * storage's lanes, and runs a first visit's write and the reads of a profile nobody has once (statements prepared,
   * code warm). Writes nothing: that profile has nothing to store.
   */
  async warm(projects: readonly ProjectRef[]): Promise<void> {
    const lanes = this.options.storage.warm();
    for (const project of projects) {
      this.prepared(project);
      await canonicalProfile(this.options.storage, project.key, '');
      await this.options.storage.run(() => profileTargetingProgram(project.key, ''));
      // A first visit's write for a profile nobody has, with nothing to store: prepares its statements.
      await this.writer.storeFirstVisit({ project: project.key, profileId: '', targeting: true, assignments: [], exposures: null });
    }
    await lanes;
  }

  /**
   * Whether the person a request names is in the project's recommendations holdout. Asked as a Choose request for the
   * holdout's experiment by the same caller, so that the person is assigned (sticky, as every assignment) and exposed the
   * first time a feed is asked for them (exposures of a session are recorded once). False without a holdout, while it is
   * stopped (a share of 0), and for an erased person.
   */
  async inHoldout(auth: AuthResult, identification: ValidChooseRequest['identification'], sessionId?: string): Promise<boolean> {
    if (auth.project.config.recommendations?.holdout === undefined) return false;
    await this.holdoutPhases.ensure(auth.project); // its share may have changed since this node last served it
    // Without a session (the SDK's feed requests send none), the person's exposure is recorded once on this node.
    const body: ValidChooseRequest = { identification, names: [HOLDOUT_EXPERIMENT], ...(sessionId !== undefined ? { sessionId } : { dedupeKey: HOLDOUT_EXPERIMENT }) };
    const { choices } = JSON.parse(await this.answer(auth, body)) as ChooseAnswer;
    return choices[0]?.variation === HOLDOUT_VARIATION;
  }

  /** The engine's ports for one request: with a holdout, a feed answers a person in it no products. */
  private withHoldout({ auth, body }: Pending, deps: ChooseDeps): ChooseDeps {
    if (auth.project.config.recommendations?.holdout === undefined) return deps;
    return holdoutFeeds(deps, () => this.inHoldout(auth, body.identification, body.sessionId));
  }

  /** Forgets what this node remembers of an erased person: their units' assignments, sessions and targeting. */
  forget(project: string, ids: { profiles: readonly string[]; users: readonly string[] }): void {
    for (const unit of [...ids.profiles, ...ids.users]) this.assignmentCache.forget(project, unit);
    for (const profileId of ids.profiles) {
      this.dedupe.forget(project, profileId);
      this.targetingCache.forget(project, profileId);
    }
    this.exposures.forget(project, new Set(ids.profiles));
    this.options.canonicalProfiles.invalidateAll();
  }

  /** Writes what is still queued (first assignments, exposures); call before the storage closes. */
  async close(): Promise<void> {
    await this.exposures.close();
  }

  /**
   * A database failure is the caller's to retry (503), never a 500 with our internals, and never an answer built on an
   * unstored assignment (it could flip on the next request).
   */
  private fromStorage<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      if (error instanceof ServiceError) throw error;
      if (error instanceof ChooseError) throw new ServiceError(error.code, error.message);
      this.options.logger.error({ err: error }, 'choose: storage failed');
      throw new ServiceError('storage_unavailable', 'The assignment store did not answer; retry the request.');
    });
  }

  // The answer is built in stages, each going on at once with what it has, or once a read it needs has answered: a
  // returning visitor whose caches hold everything gets its answer without a promise in between.

  /** The engine's request for the unit `unitProfileId` (without attributes). */
  private chooseRequest(body: ValidChooseRequest, unitProfileId: string, visitorProfileId: string): ChooseRequest {
    const chooseRequest: ChooseRequest = { profileId: unitProfileId };
    // Feeds answer for the caller's own profile, as the feed endpoint does; assignments follow the person's.
    if (visitorProfileId !== unitProfileId) chooseRequest.visitorProfileId = visitorProfileId;
    if (body.names !== undefined) chooseRequest.names = body.names;
    if (body.groups !== undefined) chooseRequest.groups = body.groups;
    if (body.device !== undefined) chooseRequest.device = body.device;
    if (body.sessionId !== undefined) chooseRequest.sessionId = body.sessionId;
    if (body.force !== undefined) chooseRequest.force = body.force;
    if (body.productId !== undefined) chooseRequest.productId = body.productId;
    return chooseRequest;
  }

  /** Reads the targeting attributes when a requested experience has a condition. */
  private withUnit(pending: Pending, unitProfileId: string): string | Promise<string> {
    const { auth: { project }, body, profileId } = pending;
    // The person the ids resolved to (through identify and alias links) may be an erased one whose links this node
    // still remembers, or that a link stored before the erasure finished led to: nothing is assigned to them.
    const suppressions = this.options.suppressions;
    if (suppressions !== undefined && (suppressions.hasProfile(project.key, unitProfileId) || suppressions.hasProfile(project.key, profileId))) {
      return NO_CHOICES;
    }
    const chooseRequest = this.chooseRequest(body, unitProfileId, profileId);
    const prepared = this.prepared(project);
    if (!needsTargeting(prepared.compiled, body.names, body.groups)) return this.chosen(pending, prepared, chooseRequest);
    const attributes = loadTargetingAttributes(this.options.storage, {
      project: project.key, profileId, canonicalProfileId: unitProfileId, device: body.device, url: body.url, attributes: body.attributes,
    }, this.targetingCache);
    if (!(attributes instanceof Promise)) {
      chooseRequest.attributes = attributes;
      return this.chosen(pending, prepared, chooseRequest);
    }
    return this.fromStorage(attributes).then((read) => {
      chooseRequest.attributes = read;
      return this.chosen(pending, prepared, chooseRequest);
    });
  }

  /** Runs the engine: at once for a returning unit whose assignments are cached, else once the store answered. */
  private chosen(pending: Pending, { compiled, deps }: PreparedProject, chooseRequest: ChooseRequest): string | Promise<string> {
    const result = chooseExperiences(compiled, chooseRequest, this.withHoldout(pending, deps), { allowForce: pending.auth.kind === 'apiKey' });
    if (!(result instanceof Promise)) return this.answered(pending, result);
    return this.fromStorage(result).then((r) => this.answered(pending, r));
  }

  private prepared(project: ProjectRef): PreparedProject {
    let prepared = this.projects.get(project);
    if (prepared === undefined) {
      const deps: ChooseDeps = { assignments: storageAssignmentPort(this.sink, project.key, this.assignmentCache), logger: this.options.logger };
      if (project.config.feeds !== undefined && project.config.feeds.length > 0) {
        deps.feedProducts = feedProductsPort(this.options.feeds, project);
        deps.feedDedupes = feedDedupes(this.options.feeds, project);
      }
      prepared = { compiled: compileExperiences(project.config.experiences ?? [], this.options.logger), deps };
      this.projects.set(project, prepared);
    }
    return prepared;
  }

  /** The answer's JSON text, once its new exposures are stored. */
  private answered(pending: Pending, result: ChooseResult): string | Promise<string> {
    const { auth: { project }, body, profileId } = pending;
    // Already JSON text (choicesJson: config bodies are stringified once).
    const json = choicesJson(result.choices);
    // The caller reports its exposures when it shows them (an `Experiment Viewed` event): nothing to record now.
    if (body.deferExposure) return json;
    // Repeats within the session are dropped before any row is built (ExposureDedupe); a repeat still waits for the
    // write of what it repeats, if that is under way.
    const written = this.dedupe.record(project.key, profileId, body.sessionId ?? body.dedupeKey, result.exposed, (fresh) => this.exposures.add({
      // One set for the answer (one row). Exposures name the profile the caller identified (the one its events carry),
      // so results can join exposures to conversions by profile; assignments are stored under the canonical profile.
      project: project.key, profileId, sessionId: body.sessionId ?? null, device: body.device ?? null, context: body.context ?? null, time: this.options.now(), choices: fresh,
    }));
    return written === null ? json : written.then(() => json);
  }
}

const NO_CHOICES = choicesJson([]);


/** What ExposureDedupe.record writes for exposures already stored (a first visit's). */
const STORED = (): Promise<void> => Promise.resolve();

/** `sink`, counting in `metrics` the first assignments it stored and the exposures (choices served) it wrote. */
function countedWrites(
  sink: ChooseStore, metrics: ChooseServiceOptions['metrics'],
): ChooseStore {
  return {
    async getOrCreateAssignments(inputs) {
      const assignments = await sink.getOrCreateAssignments(inputs);
      let created = 0;
      for (const a of assignments) if (a.created) created++;
      if (created > 0) metrics.assignmentsWritten.inc(created);
      return assignments;
    },
    async storeFirstVisit(visit) {
      const outcome = await sink.storeFirstVisit(visit);
      const created = outcome.kind === 'answered' ? outcome.created : outcome.kind === 'differs' ? outcome.assignments.filter((a) => a.created).length : 0;
      if (created > 0) metrics.assignmentsWritten.inc(created);
      if (outcome.kind === 'answered' && visit.exposures !== null) metrics.exposuresWritten.inc(visit.exposures.choices.length);
      return outcome;
    },
    async recordExposures(sets) {
      await sink.recordExposures(sets);
      let choices = 0;
      for (const set of sets) choices += set.choices.length;
      metrics.exposuresWritten.inc(choices);
    },
  };
}
