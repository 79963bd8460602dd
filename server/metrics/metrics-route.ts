import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ServiceMetrics } from './service-metrics.js';

/** `GET /metrics`: this app's Prometheus registry in the text exposition format. */
export function metricsRoute(metrics: ServiceMetrics): ApiRoute {
  return apiRoute({
    method: 'GET', path: '/metrics', tag: 'Service', access: { kind: 'public' }, errors: [], unlimited: true,
    summary: 'Prometheus metrics',
    description: 'Requests by route pattern and status, events ingested, results durations, the recommendation models\' lag…',
    answers: { 200: { description: 'The registry.', media: { 'text/plain': 'The Prometheus text exposition format (version 0.0.4).' } } },
    handler: async (_request, reply) => {
      const text = await metrics.registry.metrics();
      return reply.type(metrics.registry.contentType).send(text);
    },
  });
}
