import { HealthAnswer, HealthDownAnswer } from '../../wire/api/service-schema.js';
import { apiRoute, type ApiRoute } from './api-route.js';
import { errorBody } from '../errors/service-error.js';
import type { Storage } from '../storage/storage.js';

/** How long the health check waits for the database's answer. */
export const HEALTH_DEADLINE_MS = 3000;

/** `work()`, or a rejection once `ms` have passed without its answer. */
async function withinDeadline<T>(work: () => Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work(),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** What `/healthz` tells about the configuration. */
export interface ConfigHealth {
  /** The database revision of the items served. */
  revision: number;
  /** Set while the database cannot be read: the node serves its last good config, since when and why. */
  stale?: { since: string; error: string };
}

/** What the health check reads: the database, and the configuration served (the management API's ManagedConfig). */
export interface HealthDeps {
  storage: Pick<Storage, 'ping' | 'dialect'>;
  configHealth: () => ConfigHealth;
}

/**
 * `GET /healthz`: liveness including a storage round trip (a node without its database is not alive), and the
 * configuration served while the database cannot be read: `config.stale` (since when, why) and `config.revision`
 * (the management API's items it last read, which it keeps serving).
 */
export function healthRoute(ctx: HealthDeps): ApiRoute {
  return apiRoute({
    method: 'GET', path: '/healthz', tag: 'Service', access: { kind: 'public' }, errors: [], unlimited: true,
    summary: 'Liveness',
    description: 'Includes a round trip to the database (a node without it is not alive), and the configuration served while '
      + 'the database cannot be read.',
    answers: {
      200: { description: 'Alive.', json: HealthAnswer },
      503: { description: '`storage_unavailable`: the database does not answer; the last configuration read is served.', json: HealthDownAnswer },
    },
    handler: async (request, reply) => {
      try {
        // A database that takes the query and never answers is as down as one that refuses it.
        await withinDeadline(() => ctx.storage.ping(), HEALTH_DEADLINE_MS);
        const config = ctx.configHealth();
        return config.stale ? { ok: true, storage: ctx.storage.dialect, config } : { ok: true, storage: ctx.storage.dialect };
      } catch (error) {
        request.log.error({ err: error }, 'health check: storage does not answer');
        // Still serving: the config is the last one read from the database (`config.stale` says since when).
        return reply.code(503).send({ ...errorBody('storage_unavailable', 'The database does not answer.'), config: ctx.configHealth() });
      }
    },
  });
}
