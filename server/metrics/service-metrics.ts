import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The Prometheus metrics of one app instance. Each app has its own Registry (not prom-client's global
 * one), so several apps in one test process never clash on metric names.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route' | 'status'>;
  readonly eventsIngested: Counter<'project'>;
  readonly eventDuplicates: Counter<'project'>;

  constructor(options: { processMetrics?: boolean } = {}) {
    this.requests = new Counter({
      name: 'svc_http_requests_total',
      help: 'HTTP requests answered, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [this.registry],
    });
    this.duration = new Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'HTTP request latency in seconds, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [this.registry],
    });
    this.eventsIngested = new Counter({
      name: 'svc_events_ingested_total',
      help: 'Events stored by the track endpoint (first time seen).',
      labelNames: ['project'],
      registers: [this.registry],
    });
    this.eventDuplicates = new Counter({
      name: 'svc_event_duplicates_total',
      help: 'Events received again with an eventId already stored (resends).',
      labelNames: ['project'],
      registers: [this.registry],
    });
    // Process metrics (RSS, event loop lag) only for the real service: their collectors hold timers.
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  // The labelled children of both metrics per (method, route, status): prom-client otherwise rebuilds and hashes
  // the label set twice on every request. Bounded by routes × methods × statuses (route patterns, not URLs).
  private readonly children = new Map<string, { requests: { inc: () => void }; duration: { observe: (v: number) => void } }>();

  observe(method: string, route: string, status: number, seconds: number): void {
    const k = `${method} ${status} ${route}`;
    let child = this.children.get(k);
    if (child === undefined) {
      const labels = { method, route, status: String(status) };
      child = { requests: this.requests.labels(labels), duration: this.duration.labels(labels) };
      this.children.set(k, child);
    }
    child.requests.inc();
    child.duration.observe(seconds);
  }
}
