import { FeedPreviewAnswer, FeedPreviewBody } from '../../wire/api/feed-schema.js';
import { MAX_ID_LENGTH } from '../../wire/event.js';
import type { ConfigStore } from '../config/config-store.js';
import { ConfigError } from '../config/config-error.js';
import type { FeedConfig } from '../config/config-types.js';
import { validateFeedItem } from '../config/validate-config.js';
import { checkFeedFills, MAX_FEED_PRODUCTS } from '../config/validate-feed-rules.js';
import { ServiceError } from '../errors/service-error.js';
import { refuseJsonHazards } from '../http/json-hazards.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import type { Storage } from '../storage/storage.js';
import { previewFeed, type PreviewRequest } from './feed-preview.js';
import type { FeedService } from './feed-service.js';

export const FEED_PREVIEW_PATH = '/v1/:org/projects/:project/feeds/preview';

/** What a preview lists when neither the request nor the feed says. */
const DEFAULT_PREVIEW_LIMIT = 10;

/** What the preview route uses of the service. */
export interface FeedPreviewRouteDeps {
  config: ConfigStore;
  storage: Storage;
  feeds: FeedService;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function optionalId(value: unknown, field: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string' || value.length > MAX_ID_LENGTH) {
    throw new ServiceError('invalid_request', `${field}: must be a string of at most ${MAX_ID_LENGTH} characters`);
  }
  return value;
}

/**
 * The body's feed, checked as a management write checks one (`feed.…` names the field), with its fallbacks checked
 * against the project's other feeds. Nothing is stored.
 * @throws ServiceError `invalid_config` naming the field, `invalid_request` for the rest of the body.
 */
function previewRequest(body: unknown, otherFeeds: readonly FeedConfig[]): PreviewRequest {
  if (!isObject(body)) throw new ServiceError('invalid_request', 'The body must be a JSON object: {feed, productId?, profileId?, limit?}');
  if (!isObject(body.feed)) throw new ServiceError('invalid_config', 'feed: must be one feed as a JSON object');
  const feed: Record<string, unknown> = { ...body.feed };
  // What the management API adds to a feed it answers: a console may send back what it read.
  delete feed.version;
  delete feed.source;
  refuseJsonHazards(feed, 'invalid_config', 'feed');
  try {
    validateFeedItem(feed);
    // The feed first: a fallback cycle through it is named at its own fallback, `feeds[0]…`, which is `feed…` here.
    checkFeedFills([feed, ...otherFeeds.filter((f) => f.id !== feed.id)] as never[], 'feeds');
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new ServiceError('invalid_config', error.message.startsWith('feeds[0]') ? `feed${error.message.slice('feeds[0]'.length)}` : error.message);
  }
  const limit = body.limit ?? (feed.limit as number | undefined) ?? DEFAULT_PREVIEW_LIMIT;
  if (!Number.isInteger(limit) || (limit as number) < 1 || (limit as number) > MAX_FEED_PRODUCTS) {
    throw new ServiceError('invalid_request', `limit: must be a whole number from 1 to ${MAX_FEED_PRODUCTS}`);
  }
  const productId = optionalId(body.productId, 'productId');
  const profileId = optionalId(body.profileId, 'profileId');
  return {
    feed: feed as unknown as FeedConfig, limit: limit as number,
    ...(productId !== undefined ? { productId } : {}), ...(profileId !== undefined ? { profileId } : {}),
  };
}

/**
 * `POST /v1/{org}/projects/{project}/feeds/preview` (an editor's session or admin key, as a management write):
 * `{feed, productId?, profileId?, limit?}` → each strategy's list, the feed's list with its rules, and why the rules
 * left products out (wire/feed-preview.ts). The feed may be unsaved; it is validated like a write (400
 * `invalid_config` naming the field) and never stored; no recommendation is recorded and no holdout consulted.
 */
export function feedPreviewRoute(ctx: FeedPreviewRouteDeps): ApiRoute {
  return apiRoute<{ Params: ProjectParams }>({
    method: 'POST',
    path: FEED_PREVIEW_PATH,
    tag: 'Recommendations',
    summary: 'Preview a feed, saved or not',
    description: 'Each strategy\'s list, the feed\'s list with its rules, and why the rules left products out. The feed is '
      + 'validated as a write is and never stored; no recommendation is recorded.',
    access: { kind: 'project', keys: ['adminKey'], role: 'editor' },
    request: { json: FeedPreviewBody },
    answers: { 200: { description: 'The preview.', json: FeedPreviewAnswer } },
    errors: ['invalid_request', 'invalid_config'],
    handler: async (request) => {
      const project = request.auth!.project;
      const preview = previewRequest(request.body, project.config.feeds ?? []);
      return previewFeed(ctx.storage, ctx.feeds, project, preview);
    },
  });
}
