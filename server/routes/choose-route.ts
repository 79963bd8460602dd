import type { FastifyInstance } from 'fastify';
import { AssignmentCache } from '../choose/assignment-cache.js';
import { choicesJson } from '../choose/choices-json.js';
import { chooseExperiences } from '../choose/choose-engine.js';
import { ChooseError } from '../choose/choose-error.js';
import type { ChooseDeps, ChooseRequest, ChooseResult } from '../choose/choose-types.js';
import { ExposureDedupe } from '../choose/exposure-dedupe.js';
import { ExposureWriter } from '../choose/exposure-writer.js';
import { storageAssignmentPort } from '../choose/storage-assignment-port.js';
import { TargetingAttributeCache } from '../choose/targeting-attribute-cache.js';
import { loadTargetingAttributes, needsTargeting } from '../choose/targeting-attributes.js';
import { validateChooseRequest } from '../choose/validate-choose-request.js';
import { WorkerExposureSink, type ExposureSink } from '../choose/worker-exposure-sink.js';
import type { ProjectRef } from '../config/config-store.js';
import { ServiceError } from '../errors/service-error.js';
import { projectEndpoint, type ProjectParams } from '../http/project-endpoint.js';
import { feedProductsPort } from '../recommendations/feed-products-port.js';
import type { ServiceContext } from '../service-context.js';
import { SqliteStorage } from '../storage/sqlite-storage.js';
import type { Storage } from '../storage/storage.js';

export const CHOOSE_PATH = '/v1/:org/projects/:project/optimization/choose-api';
/** How long a node reuses a profile's stored targeting attributes (README "Choose API"). */
export const TARGETING_TTL_MS = 10_000;

/**
 * `POST /v1/{org}/projects/{project}/optimization/choose-api` (spec 4.1, DESIGN 3.3 and 3.5): resolves the
 * requested experiences for one profile and answers `{choices:[{name, group?, variation?, body}]}`.
 *
 * Order of work, cheapest refusal first: authentication before the body is read (projectEndpoint), then the
 * whole body is validated (400, no lookup yet), then the identification is checked against the key
 * (403) and resolved (form B: 400 `unknown_user`), then the engine runs; exposures are queued for a
 * batched write and never delay the answer.
 *
 * The unit of `stickiness: "profile"` is the person's canonical profile (Storage.canonicalProfile): once a
 * profile is identified as a user, it shares the assignments of the first profile linked to that user, and
 * form B's userId resolves to that same profile. So an anonymous visitor keeps the variation after log-in,
 * and a second device of the same person gets it too once identified.
 */
