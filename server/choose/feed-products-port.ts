import type { ProjectRef } from '../config/config-store.js';
import type { FeedProductsPort } from './engine/choose-types.js';
import type { FeedService } from '../recommendations/feed-service.js';

/**
 * The Choose engine's port to feeds: a feed-backed experience gets exactly the list the feed endpoint answers
 * for the same visitor, page product and limit (full catalog objects, since an experience names no fields), with its own
 * `recommendationId` (the answer is recorded as the feed endpoint's is). An unknown feed
 * rejects, so the engine skips the experience with a warning.
 * @example deps.feedProducts = feedProductsPort(ctx.feeds, project);
 */
export function feedProductsPort(feeds: FeedService, project: ProjectRef): FeedProductsPort {
  return async (feedId, limit, context) => {
    const feed = feeds.feed(project, feedId);
    if (!feed) throw new Error(`feed ${feedId} is not configured`);
    return feeds.answer(project, feed, {
      profileId: context.profileId, limit,
      ...(context.productId !== undefined ? { productId: context.productId } : {}),
      ...(context.onPage !== undefined ? { onPage: context.onPage } : {}),
    });
  };
}

/** Whether a feed of the project dedupes (`dedupe`, default true): the engine then asks it after the answer's other feeds. */
export function feedDedupes(feeds: FeedService, project: ProjectRef): (feedId: number) => boolean {
  return (feedId) => feeds.feed(project, feedId)?.dedupe !== false;
}
