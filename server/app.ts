import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { CanonicalProfileCache } from './identity/canonical-profile-cache.js';
import { ConfigStore } from './config/config-store.js';
import type { ServiceConfigFile } from './config/config-types.js';
import { validateConfig } from './config/validate-config.js';
import { answerClientError, answerFrameworkError, MAX_PATH_SEGMENT } from './http/client-errors.js';
import { installErrorHandlers } from './http/error-handler.js';
import { BODY_LIMIT, registerBodyParsers } from './http/body-parsers.js';
import { capConnectionsPerIp, DEFAULT_CONNECTION_LIMITS, deadlineOptions, type ConnectionLimits } from './http/connection-limits.js';
import { registerCors } from './http/cors.js';
import { redactingLogger } from './http/log-redaction.js';
import { tokenBucketStore } from './http/token-bucket-store.js';
import { ServiceMetrics } from './metrics/service-metrics.js';
import { ManagedConfig } from './management/managed-config.js';
import { managementRoutes } from './management/management-routes.js';
import { accessRoutes } from './management/access-routes.js';
import { PEOPLE_WRITES } from './management/people-writes.js';
import { FeedService } from './recommendations/feed-service.js';
import { feedReportRoute } from './recommendations/feed-report-route.js';
import { catalogRoutes } from './recommendations/catalog-route.js';
import { catalogSearchRoute } from './recommendations/catalog-search-route.js';
import { feedPreviewRoute } from './recommendations/feed-preview-route.js';
import { chooseRoute } from './choose/choose-route.js';
import { OFREP_PREFIX, ofrepRoutes } from './ofrep/ofrep-routes.js';
import { ChooseService } from './choose/choose-service.js';
import { consentRoute } from './consent/consent-route.js';
import { feedRoute } from './recommendations/feed-route.js';
import { feedBatchRoute } from './recommendations/feed-batch-route.js';
import { healthRoute } from './http/health-route.js';
import { metricsRoute } from './metrics/metrics-route.js';
import { staticRoutes } from './http/static-routes.js';
import { consoleHeaders } from './http/console-headers.js';
import { resultsRoute } from './results/results-route.js';
import { planRoute } from './planning/plan-route.js';
import { PlanService } from './planning/plan-service.js';
import { ExposureIndexer } from './results/exposure-indexer.js';
import { GuardrailWatch } from './guardrails/guardrail-watch.js';
import { BanditWatch } from './bandits/bandit-watch.js';
import { ResultsService } from './results/results-service.js';
import { PrivacyRunner, type PrivacyRunnerOptions } from './privacy/privacy-runner.js';
import { privacyRoutes } from './privacy/privacy-routes.js';
import { SuppressionList } from './privacy/suppressions.js';
import { RetentionSweeper } from './privacy/retention.js';
import { EventStore } from './ingest/event-store.js';
import { INGEST, PROGRAMS_MODULE } from './programs.js';
import { modelApplier } from './recommendations/model-applier.js';
import { trackRoute } from './ingest/track-route.js';
import type { ServiceContext } from './service-context.js';
import { DEFAULT_SESSION_TIMEOUTS, Sessions, type SessionTimeouts } from './auth/sessions.js';
import { sessionRoutes } from './sessions/session-routes.js';
import { SESSION_RECORDS } from './sessions/session-store.js';
import { DEFAULT_SIGN_IN_LIMITS, SignInLimiter, type SignInLimits } from './sessions/sign-in-limiter.js';
import { oidcRoutes } from './sessions/oidc-routes.js';
import type { Storage } from './storage/storage.js';
import type { ApiRoute } from './http/api-route.js';
import { apiReferenceRoutes } from './http/api-reference.js';
import { openApiDocument } from './http/openapi-document.js';
import { registerApiRoutes } from './http/register-api-routes.js';
import { webhookSettings, type WebhookOptions } from './webhooks/webhook-options.js';
import { webhookRoutes } from './webhooks/webhook-routes.js';
import { appendAudit } from './management/audit-log.js';
import { WebhookDispatcher } from './webhooks/webhook-dispatcher.js';
import packageJson from '../package.json' with { type: 'json' };

/** A route's hooks of one kind (none, one, or a list, as route options allow) with `hook` run after them. */
function withHook<H>(hooks: H | H[] | undefined, hook: H): H[] {
  if (hooks === undefined) return [hook];
  return [...(Array.isArray(hooks) ? hooks : [hooks]), hook];
}

