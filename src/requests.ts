import { clean } from './clean.js';
import type { ResolvedConfig } from './config.js';
import { detectDevice } from './device.js';
import { projectUrl } from './endpoint-urls.js';
import { postJson } from './fetch-json.js';
import { isChoice, type Choice, type ChooseParams, type RecommendationParams } from './params.js';
import type { ChooseRequestBody } from '../wire/choose.js';

// The Choose and feed requests, apart from ServiceJs: the page SDK's core (dist/service.js) carries them only in the
// element chunks that ask, and fetches them on first use elsewhere (bundles/lazy-requests.ts).

const TIMEOUT_MS = 5000;

/** `POST …/optimization/choose-api`: the choices the service answers, or null on any failure (it never rejects). */
export async function requestChoices(
  c: ResolvedConfig, ids: { profileId: string; sessionId: string }, params: ChooseParams,
): Promise<Choice[] | null> {
  const answer = await postJson(
    projectUrl(c, 'optimization', 'choose-api'),
    c.authorization,
    clean({
      identification: { sourceId: c.sourceId, profileId: ids.profileId },
      names: params.names,
      groups: params.groups,
      deferExposure: params.deferExposure === true || undefined,
      device: detectDevice(),
      sessionId: ids.sessionId,
    } satisfies ChooseRequestBody),
    TIMEOUT_MS,
  );
  const choices = (answer as { choices?: unknown } | null)?.choices;
  return Array.isArray(choices) ? choices.filter(isChoice) : null;
}

/** `POST …/feeds/{id}/data`: a feed's products for `profileId`, or null on any failure (it never rejects). */
export function requestFeed(c: ResolvedConfig, profileId: string, params: RecommendationParams, productId?: string): Promise<unknown> {
  return postJson(
    projectUrl(c, 'feeds', encodeURIComponent(String(params.id)), 'data'),
    c.authorization,
    clean({ profileId, sourceId: c.sourceId, limit: params.quantity, fields: params.fields, productId, excludeProducts: params.excludeProducts }),
    TIMEOUT_MS,
  );
}

/**
 * `POST …/feeds/data`: several feeds for one page in one request, no product in two of their answers (unless a feed
 * keeps duplicates). Answers each feed's answer (`{products, recommendationId}` or `{error}`) in `list`'s order, or null
 * on any failure (it never rejects). A feed's own `productId` wins over the page's.
 */
export async function requestFeeds(
  c: ResolvedConfig, profileId: string, list: RecommendationParams[], productId?: string, excludeProducts?: string[],
): Promise<unknown[] | null> {
  const answer = await postJson(
    projectUrl(c, 'feeds', 'data'),
    c.authorization,
    clean({
      profileId, sourceId: c.sourceId, productId, excludeProducts,
      requests: list.map((p) => clean({ feed: p.id, limit: p.quantity, fields: p.fields, productId: p.productId })),
    }),
    TIMEOUT_MS,
  );
  const answers = (answer as { answers?: unknown } | null)?.answers;
  return Array.isArray(answers) ? answers : null;
}
