// A token-bucket store for @fastify/rate-limit: its built-in store counts fixed windows, which cannot say
// "50 per second with bursts of 100". The plugin hands us `max` and `timeWindow`; here `max` is the bucket
// size (the burst) and `timeWindow` the time to refill it completely, so the rate is max / timeWindow.
// State is per node and in memory: rate limiting is a local protection, not a guard that must agree
// across nodes (the database guards duplicates and assignments, not request rates).

import { OldestFirst } from '../memory/oldest-first.js';

type IncrCallback = (error: Error | null, result: { current: number; ttl: number }) => void;

interface Bucket {
  tokens: number;
  at: number;
}

const MAX_BUCKETS = 50_000;

export class TokenBucketStore {
  private readonly buckets = new Map<string, Bucket>();
  private readonly oldest = new OldestFirst(this.buckets);
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  private take(key: string, timeWindow: number, max: number, consume: boolean): { current: number; ttl: number } {
    const now = this.now();
    const rate = max / timeWindow;
    const bucket = this.buckets.get(key) ?? { tokens: max, at: now };
    // A clock that stepped back (an NTP correction) refills nothing and takes nothing away.
    bucket.tokens = Math.min(max, bucket.tokens + Math.max(0, now - bucket.at) * rate);
    bucket.at = now;
    // Re-insert to keep the Map in least-recently-used order; the oldest bucket goes first when full.
    this.buckets.delete(key);
    this.buckets.set(key, bucket);
    if (this.buckets.size > MAX_BUCKETS) this.oldest.take();
    if (bucket.tokens >= 1) {
      if (consume) bucket.tokens -= 1;
      return { current: max - Math.floor(bucket.tokens), ttl: Math.ceil((max - bucket.tokens) / rate) };
    }
    // Empty: "over max" for the plugin, and the ttl (→ Retry-After) is the wait for the next token.
    return { current: max + 1, ttl: Math.max(1, Math.ceil((1 - bucket.tokens) / rate)) };
  }

  incr(key: string, callback: IncrCallback, timeWindow: number, max: number): void {
    callback(null, this.take(key, timeWindow, max, true));
  }

  read(key: string, callback: IncrCallback, timeWindow: number, max: number): void {
    callback(null, this.take(key, timeWindow, max, false));
  }

  /** One store for every route: a (key, IP) pair has one budget across the browser endpoints. */
  child(): TokenBucketStore {
    return this;
  }
}

/** The store class the plugin instantiates, bound to a clock (the app's `now`, pinned in tests). */
export function tokenBucketStore(now: () => number): new () => TokenBucketStore {
  return class extends TokenBucketStore {
    constructor() {
      super(now);
    }
  };
}
