/**
 * Where an element finds the SDK instance it works through: its plugin `set`s one in `setup` and calls the remover
 * `set` returned on teardown. Elements often connect before the SDK's script has run (a banner high in the page), so
 * they `watch`, or wait `when` one is set. One mechanism for every element: the experiences', the recommendations' and
 * the banner's. With several instances on a page the newest set is current; removing one leaves the others set (the
 * newest of them current again), so destroying one instance never unplugs another's elements.
 * @example const sources = new InstanceSlot<RecommendationSource>(); sources.watch((s) => s && refresh());
 */
export class InstanceSlot<T> {
  // Every value set and not removed, oldest first; the last is current.
  #values: T[] = [];
  readonly #watchers = new Set<(value: T | undefined) => void>();

  get current(): T | undefined {
    return this.#values.at(-1);
  }

  /** Makes `value` current (`undefined` removes every value); returns the remover of this value alone. */
  set(value: T | undefined): () => void {
    if (value === undefined) {
      this.#values = [];
    } else {
      this.#values = this.#values.filter((v) => v !== value);
      this.#values.push(value);
    }
    this.#changed();
    return () => {
      const before = this.current;
      this.#values = this.#values.filter((v) => v !== value);
      if (this.current !== before) this.#changed();
    };
  }

  #changed(): void {
    const value = this.current;
    for (const watcher of [...this.#watchers]) watcher(value);
  }

  /** Calls `watcher` now when an instance is set, and on every change; returns the unsubscriber. */
  watch(watcher: (value: T | undefined) => void): () => void {
    this.#watchers.add(watcher);
    if (this.current !== undefined) watcher(this.current);
    return () => this.#watchers.delete(watcher);
  }

  /** The instance now, or once one is set; `undefined` when none is within `timeoutMs`. */
  when(timeoutMs: number): Promise<T | undefined> {
    if (this.current !== undefined) return Promise.resolve(this.current);
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
