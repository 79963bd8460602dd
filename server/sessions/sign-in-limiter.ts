// Failed sign-ins, counted per account and per client IP over a window: past the limit, further tries are refused
// (429 with Retry-After) until the oldest failure leaves the window, so guessing a password costs hours, while the
// account's owner is delayed, never locked out for good. Counted per node: N nodes allow N times the tries, still far
// too few to guess a 12-character password.

export interface SignInLimits {
  windowMs: number;
  perAccount: number;
  perIp: number;
}

export const DEFAULT_SIGN_IN_LIMITS: SignInLimits = { windowMs: 15 * 60_000, perAccount: 10, perIp: 50 };

export class SignInLimiter {
  readonly #failures = new Map<string, number[]>();
  readonly #limits: SignInLimits;
  readonly #now: () => number;

  constructor(now: () => number, limits: SignInLimits = DEFAULT_SIGN_IN_LIMITS) {
    this.#now = now;
    this.#limits = limits;
  }

  /** Seconds until `account` may try again from `ip`, or 0 when it may now. */
  retryAfter(account: string, ip: string): number {
    const now = this.#now();
    const wait = (key: string, limit: number): number => {
      const times = this.#recent(key, now);
      return times.length < limit ? 0 : Math.ceil((times[times.length - limit]! + this.#limits.windowMs - now) / 1000);
    };
    return Math.max(wait(`a:${account}`, this.#limits.perAccount), wait(`i:${ip}`, this.#limits.perIp), 0);
  }

  failed(account: string, ip: string): void {
    const now = this.#now();
    for (const key of [`a:${account}`, `i:${ip}`]) this.#failures.set(key, [...this.#recent(key, now), now]);
    if (this.#failures.size > 100_000) this.#prune(now);
  }

  /** A success forgets the account's failures (not the IP's: one right password does not excuse many wrong ones). */
  succeeded(account: string): void {
    this.#failures.delete(`a:${account}`);
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
