import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AuthResult } from '../auth/authenticate.js';
import { AssignmentCache } from './assignment-cache.js';
import { choicesJson } from './choices-json.js';
import { chooseExperiences } from './choose-engine.js';
import { ChooseError } from './choose-error.js';
import type { ChooseDeps, ChooseRequest, ChooseResult } from './choose-types.js';
import { ExposureDedupe } from './exposure-dedupe.js';
import { ExposureWriter } from './exposure-writer.js';
import { storageAssignmentPort } from './storage-assignment-port.js';
import { TargetingAttributeCache } from './targeting-attribute-cache.js';
import { loadTargetingAttributes, needsTargeting } from './targeting-attributes.js';
import { validateChooseRequest, type ValidChooseRequest } from './validate-choose-request.js';
import { storageChooseStore, type AssignmentStore, type ExposureSink } from './choose-store.js';
import { WorkerExposureSink } from './worker-exposure-sink.js';
import type { ProjectRef } from '../config/config-store.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { projectEndpoint, type ProjectParams } from '../http/project-endpoint.js';
import { feedProductsPort } from '../recommendations/feed-products-port.js';
import type { ServiceContext } from '../service-context.js';
import type { Storage } from '../storage/storage.js';
import { canonicalProfile, resolveUser } from '../identity/identity-store.js';

export const CHOOSE_PATH = '/v1/:org/projects/:project/optimization/choose-api';
/** How long a node reuses a profile's stored targeting attributes (README "Choose API"). */
export const TARGETING_TTL_MS = 10_000;

/** A Choose request on its way to the answer (chooseRoute's stages). */
interface Pending {
  auth: AuthResult;
  body: ValidChooseRequest;
  /** The profile the caller identified (form A), or the one form B's userId resolved to. */
  profileId: string;
}

/**
 * `POST /v1/{org}/projects/{project}/optimization/choose-api` (spec 4.1, DESIGN 3.3 and 3.5): resolves the
 * requested experiences for one profile and answers `{choices:[{name, group?, variation?, body}]}`.
 *
 * Order of work, cheapest refusal first: authentication before the body is read (projectEndpoint), then the
 * whole body is validated (400, no lookup yet), then the identification is checked against the key
 * (403) and resolved (form B: 400 `unknown_user`), then the engine runs; exposures are queued for a
 * batched write and never delay the answer.
 *
 * The unit of `stickiness: "profile"` is the person's canonical profile (canonicalProfile in identity-store.ts): once a
 * profile is identified as a user, it shares the assignments of the first profile linked to that user, and
 * form B's userId resolves to that same profile. So an anonymous visitor keeps the variation after log-in,
 * and a second device of the same person gets it too once identified.
 */