export function chooseRoute(app: FastifyInstance, ctx: ServiceContext): void {
  const sink = exposureSink(ctx.storage);
  // First assignments go where exposures go: on a SQLite file, the writer thread (its durable commits no longer
  // stall the event loop); otherwise the storage.
  const assignmentStore = sink instanceof WorkerExposureSink ? sink : ctx.storage;
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
  async function fromStorage<T>(work: Promise<T>): Promise<T> {
    try {
      return await work;
    } catch (error) {
      if (error instanceof ServiceError || error instanceof ChooseError) throw error;
      app.log.error({ err: error }, 'choose: storage failed');
      throw new ServiceError('storage_unavailable', 'The assignment store did not answer; retry the request.');
    }
  }

  app.post<{ Params: ProjectParams }>(
    CHOOSE_PATH,
    {
      onRequest: projectEndpoint(app, ctx.config, { allowApiKey: true }),
    },
    async (request, reply) => {
      const auth = request.auth;
      if (!auth) throw new ServiceError('missing_credentials', 'Send an apiKey query parameter or HTTP Basic credentials with a writeKey.');
      const body = validateChooseRequest(request.body);
      const project = auth.project;
      const identification = body.identification;

      let profileId: string;
      let unitProfileId: string;
      if (identification.form === 'user') {
        // A writeKey is public (it ships in every page), so accepting a userId from it would let anyone read
        // any known user's assignments: form B is for server-side apiKey callers (DESIGN 3.3).
        if (auth.kind !== 'apiKey') {
          throw new ServiceError('identification_not_allowed', "identification.userId: needs an apiKey; browser callers send {sourceId, profileId}.");
        }
        const resolved = await fromStorage(ctx.storage.resolveUser(project.key, identification.userId));
        if (resolved === null) {
          throw new ServiceError('unknown_user', `identification.userId: no profile is linked to user "${identification.userId.slice(0, 100)}".`);
        }
        // resolveUser already answers the person's canonical profile.
        profileId = resolved;
        unitProfileId = resolved;
      } else {
        if (!project.config.sources.includes(identification.sourceId)) {
          throw new ServiceError('source_not_allowed', `The source "${identification.sourceId.slice(0, 100)}" is not a source of this project.`);
        }
        profileId = identification.profileId;
        // Remembered for 2 s and cleared when this node stores a link (canonical-profile-cache.ts).
        const cached = ctx.canonicalProfiles.get(project.key, profileId);
        if (cached !== undefined) {
          unitProfileId = cached;
        } else {
          const generation = ctx.canonicalProfiles.generation;
          const canonical = await fromStorage(ctx.storage.canonicalProfile(project.key, profileId));
          unitProfileId = ctx.canonicalProfiles.set(project.key, profileId, canonical, generation);
        }
      }

      const experiences = project.config.experiences ?? [];
      const chooseRequest: ChooseRequest = { profileId: unitProfileId };
      if (body.names !== undefined) chooseRequest.names = body.names;
      if (body.groups !== undefined) chooseRequest.groups = body.groups;
      if (body.device !== undefined) chooseRequest.device = body.device;
      if (body.sessionId !== undefined) chooseRequest.sessionId = body.sessionId;
      if (body.force !== undefined) chooseRequest.force = body.force;
      if (needsTargeting(experiences, body.names, body.groups)) {
        const attributes = loadTargetingAttributes(ctx.storage, {
          project: project.key, profileId, canonicalProfileId: unitProfileId, device: body.device, url: body.url,
        }, targetingCache);
        chooseRequest.attributes = attributes instanceof Promise ? await fromStorage(attributes) : attributes;
      }

      let deps = projectDeps.get(project);
      if (deps === undefined) {
        deps = { assignments: storageAssignmentPort(assignmentStore, project.key, assignmentCache), logger: app.log };
        if (project.config.feeds !== undefined && project.config.feeds.length > 0) {
          deps.feedProducts = feedProductsPort(ctx.feeds, project);
        }
        projectDeps.set(project, deps);
      }

      let result: ChooseResult;
      try {
        // At once for a returning unit whose assignments are cached; a promise when the store is asked.
        const chosen = chooseExperiences(experiences, chooseRequest, deps, { allowForce: auth.kind === 'apiKey' });
        result = chosen instanceof Promise ? await fromStorage(chosen) : chosen;
      } catch (error) {
        if (error instanceof ChooseError) throw new ServiceError(error.code, error.message);
        throw error;
      }

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
      // Already JSON text (choicesJson: config bodies are stringified once); Fastify sends a string with a JSON
      // content type as it is.
      reply.type('application/json; charset=utf-8');
      return choicesJson(result.choices);
    },
  );
}

/**
 * SQLite: a worker thread with its own connection writes the exposures (off the event loop; see
 * worker-exposure-sink.ts). PostgreSQL: the storage itself — its insert is network I/O the event loop only
 * waits for, and the server does the work. An in-memory SQLite database cannot be opened twice: storage too.
 */
function exposureSink(storage: Storage): ExposureSink {
  if (storage instanceof SqliteStorage && storage.file !== ':memory:' && storage.file !== '') {
    return new WorkerExposureSink(storage.file, storage);
  }
  return storage;
}
