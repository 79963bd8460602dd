import type { FastifyInstance } from 'fastify';
import { errorBody } from '../errors/service-error.js';
import type { ServiceContext } from '../service-context.js';

/** `GET /healthz`: liveness including a storage round trip (a node without its database is not alive). */
export function healthRoute(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/healthz', { config: { rateLimit: false } }, async (request, reply) => {
    try {
      await ctx.storage.ping();
      return { ok: true, storage: ctx.storage.dialect };
    } catch (error) {
      request.log.error({ err: error }, 'health check: storage does not answer');
      return reply.code(503).send(errorBody('storage_unavailable', 'The database does not answer.'));
    }
  });
}
