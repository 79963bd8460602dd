// The rhythm of every worker that drains a queue in the database (privacy requests, webhook deliveries): a look every
// `pollMs` on a timer that keeps no process alive, and at once when asked (a node queued work); asked while it runs, it
// goes round once more after, so nothing queued meanwhile waits for the next tick; a close waits for the run under way.

export class PolledQueue {
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | null = null;
  #again = false;
  #closed = false;

  /** `drain` runs until nothing is due; `onAsked` is told when a look is asked for while it runs (to wake it). */
  constructor(private readonly drain: () => Promise<void>, private readonly onAsked: () => void = () => undefined) {}

  /** Closed: no run starts, and the one under way should stop at its next step. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Looks every `pollMs`, and now. */
  start(pollMs: number): void {
    this.#timer = setInterval(() => void this.kick(), pollMs);
    this.#timer.unref();
    void this.kick();
  }

  /** Drains now, or has the run under way go round once more. Resolves when nothing was left. */
  kick(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running !== null) {
      this.#again = true;
      this.onAsked();
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.drain();
      } while (this.#again && !this.#closed);
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    await this.#running;
  }
}
