import { TrackAnswer, TrackBody } from '../../wire/api/ingest-schema.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { ServiceError } from '../errors/service-error.js';
import { sentAtOf, validateBatch } from './validate-event.js';
import { browserFamily } from '../http/browser-family.js';
import { EXPOSURE_EVENT, type ServiceEvent } from '../../wire/event.js';
import type { EventStore } from './event-store.js';
import type { ConfigStore } from '../config/config-store.js';
import type { ServiceMetrics } from '../metrics/service-metrics.js';

/** What the track route uses of the service. */
export interface TrackRouteDeps {
  config: ConfigStore;
  metrics: ServiceMetrics;
  now: () => number;
  /** Most events held accepted but not yet committed or counted; a request past it is answered 503 `overloaded`. */
  maxPendingEvents: number;
  /** Events stored but not yet counted by what follows ingestion (the recommendation models' backlog). */
  heldEvents: () => number;
  /** A stored batch changed the identity graph (an identify or alias). */
  identityChanged: () => void;
}

/**
 * `POST /v1/{org}/projects/{project}/sources/{sourceId}/track` with `{batch:[event…]}`:
 * Basic writeKey, every event validated before anything is stored, the batch stored in one transaction,
 * `{accepted, duplicates}` by eventId per project. The batch's optional `sentAt` is stored with each event (results
 * correct event times for clock skew with it).
 */
export function trackRoute(ctx: TrackRouteDeps, store: EventStore): ApiRoute {
  // Events validated and handed to storage, not yet committed: what this node holds in memory for ingestion.
  let pending = 0;
  return apiRoute<{ Params: ProjectParams & { sourceId: string } }>({
    method: 'POST',
    path: '/v1/:org/projects/:project/sources/:sourceId/track',
    tag: 'Ingestion',
    summary: 'Store a batch of events',
    description: 'Every event is validated before anything is stored; the batch is stored in one transaction, idempotent by '
      + '`eventId`. Past the node\'s bound of events waiting, the batch is refused whole (503 `overloaded`, `Retry-After`).',
    access: { kind: 'project', keys: ['writeKey'] },
    request: { json: TrackBody },
    answers: { 200: { description: 'Stored: how many were new and how many duplicates.', json: TrackAnswer } },
    errors: ['invalid_batch', 'invalid_event', 'overloaded'],
    handler: async (request, reply) => {
      const events = validateBatch(request.body);
      withExposureContext(events, request.headers['user-agent']);
      const sentAt = sentAtOf(request.body);
      // The authenticated project's key, never one built from the path's raw names.
      const project = request.auth?.project.key;
      if (project === undefined) throw new ServiceError('missing_credentials', 'Send HTTP Basic credentials with a writeKey.');
      // Backpressure: past the bound the batch is refused whole (nothing stored) and the sender retries later; one
      // batch is always taken, however large, so that a bound below a batch cannot stop ingestion. What the models
      // have yet to count is held too: a sustained overload slows senders to the pace the models keep, instead of
      // leaving them further behind every second. Not while the models are failing (logged): events are never refused
      // for the sake of what is derived from them, and the inbox keeps them on disk until a pass succeeds.
      const held = pending + ctx.heldEvents();
      if (held > 0 && held + events.length > ctx.maxPendingEvents) {
        void reply.header('retry-after', '1');
        throw new ServiceError('overloaded', `More than ${ctx.maxPendingEvents} events are waiting to be stored or counted by the `
          + 'recommendation models; retry in a second.');
      }
      pending += events.length;
      let result;
      try {
        result = await store.ingest(project, request.params.sourceId, events, { sentAt, receivedAt: ctx.now() });
      } finally {
        pending -= events.length;
      }
      const { accepted, duplicates, suppressed, identityChanged } = result;
      // Stored links are answered by Choose at once: a client that logged in, then asks, gets the person's variations.
      if (identityChanged) ctx.identityChanged();
      ctx.metrics.eventsIngested.inc({ project }, accepted);
      ctx.metrics.eventDuplicates.inc({ project }, duplicates);
      // An erased person's events are answered as accepted (their outbox lets them go) and stored nowhere.
      return { accepted: accepted + (suppressed ?? 0), duplicates };
    },
  });
}

/**
 * Exposures reported when shown (`Experiment Viewed`) carry the browser family of the request that sent them, as the
 * Choose API's exposure rows do, so results can break them down by browser: under `context`, the service's own field
 * (whatever a sender put there is replaced).
 */
function withExposureContext(events: ServiceEvent[], userAgent: string | undefined): void {
  let browser: string | null | undefined;
  for (const event of events) {
    if (event.name !== EXPOSURE_EVENT) continue;
    browser ??= browserFamily(userAgent);
    const stored = event as ServiceEvent & { context?: { browser: string } };
    if (browser === null) delete stored.context;
    else stored.context = { browser };
  }
}
