// Versioned assignment hash, bit-compatible with GrowthBook's `hash()` (which keeps v1 beside v2 the same way).
// Both versions stay forever: an experience keeps the version it started with, so nobody moves.

/** The hash versions this service understands. */
export type HashVersion = 1 | 2;

const FNV_OFFSET_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/**
 * FNV-1a, 32 bit, over UTF-16 code units (not UTF-8 bytes): that is what GrowthBook's SDKs feed it,
 * and bit-compatibility matters more than the textbook definition for non-ASCII ids.
 * `state` lets a caller continue a hash from a precomputed prefix (see {@link seedState}).
 */
export function fnv1a32(text: string, state: number = FNV_OFFSET_BASIS): number {
  let h = state;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, FNV_PRIME);
  }
  return h >>> 0;
}

/**
 * The FNV state after hashing `seed`: hash v2 hashes `seed + value`, so a compiled experience
 * precomputes this once and {@link hashV2FromSeedState} only walks the unit id per request.
 */
export function seedState(seed: string): number {
  return fnv1a32(seed);
}

/** Hash v2 of (seed, value) given `seedState(seed)`; equal to `hash(seed, value, 2)`. */
export function hashV2FromSeedState(state: number, value: string): number {
  return (fnv1a32(String(fnv1a32(value, state))) % 10000) / 10000;
}

/**
 * Deterministic bucket in [0, 1) for `value` under `seed`.
 * - v2 (default for new experiences): fnv(str(fnv(seed + value))) mod 10000, unbiased.
 * - v1 (GrowthBook's original): fnv(value + seed) mod 1000, kept for existing assignments.
 * Any other version returns `null` so a caller can refuse it rather than guess.
 *
 * @example hash('seed', 'a', 2) // 0.0505
 */
export function hash(seed: string, value: string, version: number): number | null {
  if (version === 2) return (fnv1a32(String(fnv1a32(seed + value))) % 10000) / 10000;
  if (version === 1) return (fnv1a32(value + seed) % 1000) / 1000;
  return null;
}
