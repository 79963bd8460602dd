// The `experiences` plugin: `<svc-experience>` and the instance it resolves through.
import { defineElement, type ServicePlugin, type TrackParams } from '../../src/index.js';
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
      // `track` reports the exposures the elements show, as this instance's events (through its outbox).
      const chooser = { choose: ctx.choose, track: (p: TrackParams) => void ctx.emit({ type: 'track', name: p.eventTitle, data: p.data }) };
      return setDefaultChooser(chooser);
    },
  };
}
