import { ServiceError } from '../errors/service-error.js';
import {
  bodyObject, optionalProductId, validateFeedVisitor, validateListShape, type FeedRequestBody, type FeedVisitor,
} from './validate-feed-request.js';

/** Widgets one page asks for together: more than a page shows, few enough that a batch costs what a page does. */
export const MAX_BATCH = 20;

/** One request of a batch that passed its checks: the feed as the path would name it, and the list's shape. */
export interface FeedBatchRequest extends Pick<FeedRequestBody, 'limit' | 'fields' | 'productId'> {
  /** The feed as sent (echoed in its answer). */
  feed: number | string;
}

/** One request of a batch that failed its checks: its answer is this error, the other requests are answered. */
export interface FeedBatchRefusal {
  feed?: number | string;
  error: ServiceError;
}

/** The batch endpoint's body after validation: the visitor and page, and each request or its error, in order. */
export interface FeedBatchBody extends FeedVisitor {
  requests: (FeedBatchRequest | FeedBatchRefusal)[];
}

/** A request of the batch: `{feed, limit, fields, productId?}`, checked as the feed endpoint checks its body. */
function batchRequest(raw: unknown): FeedBatchRequest | FeedBatchRefusal {
  const feed = (raw as { feed?: unknown } | null)?.feed;
  const echo = typeof feed === 'number' || typeof feed === 'string' ? { feed } : {};
  try {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new ServiceError('invalid_request', 'request: must be a JSON object');
    }
    if (echo.feed === undefined) throw new ServiceError('invalid_request', 'feed: must be a feed id');
    const body = raw as Record<string, unknown>;
    return { feed: echo.feed, ...validateListShape(body), ...optionalProductId(body.productId) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { ...echo, error };
  }
}

/**
 * Checks a batch of feed requests. The shared fields (`profileId`, `sourceId`, `productId`, `sessionId`,
 * `excludeProducts`) and the list itself refuse the whole batch (400 `invalid_request`, the feed endpoint's messages);
 * a request's own fields refuse only that request, with the message the feed endpoint would answer for its body.
 * @example validateFeedBatch({ profileId: 'p', sourceId: 'web', requests: [{ feed: 1, limit: 4, fields: ['title'] }] })
 */
export function validateFeedBatch(raw: unknown): FeedBatchBody {
  const body = bodyObject(raw);
  const visitor = validateFeedVisitor(body);
  const requests = body.requests;
  if (!Array.isArray(requests) || requests.length === 0 || requests.length > MAX_BATCH) {
    throw new ServiceError('invalid_request', `requests: must be an array of 1 to ${MAX_BATCH} feed requests`);
  }
  return { ...visitor, requests: requests.map(batchRequest) };
}
