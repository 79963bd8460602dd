// Failed sign-ins, counted per account and per client IP over a window: past the limit, further tries are refused
// (429 with Retry-After) until the oldest failure leaves the window, so guessing a password costs hours, while the
// account's owner is delayed, never locked out for good. Counted per node: N nodes allow N times the tries, still far
// too few to guess a 12-character password.
//
// A try is counted as a failure when it begins, before its password is hashed, and taken back when it succeeds: a
// check now and a count after the hash would let every try sent at once pass the check. Tries in flight are bounded
// too, per account and per IP, since each keeps a core busy with scrypt for tens of milliseconds.

export interface SignInLimits {
  windowMs: number;
  perAccount: number;
  perIp: number;
  /** Tries being checked at once for one account, and from one IP. */
  inFlightPerAccount: number;
  inFlightPerIp: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = {
  windowMs: 15 * 60_000, perAccount: 10, perIp: 50, inFlightPerAccount: 2, inFlightPerIp: 4,
};

/** A try under way: counted as failed unless `succeeded` or `undo` says otherwise; `end` once its check is done. */
export interface SignInAttempt {
  /** The try was right: it is taken back, and the account's earlier failures are forgotten. */
  succeeded(): void;
  /** The try is taken back, the account's earlier failures kept (an invitation used: nothing was guessed). */
  undo(): void;
  /** The check is over (right or wrong): the try no longer counts as in flight. Call it once, in a `finally`. */
  end(): void;
}

export class SignInLimiter {
  readonly #failures = new Map<string, number[]>();
  readonly #inFlight = new Map<string, number>();
  readonly #limits: SignInLimits;
  readonly #now: () => number;

  constructor(now: () => number, limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {
    this.#now = now;
    this.#limits = limits;
  }

  /**
   * Begins a try of `account` from `ip`, counted as a failure at once; or, when the account or the IP has failed too
   * often or has too many tries in flight, the seconds to wait (at least 1) and nothing is counted.
   */
  begin(account: string, ip: string): SignInAttempt | { retryAfter: number } {
    const now = this.#now();
    const a = `a:${account}`;
    const i = `i:${ip}`;
    const wait = Math.max(this.#wait(a, this.#limits.perAccount, now), this.#wait(i, this.#limits.perIp, now));
    if (wait > 0) return { retryAfter: wait };
    if ((this.#inFlight.get(a) ?? 0) >= this.#limits.inFlightPerAccount || (this.#inFlight.get(i) ?? 0) >= this.#limits.inFlightPerIp) {
      return { retryAfter: 1 };
    }
    for (const key of [a, i]) {
      this.#failures.set(key, [...this.#recent(key, now), now]);
      this.#inFlight.set(key, (this.#inFlight.get(key) ?? 0) + 1);
    }
    if (this.#failures.size > 100_000) this.#prune(now);
    let counted = true;
    let ended = false;
    const takeBack = (): void => {
      if (!counted) return;
      counted = false;
      for (const key of [a, i]) this.#forgetOne(key, now);
    };
    return {
      succeeded: () => {
        takeBack();
        // Not the IP's: one right password does not excuse many wrong ones.
        this.#failures.delete(a);
      },
      undo: takeBack,
      end: () => {
        if (ended) return;
        ended = true;
        for (const key of [a, i]) {
          const left = (this.#inFlight.get(key) ?? 1) - 1;
          if (left === 0) this.#inFlight.delete(key);
          else this.#inFlight.set(key, left);
        }
      },
    };
  }

  /** Seconds until `key` is under `limit` failures in the window, or 0 when it is now. */
  #wait(key: string, limit: number, now: number): number {
    const times = this.#recent(key, now);
    return times.length < limit ? 0 : Math.max(1, Math.ceil((times[times.length - limit]! + this.#limits.windowMs - now) / 1000));
  }

  #forgetOne(key: string, at: number): void {
    const times = this.#failures.get(key);
    const index = times?.lastIndexOf(at) ?? -1;
    if (index >= 0) times!.splice(index, 1);
  }

  #recent(key: string, now: number): number[] {
    return (this.#failures.get(key) ?? []).filter((t) => t > now - this.#limits.windowMs);
  }

  #prune(now: number): void {
    for (const key of this.#failures.keys()) {
      const recent = this.#recent(key, now);
      if (recent.length === 0) this.#failures.delete(key);
      else this.#failures.set(key, recent);
    }
  }
}
