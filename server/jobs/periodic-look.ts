// The rhythm every watch of running experiments keeps (the guardrail watch, the bandits' reweights): a look every
// interval on a timer that keeps no process alive, the next one only after the last ended, a look asked for while one
// runs joining it, and a close that waits for the look under way.

export class PeriodicLook<T> {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<T> | null = null;
  #closed = false;

  constructor(private readonly look: () => Promise<T>) {}

  /** Closed: the watch looks no more (a look under way stops at its next experiment). */
  get closed(): boolean {
    return this.#closed;
  }

  /** Looks every `every` ms from now, each interval counted from the end of the look before. */
  start(every: number): void {
    const next = (): void => {
      this.#timer = setTimeout(() => {
        void this.now().finally(() => {
          if (!this.#closed) next();
        });
      }, every);
      this.#timer.unref();
    };
    next();
  }

  /** Looks now, or joins the look under way. */
  now(): Promise<T> {
    this.#running ??= this.look().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#running;
  }
}
