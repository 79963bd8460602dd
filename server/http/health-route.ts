import type { FastifyInstance } from 'fastify';
import { errorBody } from '../errors/service-error.js';
import type { ServiceContext } from '../service-context.js';

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

/**
 * `GET /healthz`: liveness including a storage round trip (a node without its database is not alive), and the
 * configuration served while the database cannot be read: `config.stale` (since when, why) and `config.revision`
 * (the management API's items it last read, which it keeps serving).
 */
export function healthRoute(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/healthz', { config: { rateLimit: false } }, async (request, reply) => {
    try {
      // A database that takes the query and never answers is as down as one that refuses it.
      await withinDeadline(() => ctx.storage.ping(), HEALTH_DEADLINE_MS);
      const config = ctx.managed.health;
      return config.stale ? { ok: true, storage: ctx.storage.dialect, config } : { ok: true, storage: ctx.storage.dialect };
    } catch (error) {
      request.log.error({ err: error }, 'health check: storage does not answer');
      // Still serving: the config is the last one read from the database (`config.stale` says since when).
      return reply.code(503).send({ ...errorBody('storage_unavailable', 'The database does not answer.'), config: ctx.managed.health });
    }
  });
}
