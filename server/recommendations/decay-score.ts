// Time-decayed popularity without a recompute: a product event of weight w at time t adds
// w·2^((t − SCORE_EPOCH_MS) / HALF_LIFE_MS) to the product's stored score. The decayed score at any time `now` is
// stored·2^(−(now − epoch)/half-life): the same factor for every product, so ORDER BY the stored value IS the
// ranking by decayed score, at every moment, and an update is a plain addition (ON CONFLICT … score + excluded.score).
// Doubles hold 2^1023, i.e. ≈ 1000 half-lives (≈ 19 years) past the epoch; event times are clamped to the
// receiving node's clock so that a client clock in 2100 cannot overflow a score.

/** Popularity halves every 7 days. */
export const HALF_LIFE_MS = 7 * 24 * 3600 * 1000;
/** The reference time of every stored score (2024-01-01T00:00:00Z). */
export const SCORE_EPOCH_MS = Date.UTC(2024, 0, 1);

/**
 * What one event is worth: an order says more than a cart, a cart more than a view. A Map, because it is looked up
 * by an event's name, which the caller chose: an object would answer `constructor` with an inherited function.
 */
export const EVENT_WEIGHTS: ReadonlyMap<string, number> = new Map([
  ['Product viewed', 1],
  ['Added to cart', 3],
  ['Product ordered', 5],
]);

/** The stored-score contribution of an event of `weight` at `atMs` (clamped to `nowMs`). */
export function scoreContribution(weight: number, atMs: number, nowMs: number): number {
  const t = Math.min(atMs, nowMs);
  return weight * 2 ** ((t - SCORE_EPOCH_MS) / HALF_LIFE_MS);
}

/** A stored score as its value decayed to `nowMs` (for display and tests; ranking needs no conversion). */
export function decayedScore(stored: number, nowMs: number): number {
  return stored * 2 ** (-(nowMs - SCORE_EPOCH_MS) / HALF_LIFE_MS);
}
