/**
 * Where an element finds the SDK instance it works through: its plugin `set`s one in `setup` and clears it on
 * teardown. Elements often connect before the SDK's script has run (a banner high in the page), so they `watch`, or
 * wait `when` one is set. One mechanism for every element: the experiences', the recommendations' and the banner's.
 * @example const sources = new InstanceSlot<RecommendationSource>(); sources.watch((s) => s && refresh());
 */
export class InstanceSlot<T> {
  #value: T | undefined;
  readonly #watchers = new Set<(value: T | undefined) => void>();

  get current(): T | undefined {
    return this.#value;
  }

  set(value: T | undefined): void {
    this.#value = value;
    for (const watcher of [...this.#watchers]) watcher(value);
  }

  /** Calls `watcher` now when an instance is set, and on every change; returns the unsubscriber. */
  watch(watcher: (value: T | undefined) => void): () => void {
    this.#watchers.add(watcher);
    if (this.#value !== undefined) watcher(this.#value);
    return () => this.#watchers.delete(watcher);
  }

  /** The instance now, or once one is set; `undefined` when none is within `timeoutMs`. */
  when(timeoutMs: number): Promise<T | undefined> {
    if (this.#value !== undefined) return Promise.resolve(this.#value);
    return new Promise((resolve) => {
      const unwatch = this.watch((value) => {
        if (value === undefined) return;
        clearTimeout(timer);
        unwatch();
        resolve(value);
      });
      const timer = setTimeout(() => {
        unwatch();
        resolve(undefined);
      }, timeoutMs);
    });
  }
}
