import { randomUUID } from 'node:crypto';
import type { ProjectRef } from '../config/config-store.js';
import { DEFAULT_PURCHASED_DAYS, type FeedConfig, type ProductConfig, type ProjectConfig, type ServiceConfigFile } from '../config/config-types.js';
import type { Storage } from '../storage/storage.js';
import type { FeedQuery } from './feed-query.js';
import { recommend, recommendWithRules, upsertProducts } from './catalog-store.js';
import { fillSources, hasMerchandising } from '../config/feed-sources.js';
import type { RemovalCollector } from './feed-rules-program.js';
import { PopularRankings } from './popular-ranking.js';
import type { ModelApplier } from './model-applier.js';
import { ISSUE_RECOMMENDATION } from './issued-recommendations.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';

const DAY_MS = 24 * 3600 * 1000;

/** The longest a feed read waits for the models to count what its node stored (a pass takes milliseconds). */
const SETTLE_MS = 1000;

/** What the feed endpoint and the Choose API ask a feed for. */
export type FeedRequest = Omit<FeedQuery, 'strategy'>;

/** A feed answer: its products, and the id under which the service recorded it (issued-recommendations.ts). */
export interface FeedAnswer {
  products: ProductConfig[];
  recommendationId: string;
}

/**
 * The recommendations service both the feed endpoint and the Choose API use, so they answer the same list for
 * the same visitor. It also keeps the configured catalog (`catalog` in svc.config.json) stored: seeded at start
 * and again, lazily, for each new config object (a SIGHUP reload creates new ones), on every node — so no node
 * needs to be told about a reload. A config product and an API-upserted product with the same id: the latest
 * write wins, and a start or reload writes the config's version again.
 * @example const products = await feeds.products(project, 1, { profileId, limit: 4 });
 */
export class FeedService {
  private readonly seeded = new WeakMap<ProjectConfig, Promise<void>>();
  /** The popular ranking's head per project, for feeds whose filters narrow popular products (popular-ranking.ts). */
  private readonly rankings: PopularRankings;

  /** `models`: what keeps the models caught up with stored events (model-applier.ts); a read settles it first. */
  constructor(
    private readonly storage: Storage,
    private readonly models?: Pick<ModelApplier, 'settle'>,
    private readonly now: () => number = Date.now,
  ) {
    this.rankings = new PopularRankings(storage, now);
  }

  /** Seeds every project's configured catalog (buildApp awaits it). */
  async seedAll(config: ServiceConfigFile): Promise<void> {
    for (const [org, orgConfig] of Object.entries(config.organizations)) {
      for (const [name, projectConfig] of Object.entries(orgConfig.projects)) {
        await this.ensureCatalog(`${org}/${name}`, projectConfig);
      }
    }
  }

  /** Stores this config object's catalog once; a failure is retried by the next call. */
  ensureCatalog(projectKey: string, config: ProjectConfig): Promise<void> {
    const done = this.seeded.get(config);
    if (done) return done;
    const catalog = config.catalog ?? [];
    const seeding = catalog.length === 0
      ? Promise.resolve()
      : upsertProducts(this.storage, projectKey, catalog).then(() => undefined, (error: unknown) => {
        this.seeded.delete(config);
        throw error;
      });
    this.seeded.set(config, seeding);
    return seeding;
  }

  /** The feed's configuration, or undefined when the project has no feed with this id. */
  feed(project: ProjectRef, feedId: number): FeedConfig | undefined {
    return project.config.feeds?.find((f) => f.id === feedId);
  }

