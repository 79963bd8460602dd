// The `experiences` plugin: `<svc-experience>` and the instance it resolves through.
import { defineElement, type ServicePlugin } from '../../src/index.js';
import { setDefaultChooser, SvcExperience } from './experience-element.js';

export { SvcExperience, setDefaultChooser };
export type { ExperienceEventDetail, ExperienceStatus } from './experience-element.js';
export type { Chooser } from './choice-batcher.js';

/**
 * Defines `<svc-experience>` and makes this SDK instance the one the elements ask.
 * @example svc.use(experiences());
 */
export function experiences(): ServicePlugin {
  defineElement('svc-experience', SvcExperience);
  return {
    name: 'experiences',
    setup(ctx) {
      const chooser = { choose: ctx.choose };
      return setDefaultChooser(chooser);
    },
  };
}
