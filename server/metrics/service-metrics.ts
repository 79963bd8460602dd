import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One (method, route, status): requests answered, and their latencies by bucket (not cumulative), sum. */
interface RequestStats {
  labels: { method: string; route: string; status: string };
  count: number;
  sum: number;
  /** Observations per bucket of DURATION_BUCKETS, then above the last bound. */
  buckets: Float64Array;
}

/** What a prom-client registry asks of a metric it formats: `get()` (the shape Counter and Histogram answer). */
interface ExportedMetric {
  name: string;
  help: string;
  type: 'counter' | 'histogram';
  aggregator: 'sum';
  get(): Promise<{ name: string; help: string; type: string; aggregator: 'sum'; values: { value: number; labels: Record<string, string | number>; metricName?: string }[] }>;
}

/**
 * The Prometheus metrics of one app instance. Each app has its own Registry (not prom-client's global
 * one), so several apps in one test process never clash on metric names.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  readonly eventsIngested: Counter<'project'>;
  readonly eventDuplicates: Counter<'project'>;
  readonly consentsRecorded: Counter<'project'>;
  readonly assignmentsWritten: Counter;
  readonly exposuresWritten: Counter;
  readonly srmMismatches: Counter<'project' | 'experience'>;
  readonly automaticStops: Counter<'project' | 'experience' | 'rule'>;
  readonly banditReweights: Counter<'project' | 'experience' | 'reason'>;
  readonly webhookAttempts: Counter<'result'>;
  readonly resultsDuration: Histogram;

  /** `modelsBehind`: what `svc_model_events_behind` reads when scraped (the app's model applier). */
  constructor(options: { processMetrics?: boolean; modelsBehind?: () => number } = {}) {
    this.registry.registerMetric(this.exported('svc_http_requests_total', 'counter',
      'HTTP requests answered, by method, route pattern and status.', (stats, values) => {
        values.push({ value: stats.count, labels: stats.labels });
      }));
    this.registry.registerMetric(this.exported('svc_http_request_duration_seconds', 'histogram',
      'HTTP request latency in seconds, by method, route pattern and status.', (stats, values) => {
        let cumulative = 0;
        for (let i = 0; i < DURATION_BUCKETS.length; i++) {
          cumulative += stats.buckets[i] as number;
          values.push({ value: cumulative, labels: { ...stats.labels, le: DURATION_BUCKETS[i] as number }, metricName: 'svc_http_request_duration_seconds_bucket' });
        }
        values.push({ value: stats.count, labels: { ...stats.labels, le: '+Inf' }, metricName: 'svc_http_request_duration_seconds_bucket' });
        values.push({ value: stats.sum, labels: stats.labels, metricName: 'svc_http_request_duration_seconds_sum' });
        values.push({ value: stats.count, labels: stats.labels, metricName: 'svc_http_request_duration_seconds_count' });
      }));
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
    this.consentsRecorded = new Counter({
      name: 'svc_consents_recorded_total',
      help: 'Consent records received by the consent endpoint (a resent eventId counts once).',
      labelNames: ['project'],
      registers: [this.registry],
    });
    this.assignmentsWritten = new Counter({
      name: 'svc_assignments_written_total',
      help: 'First assignments stored by the Choose API (a unit entering an experiment).',
      registers: [this.registry],
    });
    this.exposuresWritten = new Counter({
      name: 'svc_exposures_written_total',
      help: 'Exposures stored by the Choose API (choices served, forced ones and shipped winners excepted).',
      registers: [this.registry],
    });
    this.srmMismatches = new Counter({
      name: 'svc_srm_mismatches_total',
      help: 'Results computed with a sample ratio mismatch (units per variation far from the weights, p < 0.001).',
      labelNames: ['project', 'experience'],
      registers: [this.registry],
    });
    this.automaticStops = new Counter({
      name: 'svc_experiments_stopped_automatically_total',
      help: 'Experiments the service stopped by itself, by rule (guardrail harmed, sample-ratio mismatch).',
      labelNames: ['project', 'experience', 'rule'],
      registers: [this.registry],
    });
    this.banditReweights = new Counter({
      name: 'svc_bandit_reweights_total',
      help: 'Bandit reweights this node made, by reason (exploration: weights set equal; thompson: drawn from the arms\' posteriors).',
      labelNames: ['project', 'experience', 'reason'],
      registers: [this.registry],
    });
    this.webhookAttempts = new Counter({
      name: 'svc_webhook_attempts_total',
      help: 'Webhook attempts this node sent, by what followed (succeeded; retrying: failed, retried later; failed: given up; superseded: the delivery was resent or taken over meanwhile).',
      labelNames: ['result'],
      registers: [this.registry],
    });
    this.resultsDuration = new Histogram({
      name: 'svc_results_duration_seconds',
      help: 'Time to compute an experiment\'s results (reads and statistics).',
      buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [this.registry],
    });
    const behind = options.modelsBehind ?? ((): number => 0);
    new Gauge({
      name: 'svc_model_events_behind',
      help: 'Product events this node stored that the recommendation models do not count yet (applied after the answer, in chunks).',
      registers: [this.registry],
      collect() {
        this.set(behind());
      },
    });
    // Process metrics (RSS, event loop lag) only for the real service: their collectors hold timers.
    if (options.processMetrics) collectDefaultMetrics({ register: this.registry, prefix: 'svc_' });
  }

  // Request counts and latencies are counted here, in plain numbers per (method, route, status), and formatted by
  // the registry only when scraped. Through prom-client's labelled Counter and Histogram children, every request
  // hashed its label set twice and wrote the bucket under a string key. Bounded by routes × methods × statuses
  // (route patterns, not URLs).
  private readonly stats = new Map<string, RequestStats>();

  /**
   * Counts answered requests of one route pattern and their latencies, for that route's hook. It remembers the
   * stats of the (method, status) pairs the route has answered (a route answers few) and finds them by comparing,
   * without building and hashing a string key per request.
   * @example const observe = metrics.routeObserver('/healthz'); observe('GET', 200, 0.001);
   */
  routeObserver(route: string): (method: string, status: number, seconds: number) => void {
    const known: { method: string; status: number; stats: RequestStats }[] = [];
    return (method, status, seconds) => {
      for (const k of known) {
        if (k.status === status && k.method === method) {
          record(k.stats, seconds);
          return;
        }
      }
      const stats = this.statsOf(method, route, status);
      known.push({ method, status, stats });
      record(stats, seconds);
    };
  }

  private statsOf(method: string, route: string, status: number): RequestStats {
    const k = `${method} ${status} ${route}`;
    let stats = this.stats.get(k);
    if (stats === undefined) {
      stats = { labels: { method, route, status: String(status) }, count: 0, sum: 0, buckets: new Float64Array(DURATION_BUCKETS.length + 1) };
      this.stats.set(k, stats);
    }
    return stats;
  }

  /** A metric of the registry built from `stats` at scrape time, in the shape prom-client's own metrics answer. */
  private exported(
    name: string, type: 'counter' | 'histogram', help: string,
    add: (stats: RequestStats, values: Awaited<ReturnType<ExportedMetric['get']>>['values']) => void,
  ): Metric {
    const metric: ExportedMetric = {
      name, help, type, aggregator: 'sum',
      get: () => {
        const values: Awaited<ReturnType<ExportedMetric['get']>>['values'] = [];
        for (const stats of this.stats.values()) add(stats, values);
        return Promise.resolve({ name, help, type, aggregator: 'sum', values });
      },
    };
    // registerMetric is typed for prom-client's own classes; its registry needs only name, type and get().
    return metric as unknown as Metric;
  }
}

function record(stats: RequestStats, seconds: number): void {
  stats.count++;
  stats.sum += seconds;
  let bucket = 0;
  while (bucket < DURATION_BUCKETS.length && seconds > (DURATION_BUCKETS[bucket] as number)) bucket++;
  stats.buckets[bucket] = (stats.buckets[bucket] ?? 0) + 1;
}