export function chooseRoute(app: FastifyInstance, ctx: ServiceContext): void {
  // First assignments go where exposures go: on a SQLite file, the writer thread (its durable commits no longer
  // stall the event loop); otherwise the storage.
  const sink: ExposureSink & AssignmentStore = chooseWriter(ctx.storage);
  // Batches of up to 500 answers' exposure sets: one postMessage and one commit each.
  const exposures = new ExposureWriter(sink, { logger: app.log });
  const dedupe = new ExposureDedupe();
  const assignmentCache = new AssignmentCache();
  // Stored targeting attributes for 10 s (TargetingAttributeCache: staleness is acceptable for targeting).
  const targetingCache = new TargetingAttributeCache(ctx.now, TARGETING_TTL_MS);
  // The engine's ports for a project, built on its first request (a config reload brings new project objects).
  const projectDeps = new WeakMap<ProjectRef, ChooseDeps>();
  // After the server stopped taking requests and answered the in-flight ones, and before the caller closes
  // storage: nothing accepted is lost on a graceful shutdown.
  app.addHook('onClose', async () => {
    await exposures.close();
    if (sink instanceof WorkerExposureSink) await sink.close();
  });

  // A database failure is the caller's to retry (503), never a 500 with our internals, and never an answer
  // built on an unstored assignment (it could flip on the next request).
  function fromStorage<T>(work: Promise<T>): Promise<T> {
    return work.catch((error: unknown) => {
      if (error instanceof ServiceError || error instanceof ChooseError) throw error;
      app.log.error({ err: error }, 'choose: storage failed');
      throw new ServiceError('storage_unavailable', 'The assignment store did not answer; retry the request.');
    });
  }

  // The answer is built in stages, each going on at once with what it has, or once a read it needs has answered: a
  // returning visitor whose caches hold everything gets its answer without a promise in between (a promise per
  // stage, and Fastify's wait for an async handler, were ≈ 2 % of such a request's CPU).

  /** Validates and identifies: the canonical profile is the unit of `stickiness: "profile"`. */
  function answer(request: FastifyRequest): string | Promise<string> {
    const auth = request.auth;
    if (!auth) throw new ServiceError('missing_credentials', 'Send an apiKey query parameter or HTTP Basic credentials with a writeKey.');
    const body = validateChooseRequest(request.body);
    const project = auth.project;
    const identification = body.identification;
    if (identification.form === 'user') {
      // A writeKey is public (it ships in every page), so accepting a userId from it would let anyone read
      // any known user's assignments: form B is for server-side apiKey callers (DESIGN 3.3).
      if (auth.kind !== 'apiKey') {
        throw new ServiceError('identification_not_allowed', "identification.userId: needs an apiKey; browser callers send {sourceId, profileId}.");
      }
      return fromStorage(resolveUser(ctx.storage, project.key, identification.userId)).then((resolved) => {
        if (resolved === null) {
          throw new ServiceError('unknown_user', `identification.userId: no profile is linked to user ${quoted(identification.userId)}.`);
        }
        // resolveUser already answers the person's canonical profile.
        return withUnit({ auth, body, profileId: resolved }, resolved);
      });
    }
    if (!project.config.sources.includes(identification.sourceId)) {
      throw new ServiceError('source_not_allowed', `The source ${quoted(identification.sourceId)} is not a source of this project.`);
    }
    const pending: Pending = { auth, body, profileId: identification.profileId };
    // Remembered for 2 s and cleared when this node stores a link (canonical-profile-cache.ts).
    const cached = ctx.canonicalProfiles.get(project.key, pending.profileId);
    if (cached !== undefined) return withUnit(pending, cached);
    const generation = ctx.canonicalProfiles.generation;
    return fromStorage(canonicalProfile(ctx.storage, project.key, pending.profileId)).then((canonical) =>
      withUnit(pending, ctx.canonicalProfiles.set(project.key, pending.profileId, canonical, generation)));
  }

  /** Reads the targeting attributes when a requested experience has a condition. */
  function withUnit(pending: Pending, unitProfileId: string): string | Promise<string> {
    const { auth: { project }, body, profileId } = pending;
    const chooseRequest: ChooseRequest = { profileId: unitProfileId };
    if (body.names !== undefined) chooseRequest.names = body.names;
    if (body.groups !== undefined) chooseRequest.groups = body.groups;
    if (body.device !== undefined) chooseRequest.device = body.device;
    if (body.sessionId !== undefined) chooseRequest.sessionId = body.sessionId;
    if (body.force !== undefined) chooseRequest.force = body.force;
    if (!needsTargeting(project.config.experiences ?? [], body.names, body.groups)) return chosen(pending, chooseRequest);
    const attributes = loadTargetingAttributes(ctx.storage, {
      project: project.key, profileId, canonicalProfileId: unitProfileId, device: body.device, url: body.url,
    }, targetingCache);
    if (!(attributes instanceof Promise)) {
      chooseRequest.attributes = attributes;
      return chosen(pending, chooseRequest);
    }
    return fromStorage(attributes).then((read) => {
      chooseRequest.attributes = read;
      return chosen(pending, chooseRequest);
    });
  }

  /** Runs the engine: at once for a returning unit whose assignments are cached, else once the store answered. */
  function chosen(pending: Pending, chooseRequest: ChooseRequest): string | Promise<string> {
    const project = pending.auth.project;
    let deps = projectDeps.get(project);
    if (deps === undefined) {
      deps = { assignments: storageAssignmentPort(sink, project.key, assignmentCache), logger: app.log };
      if (project.config.feeds !== undefined && project.config.feeds.length > 0) {
        deps.feedProducts = feedProductsPort(ctx.feeds, project);
      }
      projectDeps.set(project, deps);
    }
    const result = chooseExperiences(project.config.experiences ?? [], chooseRequest, deps, { allowForce: pending.auth.kind === 'apiKey' });
    if (!(result instanceof Promise)) return answered(pending, result);
    return fromStorage(result).then((r) => answered(pending, r), (error: unknown) => {
      throw error instanceof ChooseError ? new ServiceError(error.code, error.message) : error;
    });
  }

  /** Queues the answer's new exposures and answers its JSON text. */
  function answered(pending: Pending, result: ChooseResult): string {
    const { auth: { project }, body, profileId } = pending;
    // Repeats within the session are dropped before any row is built (ExposureDedupe).
    const fresh = dedupe.newInSession(project.key, profileId, body.sessionId, result.exposed);
    if (fresh.length > 0) {
      // One set for the answer (one row). Exposures name the profile the caller identified (the one its events
      // carry), so results can join exposures to conversions by profile; assignments are stored under the
      // canonical profile.
      exposures.add({
        project: project.key, profileId, sessionId: body.sessionId ?? null, device: body.device ?? null, time: ctx.now(), choices: fresh,
      });
    }
    // Already JSON text (choicesJson: config bodies are stringified once).
    return choicesJson(result.choices);
  }

  app.post<{ Params: ProjectParams }>(
    CHOOSE_PATH,
    {
      onRequest: projectEndpoint(app, ctx.config, { allowApiKey: true }),
    },
    (request, reply) => {
      const json = answer(request);
      // Fastify sends a string with a JSON content type as it is: at once, or once the promise resolved. Sent at
      // once, nothing is returned: a returned reply is a thenable Fastify would wait on for the response to finish.
      reply.type('application/json; charset=utf-8');
      if (typeof json !== 'string') return json;
      reply.send(json);
      return undefined;
    },
  );
}

/**
 * SQLite: a worker thread with its own connection writes the exposures and first assignments (off the event loop; see
 * worker-exposure-sink.ts). PostgreSQL: the storage itself — its insert is network I/O the event loop only
 * waits for, and the server does the work. An in-memory SQLite database cannot be opened twice: storage too.
 */
function chooseWriter(storage: Storage): ExposureSink & AssignmentStore {
  const store = storageChooseStore(storage);
  if (storage.file !== undefined && storage.file !== ':memory:' && storage.file !== '') return new WorkerExposureSink(storage.file, store);
  return store;
}
