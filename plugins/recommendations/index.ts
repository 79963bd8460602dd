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
  // Defined at once, like the other elements: until an instance registers, elements stay `loading`.
  defineElement('svc-recommendations', SvcRecommendations);
  return {
    name: 'recommendations',
    setup(ctx) {
      return setRecommendationSource({ recommendation: ctx.recommendation, recommendations: ctx.recommendations, emit: ctx.emit });
    },
  };
}