/** A route module: registers its routes on the app with the shared context. */
export type RouteModule = (app: FastifyInstance, ctx: ServiceContext) => void | Promise<void>;

export interface BuildAppOptions {
  /** A parsed svc.config.json; validated again here (an invalid one throws ConfigError). */
  config: ServiceConfigFile;
  /** Open and migrated storage; the caller owns it (closes it after `app.close()`). */
  storage: Storage;
  /** Fastify's pino options; default: no logging (tests). */
  logger?: FastifyServerOptions['logger'];
  /** Repository root: serves demo/ at `/` and dist/ at `/svc/`. Absent: no static files. */
  staticRoot?: string;
  /** Clock in epoch milliseconds (tests pin it). */
  now?: () => number;
  /**
   * How many proxies (load balancers) stand in front: the client IP (rate limits) is the X-Forwarded-For entry
   * that many hops back, the one the nearest proxy saw. Never the leftmost: a client writes that one itself.
   */
  trustProxy?: number;
  /** Collect process metrics (RSS, event loop) into /metrics: on for the CLI. */
  processMetrics?: boolean;
  /** Socket deadlines and the per-address connection cap (DEFAULT_CONNECTION_LIMITS; no cap when `trustProxy`). */
  connectionLimits?: Partial<ConnectionLimits>;
  /** Warm the Choose API before the first request (compile, start its writer thread, prepare reads): the CLI. */
  warm?: boolean;
  /** How often this node polls for management writes made on other nodes (default 250 ms). */
  configPollMs?: number;
  /** More route modules (e.g. the Choose API), registered after the built-in ones. */
  routes?: RouteModule[];
  /**
   * Most events held accepted but not yet committed (default 50,000, about 100 MB), counting the product events stored
   * but not yet counted by the recommendation models (unless they fail): a track request that would pass it is
   * answered 503 `overloaded` with `Retry-After`, so a sustained overload slows senders down instead of growing memory
   * or the models' lag without bound.
   */
  maxPendingEvents?: number;
  /** Privacy requests' lease, polling, and (tests) a hook after each committed chunk: PrivacyRunnerOptions. */
  privacy?: Pick<PrivacyRunnerOptions, 'leaseMs' | 'pollMs' | 'afterChunk'>;
  /** How often this node deletes what the projects' `retention` no longer keeps (default 1 h). */
  retentionIntervalMs?: number;
  /** How often this node looks at running experiments' guardrails, to stop one a variation harms (default 10 min). */
  guardrailIntervalMs?: number;
  /** How often this node looks at running bandits, to reweight those due on their cadence (default 1 min). */
  banditIntervalMs?: number;
  /** Console sessions' idle and absolute timeouts (default 60 minutes idle, 12 hours in all). */
  sessionTimeouts?: Partial<SessionTimeouts>;
  /** Failed sign-ins allowed per account and per client IP in a window (default 10 and 50 in 15 minutes). */
  signInLimits?: Partial<SignInLimits>;
  /** Webhooks: the public URL of console links, DNS lookup and loopback (tests), delivery rhythm (WebhookOptions). */
  webhooks?: WebhookOptions;
  /** Told of every route as it is registered (a test compares them with the API's description). */
  onRoute?: (route: { method: string | string[]; url: string }) => void;
}

/**
 * Builds the service without listening, so tests use `app.inject()` and the CLI only wires env to it.
 * `app.svc` exposes the context (config store for SIGHUP reloads, storage, metrics).
 * @example
 * const app = await buildApp({ config, storage });
 * await app.listen({ port: 8787 });
 */
