import { FeedBatchAnswer, FeedBatchBody as FeedBatchSchema } from '../../wire/api/feed-schema.js';
import type { ProjectRef } from '../config/config-store.js';
import type { FeedConfig } from '../config/config-types.js';
import { HOLDOUT_ANSWER } from '../config/recommendations-holdout.js';
import { quoted } from '../errors/echo-input.js';
import { errorBody, ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { absoluteLinks, feedOfPath, pickFields } from './feed-service.js';
import type { FeedRouteDeps } from './feed-route.js';
import { validateFeedBatch, type FeedBatchBody, type FeedBatchRefusal, type FeedBatchRequest } from './validate-feed-batch.js';

export const FEED_BATCH_PATH = '/v1/:org/projects/:project/feeds/data';

/** A request of the batch whose feed the project configures. */
interface Found extends FeedBatchRequest {
  config: FeedConfig;
}

/** The request's feed, or its refusal (`feed_not_found`, as the feed endpoint answers it). */
function found(project: ProjectRef, request: FeedBatchRequest | FeedBatchRefusal): Found | FeedBatchRefusal {
  if ('error' in request) return request;
  try {
    return { ...request, config: feedOfPath(project, String(request.feed)) };
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return { feed: request.feed, error };
  }
}

/**
 * The order the requests are answered in: feeds with `dedupe: false` first (they leave nothing out, and what they show
 * is on the page all the same), then the deduping feeds in the page's order, each leaving out what the page already
 * shows (`excludeProducts`) and every answer before it.
 */
function answerOrder(requests: readonly (Found | FeedBatchRefusal)[]): number[] {
  const indices = requests.flatMap((r, i) => ('config' in r ? [i] : []));
  const keeps = (i: number): boolean => (requests[i] as Found).config.dedupe === false;
  return [...indices.filter(keeps), ...indices.filter((i) => !keeps(i))];
}

/**
 * `POST /v1/{org}/projects/{project}/feeds/data`: the feed requests of the widgets of one page, answered together so
 * that no product shows in two of them. `{profileId, sourceId, productId?, sessionId?, excludeProducts?, requests:
 * [{feed, limit, fields, productId?}]}` (at most MAX_BATCH requests) → `{answers: [{feed, products, recommendationId}
 * | {feed, error: {code, message}}]}` in the requests' order; each answer is recorded under its own recommendationId
 * (issued-recommendations.ts), and a person in the recommendations holdout gets `{feed, products: [], holdout: true}`
 * for each. Auth and checks as the feed endpoint's: credentials, the batch's shape (400), source (403); a request's
 * own bad fields or unknown feed refuse that request only.
 */
export function feedBatchRoute(ctx: FeedRouteDeps): ApiRoute {
  return apiRoute<{ Params: ProjectParams }>({
    method: 'POST',
    path: FEED_BATCH_PATH,
    tag: 'Recommendations',
    summary: 'The feeds of one page, without a product twice',
    description: 'Feeds with `dedupe: false` are answered first, then the deduping ones in the page\'s order, each leaving out '
      + 'what the page already shows. A request\'s own bad fields or unknown feed refuse that request only.',
    access: { kind: 'project', keys: ['writeKey', 'apiKey'] },
    request: { json: FeedBatchSchema },
    answers: { 200: { description: 'One answer per request, in their order.', json: FeedBatchAnswer } },
    errors: ['invalid_request', 'source_not_allowed'],
    handler: async (request) => {
      const auth = request.auth;
      const project = auth?.project;
      if (!auth || !project) throw new ServiceError('missing_credentials', 'Send HTTP Basic credentials with a writeKey.');
      const body = validateFeedBatch(request.body);
      if (!project.config.sources.includes(body.sourceId)) {
        throw new ServiceError('source_not_allowed', `The source ${quoted(body.sourceId)} is not a source of this project.`);
      }
      const requests = body.requests.map((r) => found(project, r));
      const answers: unknown[] = requests.map((r) => ('error' in r ? { ...(r.feed !== undefined ? { feed: r.feed } : {}), ...errorBody(r.error.code, r.error.message) } : undefined));
      const order = answerOrder(requests);
      if (order.length === 0) return { answers };
      const identification = { form: 'profile', sourceId: body.sourceId, profileId: body.profileId } as const;
      if (await ctx.inHoldout?.(auth, identification, body.sessionId)) {
        for (const i of order) answers[i] = { feed: (requests[i] as Found).feed, ...HOLDOUT_ANSWER };
        return { answers };
      }
      const origin = `${request.protocol}://${request.host}`;
      await answerInOrder(ctx, project, body, requests as Found[], order, answers, origin);
      return { answers };
    },
  });
}

/** Answers the found requests in `order`, each leaving out (if its feed dedupes) what the page showed before it. */
async function answerInOrder(
  ctx: FeedRouteDeps, project: ProjectRef, body: FeedBatchBody, requests: readonly Found[], order: readonly number[],
  answers: unknown[], origin: string,
): Promise<void> {
  const onPage = new Set(body.excludeProducts);
  for (const i of order) {
    const r = requests[i]!;
    const productId = r.productId ?? body.productId;
    const { products, recommendationId } = await ctx.feeds.answer(project, r.config, {
      profileId: body.profileId, limit: r.limit, onPage: [...onPage], ...(productId !== undefined ? { productId } : {}),
    });
    for (const p of products) onPage.add(p.id);
    answers[i] = { feed: r.feed, products: products.map((p) => absoluteLinks(pickFields(p, r.fields), origin)), recommendationId };
  }
}
