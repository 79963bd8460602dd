/**
 * Where an element finds the SDK instance it works through: its plugin `set`s one in `setup` and calls the remover
 * `set` returned on teardown. Elements often connect before the SDK's script has run (a banner high in the page), so
 * they `watch`, or wait `when` one is set. One mechanism for every element: the experiences', the recommendations' and
 * the banner's. With several instances the last set is current, and removing an instance that is no longer current
 * changes nothing: destroying one instance never unplugs another's elements.
 * @example const sources = new InstanceSlot<RecommendationSource>(); sources.watch((s) => s && refresh());
 */
export class InstanceSlot<T> {
  #value: T | undefined;
  readonly #watchers = new Set<(value: T | undefined) => void>();

  get current(): T | undefined {
    return this.#value;
  }

  /** Makes `value` current; returns its remover, which clears the slot only while `value` is still current. */
  set(value: T | undefined): () => void {
    this.#value = value;
    for (const watcher of [...this.#watchers]) watcher(value);
    return () => {
      if (this.#value === value) this.set(undefined);
    };
  }

  /** Calls `watcher` now when an instance is set, and on every change; returns the unsubscriber. */
  watch(watcher: (value: T | undefined) => void): () => void {
    this.#watchers.add(watcher);
    if (this.#value !== undefined) watcher(this.#value);
    return () => this.#watchers.delete(watcher);
  }

  /** The instance now, or once one is set; `undefined` when none is within `timeoutMs`. */
  when(timeoutMs: number): Promise<T | undefined> {
    let unwatch = (): unknown => undefined;
    return new Promise<T | undefined>((resolve) => {
      setTimeout(resolve, timeoutMs);
      unwatch = this.watch((value) => value !== undefined && resolve(value));
    }).finally(() => unwatch());
  }
}