export async function buildApp(options: BuildAppOptions): Promise<FastifyInstance> {
  const config = new ConfigStore(validateConfig(options.config), options.now ?? Date.now);
  const limits: ConnectionLimits = {
    ...DEFAULT_CONNECTION_LIMITS,
    // Behind a load balancer every client arrives from its address: a cap per address would cap everyone.
    ...(options.trustProxy ? { maxConnectionsPerIp: 0 } : {}),
    ...options.connectionLimits,
  };
  const app = Fastify({
    // Request lines without secrets (`?apiKey=` values): log-redaction.ts.
    logger: redactingLogger(options.logger),
    bodyLimit: BODY_LIMIT,
    // A hop count, not `true`: `true` takes the leftmost X-Forwarded-For address, which the client chooses. The
    // function trusts the socket's peer and the addresses before it, up to that many proxies.
    trustProxy: options.trustProxy ? (_address: string, hop: number) => hop < (options.trustProxy as number) : false,
    // Closing waits for in-flight requests, then idle keep-alive sockets are dropped (graceful shutdown).
    forceCloseConnections: 'idle',
    ...deadlineOptions(limits),
    routerOptions: { maxParamLength: MAX_PATH_SEGMENT },
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError,
  });
  capConnectionsPerIp(app.server, limits.maxConnectionsPerIp);
  // While closing, keep-alive sockets are closed as soon as they go idle (their request answered), not only those
  // idle when the close began: one going idle later would hold the shutdown until its 72 s idle deadline.
  app.addHook('preClose', (done) => {
    if (app.server.listening) {
      const sweep = setInterval(() => app.server.closeIdleConnections(), 100).unref();
      app.server.once('close', () => clearInterval(sweep));
    }
    done();
  });
  const now = options.now ?? Date.now;
  const managed = new ManagedConfig(config, options.storage, {
    logger: app.log,
    now,
    ...(options.configPollMs !== undefined ? { pollMs: options.configPollMs } : {}),
  });
  // The items written through the management API, laid over the file before the first request.
  await managed.start();
  app.addHook('onClose', () => managed.close());
  // Every named program runs where the storage places it; its threads (if any) serve them from PROGRAMS_MODULE.
  options.storage.hostPrograms(PROGRAMS_MODULE);
  const models = modelApplier(options.storage, { logger: app.log });
  // After the routes' own hooks (registered later, run earlier): what the last track requests added reaches the models.
  app.addHook('onClose', () => models.close());
  const events = new EventStore(options.storage, INGEST, (project, batch, result) => models.stored(project, batch, result.handedOn));
  const ctx: ServiceContext = {
    config,
    managed,
    storage: options.storage,
    metrics: new ServiceMetrics({ processMetrics: options.processMetrics ?? false, modelsBehind: () => models.behind }),
    models,
    feeds: new FeedService(options.storage, models, now),
    canonicalProfiles: new CanonicalProfileCache(now),
    sessions: new Sessions(options.storage, SESSION_RECORDS, config, now, { ...DEFAULT_SESSION_TIMEOUTS, ...options.sessionTimeouts }),
    now,
    maxPendingEvents: options.maxPendingEvents ?? 50_000,
    webhooks: webhookSettings(options.webhooks),
  };
  app.decorate('svc', ctx);

  // Request metrics, labelled by route pattern (not URL: ids in paths would explode the label set). Each route gets
  // its own onResponse hook with its pattern in the closure: `request.routeOptions` builds a fresh object on every
  // read. Callback hooks, not async ones: an async hook costs a
  // promise each time. Requests no route matched are counted as `unmatched` (below).
  const observer = (route: string) => {
    const observe = ctx.metrics.routeObserver(route);
    return (request: FastifyRequest, reply: FastifyReply): void => {
      observe(request.method, reply.statusCode, reply.elapsedTime / 1000);
      if (reply.statusCode >= 500) request.log.warn({ route, status: reply.statusCode }, 'request failed');
    };
  };
  app.addHook('onRoute', (route) => {
    options.onRoute?.(route);
    const observe = observer(route.url);
    const measure = (request: FastifyRequest, reply: FastifyReply, done: () => void): void => {
      observe(request, reply);
      done();
    };
    route.onResponse = withHook(route.onResponse, measure);
  });
  // Requests no route matched are counted by the not-found handler once answered (an onResponse hook of every
  // route would run for every request to find the few that matched nothing).
  installErrorHandlers(app, { onNotFoundAnswered: observer('unmatched') });
  // Every answer, errors and static files included: browsers must not guess a type other than the one sent.
  app.addHook('onRequest', (_request, reply, done) => {
    reply.header('x-content-type-options', 'nosniff');
    done();
  });
  consoleHeaders(app);
  registerBodyParsers(app);

  // OpenFeature's routes find their project by the key, which a preflight does not carry.
  registerCors(app, config, { keyProjectPrefixes: [OFREP_PREFIX] });
  await app.register(rateLimit, { global: false, store: tokenBucketStore(ctx.now) });

  // Erased people: refused by ingestion (read in its transaction) and by Choose (this copy), forgotten by its caches.
  const suppressions = new SuppressionList(options.storage, (project, ids) => choose.forget(project, ids), { logger: app.log });
  await suppressions.start();
  const choose = new ChooseService({ ...ctx, logger: app.log, suppressions });
  const privacy = new PrivacyRunner({
    storage: options.storage, now, logger: app.log, onSuppressed: () => suppressions.refresh(), ...options.privacy,
  });
  const retention = new RetentionSweeper(options.storage, () => config.projects(), {
    now, logger: app.log, ...(options.retentionIntervalMs !== undefined ? { intervalMs: options.retentionIntervalMs } : {}),
  });
  // Results' index of exposures by experiment, kept up from the queue the exposure rows' inserts fill.
  const exposureIndex = new ExposureIndexer(options.storage, { logger: app.log });
  app.addHook('onClose', () => Promise.all([privacy.close(), suppressions.close(), retention.close(), exposureIndex.close()]).then(() => undefined));
  // After the server stopped taking requests and answered the in-flight ones, and before the caller closes storage:
  // nothing accepted is lost on a graceful shutdown.
  app.addHook('onClose', () => choose.close());

  const results = new ResultsService(options.storage);
  const guardrails = new GuardrailWatch({ ...ctx, results }, {
    now, logger: app.log, ...(options.guardrailIntervalMs !== undefined ? { intervalMs: options.guardrailIntervalMs } : {}),
  });
  app.addHook('onClose', () => guardrails.close());
  const bandits = new BanditWatch({ ...ctx, results }, {
    now, logger: app.log, ...(options.banditIntervalMs !== undefined ? { intervalMs: options.banditIntervalMs } : {}),
  });
  app.addHook('onClose', () => bandits.close());
  // Closed before the storage: the attempts under way are recorded (or, cut short, sent again after their lease).
  const webhooks = new WebhookDispatcher(ctx, { userAgent: `svc-webhooks/${packageJson.version}`, logger: app.log });
  app.addHook('onClose', () => webhooks.close());
  const feedDeps = { ...ctx, inHoldout: choose.inHoldout.bind(choose) };
  const limiter = new SignInLimiter(now, { ...DEFAULT_SIGN_IN_LIMITS, ...options.signInLimits });
  // Every route of the API, in one shape: registered one way, and described by GET /v1/openapi.json from this list.
  const routes: ApiRoute[] = [
    trackRoute({
      ...ctx,
      heldEvents: () => (ctx.models.failing ? 0 : ctx.models.behind),
      identityChanged: () => ctx.canonicalProfiles.invalidateAll(),
    }, events),
    chooseRoute(choose),
    consentRoute(ctx),
    feedRoute(feedDeps),
    feedBatchRoute(feedDeps),
    feedReportRoute(ctx),
    feedPreviewRoute(ctx),
    resultsRoute(ctx, results),
    planRoute(new PlanService(options.storage, now)),
    ...ofrepRoutes({ choose }),
    ...managementRoutes(ctx),
    ...accessRoutes(ctx),
    ...sessionRoutes({ ...ctx, limiter, people: PEOPLE_WRITES }),
    ...oidcRoutes({ ...ctx, people: PEOPLE_WRITES }),
    ...privacyRoutes(ctx, privacy),
    ...webhookRoutes({ ...ctx, audit: appendAudit }),
    ...catalogRoutes(ctx),
    catalogSearchRoute(ctx),
    healthRoute({ storage: options.storage, configHealth: () => managed.health }),
    metricsRoute(ctx.metrics),
  ];
  routes.push(...apiReferenceRoutes(() => openApiDocument(routes, packageJson.version)));
  await registerApiRoutes(app, config, routes);
  for (const route of options.routes ?? []) await route(app, ctx);
  if (options.staticRoot !== undefined) await staticRoutes(app, options.staticRoot);
  // The configured catalogs are in storage before the first request (reloaded configs are seeded on first use).
  await ctx.feeds.seedAll(config.config);
  if (options.warm) await choose.warm(config.projects());
  // Requests left running by a node that stopped are taken over once their lease lapses.
  privacy.start();
  retention.start();
  exposureIndex.start();
  guardrails.start();
  bandits.start();
  webhooks.start();

  return app;
}
