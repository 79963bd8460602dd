import type { Choice, ChooseParams, TrackParams } from '../../src/index.js';

/** Anything with `choose()` (and `track()`, to report what it showed): a ServiceJs instance. */
export interface Chooser {
  choose(params: ChooseParams): Promise<Choice[]>;
  track?(params: TrackParams): void;
}

/** Per instance, the names gathered for its next `choose()` call and that call's answer. */
const pending = new Map<Chooser, { names: Set<string>; answer: Promise<Choice[]> }>();

/**
 * The choice `chooser` answers for `name`, `undefined` when it chose nothing. Elements on one page ask for their
 * experience one by one as they connect; asking the service once per element would cost a request each. Names asked
 * before the next task are gathered into one `choose()` call (a macrotask, because each element updates in its own
 * microtask).
 */
export function requestChoice(chooser: Chooser, name: string): Promise<Choice | undefined> {
  let batch = pending.get(chooser);
  if (!batch) {
    const names = new Set<string>();
    const answer = new Promise((resolve) => setTimeout(resolve, 0))
      .then(() => {
        pending.delete(chooser);
        // The elements report each exposure when they show it: the answer records none.
        return chooser.choose({ names: [...names], deferExposure: true });
      })
      // choose() already answers [] on failure; this guards a replaced implementation
      .catch((): Choice[] => []);
    batch = { names, answer };
    pending.set(chooser, batch);
  }
  batch.names.add(name);
  // A replaced choose() may answer something other than a list: that is no choice, as a failure is.
  return batch.answer.then((choices) => (Array.isArray(choices) ? choices.find((c) => c?.name === name) : undefined));
}
