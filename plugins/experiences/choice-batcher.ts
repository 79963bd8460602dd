import type { Choice, ChooseParams, TrackParams } from '../../src/index.js';

/** Anything with `choose()` (and `track()`, to report what it showed): a ServiceJs instance. */
export interface Chooser {
  choose(params: ChooseParams): Promise<Choice[]>;
  track?(params: TrackParams): void;
}

/**
 * Elements on one page ask for their experience one by one as they connect; asking the service once per
 * element would cost a request each. Names asked before the next task are gathered into one `choose()` call
 * (a macrotask, because each element updates in its own microtask).
 */
export class ChoiceBatcher {
  #pending = new Map<Chooser, Map<string, ((choice: Choice | undefined) => void)[]>>();

  request(choose: Chooser, name: string): Promise<Choice | undefined> {
    return new Promise((resolve) => {
      let byName = this.#pending.get(choose);
      if (!byName) {
        byName = new Map();
        this.#pending.set(choose, byName);
        setTimeout(() => void this.#send(choose), 0);
      }
      const waiting = byName.get(name) ?? [];
      waiting.push(resolve);
      byName.set(name, waiting);
    });
  }

  async #send(choose: Chooser): Promise<void> {
    const byName = this.#pending.get(choose);
    this.#pending.delete(choose);
    if (!byName) return;
    let choices: Choice[] = [];
    try {
      // The elements report each exposure when they show it: the answer records none.
      choices = await choose.choose({ names: [...byName.keys()], deferExposure: true });
    } catch {
      // choose() already answers [] on failure; this guards a replaced implementation
    }
    for (const [name, waiting] of byName) {
      const choice = choices.find((c) => c.name === name);
      for (const resolve of waiting) resolve(choice);
    }
  }
}
