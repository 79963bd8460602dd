// The `recommendations` plugin: `<svc-recommendations>` and the instance it fetches through and tracks with.
import { defineElement, type ServicePlugin } from '../../src/index.js';
import { setRecommendationSource, SvcRecommendations } from './recommendations-element.js';

export { SvcRecommendations, setRecommendationSource };
export type {
  RecommendationsStatus, RecommendationSource, RecommendedProduct,
} from './recommendations-element.js';

/**
 * Defines `<svc-recommendations>` and makes this SDK instance the one the elements fetch feeds through
 * (`recommendation()`) and track impressions and clicks with.
 * @example svc.use(recommendations());
 */
export function recommendations(): ServicePlugin {
  return {
    name: 'recommendations',
    setup(ctx) {
      setRecommendationSource({ recommendation: ctx.recommendation, emit: ctx.emit });
      // Defined once there is an instance: elements already in the page upgrade now and fetch through it.
      defineElement('svc-recommendations', SvcRecommendations);
      return () => setRecommendationSource(undefined);
    },
  };
}
