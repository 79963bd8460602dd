import type { FastifyInstance } from 'fastify';
import type { ServiceMetrics } from './service-metrics.js';

/** `GET /metrics`: this app's Prometheus registry in the text exposition format. */
export function metricsRoute(app: FastifyInstance, metrics: ServiceMetrics): void {
  app.get('/metrics', { config: { rateLimit: false } }, async (_request, reply) => {
    const text = await metrics.registry.metrics();
    return reply.type(metrics.registry.contentType).send(text);
  });
}
