import { FeedAnswer, FeedBody } from '../../wire/api/feed-schema.js';
import { quoted } from '../errors/echo-input.js';
import { ServiceError } from '../errors/service-error.js';
import { apiRoute, type ApiRoute } from '../http/api-route.js';
import type { ProjectParams } from '../http/project-endpoint.js';
import { absoluteLinks, feedOfPath, pickFields } from './feed-service.js';
import { validateFeedRequest } from './validate-feed-request.js';
import type { ConfigStore } from '../config/config-store.js';
import { HOLDOUT_ANSWER } from '../config/recommendations-holdout.js';
import type { AuthResult } from '../auth/authenticate.js';
import type { FeedService } from './feed-service.js';

export const FEED_PATH = '/v1/:org/projects/:project/feeds/:id/data';

/** What the feed route uses of the service. */
export interface FeedRouteDeps {
  config: ConfigStore;
  feeds: FeedService;
  /**
   * Whether the person is in the project's recommendations holdout, assigned and exposed as a Choose request would be
   * (ChooseService.inHoldout); absent: no holdout anywhere.
   */
  inHoldout?: (auth: AuthResult, identification: { form: 'profile'; sourceId: string; profileId: string }, sessionId?: string) => Promise<boolean>;
}

/**
 * `POST /v1/{org}/projects/{project}/feeds/{id}/data`: `{profileId, sourceId, limit,
 * fields, productId?, sessionId?, excludeProducts?}` → `{products:[{id, …requested fields}], recommendationId}`
 * (`excludeProducts`: what other widgets of the page show, left out by a feed that dedupes; the answer as recorded:
 * issued-recommendations.ts); to a person in the project's recommendations holdout `{products: [], holdout: true}`.
 * Basic writeKey (the SDK) or apiKey (a server
 * rendering the page). Order of checks: credentials (before the body is read), body shape (400), source (403),
 * feed id (404) — so a bad request never costs a database read.
 */
export function feedRoute(ctx: FeedRouteDeps): ApiRoute {
  return apiRoute<{ Params: ProjectParams & { id: string } }>({
    method: 'POST',
    path: FEED_PATH,
    tag: 'Recommendations',
    summary: 'A feed\'s products for a visitor',
    description: 'Recorded under its `recommendationId` (clicks, carts and orders are credited to it). A person in the project\'s '
      + 'recommendations holdout gets `{products: [], holdout: true}`.',
    access: { kind: 'project', keys: ['writeKey', 'apiKey'] },
    request: { json: FeedBody, params: { id: { description: 'The feed id.' } } },
    answers: { 200: { description: 'The products, with the fields asked for.', json: FeedAnswer } },
    errors: ['invalid_request', 'source_not_allowed', 'feed_not_found'],
    handler: async (request) => {
      const auth = request.auth;
      const project = auth?.project;
      if (!auth || !project) throw new ServiceError('missing_credentials', 'Send HTTP Basic credentials with a writeKey.');
      const body = validateFeedRequest(request.body);
      if (!project.config.sources.includes(body.sourceId)) {
        throw new ServiceError('source_not_allowed', `The source ${quoted(body.sourceId)} is not a source of this project.`);
      }
      const feed = feedOfPath(project, request.params.id);
      const identification = { form: 'profile', sourceId: body.sourceId, profileId: body.profileId } as const;
      if (await ctx.inHoldout?.(auth, identification, body.sessionId)) return HOLDOUT_ANSWER;
      const { products, recommendationId } = await ctx.feeds.answer(project, feed, {
        profileId: body.profileId,
        limit: body.limit,
        ...(body.productId !== undefined ? { productId: body.productId } : {}),
        ...(body.excludeProducts !== undefined ? { onPage: body.excludeProducts } : {}),
      });
      // The request's own origin (behind a proxy, as TRUST_PROXY lets it say): the address the SDK reached the service at.
      const origin = `${request.protocol}://${request.host}`;
      return { products: products.map((p) => absoluteLinks(pickFields(p, body.fields), origin)), recommendationId };
    },
  });
}
