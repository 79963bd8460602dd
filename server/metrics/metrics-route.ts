import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../service-context.js';

/** `GET /metrics`: this app's Prometheus registry in the text exposition format. */
export function metricsRoute(app: FastifyInstance, ctx: ServiceContext): void {
  app.get('/metrics', { config: { rateLimit: false } }, async (_request, reply) => {
    const text = await ctx.metrics.registry.metrics();
    return reply.type(ctx.metrics.registry.contentType).send(text);
  });
}