  /**
   * The products of `feed` for one request: stored catalog objects, best first. `collect` is told why the rules left
   * products out (the console's preview); the feed endpoint and Choose pass none.
   */
  async products(project: ProjectRef, feed: FeedConfig, request: FeedRequest, collect?: RemovalCollector): Promise<ProductConfig[]> {
    await this.ensureCatalog(project.key, project.config);
    // A visitor's own views, stored on this node, count in their feed (unless an overload keeps the models behind for
    // longer than a page view can wait). Aggregates may be a fraction of a second behind (model-applier.ts).
    if (request.profileId !== undefined) {
      await this.models?.settle({ project: project.key, profileId: request.profileId, maxWaitMs: SETTLE_MS });
    }
    // What the page shows elsewhere is left out by a feed that dedupes (the default); `dedupe: false` shows it all the same.
    const { onPage, ...rest } = request;
    const query = {
      ...rest, strategy: feed.strategy, limit: Math.min(request.limit, feed.limit ?? request.limit),
      ...(feed.dedupe !== false && onPage !== undefined && onPage.length > 0 ? { onPage } : {}),
    };
    // A feed without rules reads as it always has (the strategy, then popular): one program, no rule reads.
    if (collect === undefined && !hasMerchandising(feed)) {
      return recommend(this.storage, project.key, query);
    }
    const fills = fillSources(feed, project.config.feeds ?? []);
    const readsPopular = [feed.strategy, ...fills].some((s) => s === 'popular' || s === 'popular-in-category');
    const filtered = readsPopular && (feed.rules ?? []).some((rule) => 'filter' in rule);
    return recommendWithRules(this.storage, project.key, query, {
      rules: feed.rules ?? [],
      exclude: feed.exclude ?? [],
      purchasedSince: this.now() - (feed.purchasedDays ?? DEFAULT_PURCHASED_DAYS) * DAY_MS,
      fills,
      ...(filtered || fills.includes('popular-in-category') ? { ranking: await this.rankings.get(project.key) } : {}),
    }, collect);
  }

  /**
   * The products of `feed` for one request, with a new `recommendationId` under which the answer (feed, strategy,
   * profile, product ids) is recorded before it is returned: the feed report credits only the lists recorded so.
   */
  async answer(project: ProjectRef, feed: FeedConfig, request: FeedRequest): Promise<FeedAnswer> {
    const products = await this.products(project, feed, request);
    const recommendationId = randomUUID();
    await this.storage.place(ISSUE_RECOMMENDATION, {
      project: project.key, id: recommendationId, feedId: feed.id, strategy: feed.strategy, profileId: request.profileId,
      products: products.map((p) => p.id), issuedAt: this.now(),
    });
    return { products, recommendationId };
  }
}

/**
 * The project's feed a path names (`…/feeds/{id}/…`): a positive integer id the project configures.
 * @throws ServiceError `feed_not_found` for any other text.
 */
export function feedOfPath(project: ProjectRef, id: string): FeedConfig {
  const feedId = /^[1-9][0-9]{0,9}$/.test(id) ? Number(id) : NaN;
  const feed = project.config.feeds?.find((f) => f.id === feedId);
  if (!feed) throw new ServiceError('feed_not_found', `There is no feed ${quoted(id)} in this project.`);
  return feed;
}

/** `{id, …requested fields}` of a product: only fields it has (unknown ones are simply absent). */
export function pickFields(product: ProductConfig, fields: readonly string[]): Record<string, unknown> {
  const picked: [string, unknown][] = [['id', product.id]];
  for (const field of fields) {
    if (field !== 'id' && Object.hasOwn(product, field)) picked.push([field, product[field]]);
  }
  // Own entries: a field named `__proto__` is copied as a field, never set as the answer's prototype.
  return Object.fromEntries(picked);
}

/** The product fields that hold an address: a link and an image. */
const LINK_FIELDS = ['url', 'image'];

/**
 * The picked product with a relative `url` or `image` (`/p/p1`, from a catalog written for the service's own demo)
 * resolved against the service's origin, so a card links and shows the same on a page of any origin (a CMS's).
 * Absolute addresses are left as they are.
 */
export function absoluteLinks(picked: Record<string, unknown>, origin: string): Record<string, unknown> {
  for (const field of LINK_FIELDS) {
    const value = picked[field];
    if (typeof value !== 'string' || value === '' || URL.canParse(value)) continue;
    try {
      picked[field] = new URL(value, origin).href;
    } catch {
      // Not an address even against the origin: left as the catalog wrote it.
    }
  }
  return picked;
}
