import { HOLDOUT_ANSWER } from '../config/recommendations-holdout.js';
import type { ChooseDeps } from './engine/choose-types.js';

/**
 * The engine's ports for one request of a project with a recommendations holdout: a feed-backed experience answers
 * HOLDOUT_ANSWER when `inHoldout` says the person is in it (asked once, by the first feed of the request, for all).
 */
export function holdoutFeeds(deps: ChooseDeps, inHoldout: () => Promise<boolean>): ChooseDeps {
  const feedProducts = deps.feedProducts;
  if (feedProducts === undefined) return deps;
  let held: Promise<boolean> | undefined;
  return {
    ...deps,
    feedProducts: async (feedId, limit, context) => {
      held ??= inHoldout();
      return (await held) ? HOLDOUT_ANSWER : feedProducts(feedId, limit, context);
    },
  };
}
