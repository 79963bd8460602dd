import type { CanonicalProfileCache } from './identity/canonical-profile-cache.js';
import type { ConfigStore } from './config/config-store.js';
import type { ServiceMetrics } from './metrics/service-metrics.js';
import type { FeedService } from './recommendations/feed-service.js';
import type { ModelApplier } from './recommendations/model-applier.js';
import type { ManagedConfig } from './management/managed-config.js';
import type { Sessions } from './auth/sessions.js';
import type { Storage } from './storage/storage.js';
import type { WebhookSettings } from './webhooks/webhook-options.js';

/** What every route of one app shares; reachable as `app.svc` (e.g. by the Choose API route). */
export interface ServiceContext {
  config: ConfigStore;
  /** The file with the management API's items laid over it, kept current from the database; SIGHUP goes through it. */
  managed: ManagedConfig;
  storage: Storage;
  metrics: ServiceMetrics;
  /** Keeps the recommendation models caught up with stored events (applied behind the track answers). */
  models: ModelApplier;
  /** Recommendation feeds (feed endpoint and Choose's feed-backed experiences answer the same list). */
  feeds: FeedService;
  /** Profile → canonical profile for the Choose API; cleared when this node stores an identify or alias. */
  canonicalProfiles: CanonicalProfileCache;
  /** The console's sign-in sessions (cookies), read by every management route a person may call. */
  sessions: Sessions;
  /** The clock (tests pin it); epoch milliseconds. */
  now: () => number;
  /** Most events this node holds accepted but not yet committed; a track request past it is answered 503. */
  maxPendingEvents: number;
  /** How webhooks are sent: the public URL of console links, the addresses allowed, the delivery rhythm. */
  webhooks: WebhookSettings;
}

declare module 'fastify' {
  interface FastifyInstance {
    svc: ServiceContext;
  }
}
