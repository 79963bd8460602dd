import type { FastifyInstance } from 'fastify';
import { projectEndpoint, type ProjectParams } from '../http/project-endpoint.js';
import { ServiceError } from '../errors/service-error.js';
import { sentAtOf, validateBatch } from './validate-event.js';
import type { ServiceContext } from '../service-context.js';
import { ingestBatch } from './event-store.js';

/**
 * `POST /v1/{org}/projects/{project}/sources/{sourceId}/track` with `{batch:[event…]}`:
 * Basic writeKey, every event validated before anything is stored, the batch stored in one transaction,
 * `{accepted, duplicates}` by eventId per project. The batch's optional `sentAt` is stored with each event (results
 * correct event times for clock skew with it).
 */
export function trackRoute(app: FastifyInstance, ctx: ServiceContext): void {
  app.post<{ Params: ProjectParams & { sourceId: string } }>(
    '/v1/:org/projects/:project/sources/:sourceId/track',
    {
      onRequest: projectEndpoint(app, ctx.config, { allowApiKey: false }),
    },
    async (request) => {
      const events = validateBatch(request.body);
      const sentAt = sentAtOf(request.body);
      // The authenticated project's key, never one built from the path's raw names.
      const project = request.auth?.project.key;
      if (project === undefined) throw new ServiceError('missing_credentials', 'Send HTTP Basic credentials with a writeKey.');
      const { accepted, duplicates, identityChanged } = await ingestBatch(
        ctx.storage, project, request.params.sourceId, events, { sentAt, receivedAt: ctx.now() },
      );
      // Stored links are answered by Choose at once: a client that logged in, then asks, gets the person's variations.
      if (identityChanged) ctx.canonicalProfiles.invalidateAll();
      ctx.metrics.eventsIngested.inc({ project }, accepted);
      ctx.metrics.eventDuplicates.inc({ project }, duplicates);
      return { accepted, duplicates };
    },
  );
}
