import { getEqualWeights } from './equal-weights.js';

/** Half-open interval [start, end) of the unit hash that falls into one variation. */
export type BucketRange = [start: number, end: number];

/**
 * Bucket ranges for `numVariations` variations, GrowthBook's `getBucketRanges`.
 * Each variation owns a slot of width `weight`, and only the first `coverage` share of each slot
 * enrolls. Keeping slot starts fixed is why raising coverage later keeps enrolled units where they
 * are. Coverage is clamped to [0, 1]; weights of the wrong length, or not summing to 1 ± 0.01, fall
 * back to equal weights (a misconfigured split must not silently starve a variation).
 *
 * @example getBucketRanges(2, 0.5) // [[0, 0.25], [0.5, 0.75]]
 */
export function getBucketRanges(
  numVariations: number,
  coverage: number = 1,
  weights?: readonly number[] | null,
): BucketRange[] {
  const cover = coverage < 0 ? 0 : coverage > 1 ? 1 : coverage;
  let w: readonly number[] = weights ?? getEqualWeights(numVariations);
  if (w.length !== numVariations) w = getEqualWeights(numVariations);
  let total = 0;
  for (const x of w) total += x;
  if (total < 0.99 || total > 1.01) w = getEqualWeights(numVariations);

  const ranges: BucketRange[] = [];
  let cumulative = 0;
  for (const x of w) {
    const start = cumulative;
    cumulative += x;
    ranges.push([start, start + cover * x]);
  }
  return ranges;
}
