/**
 * `n` equal weights summing to 1 (GrowthBook's `getEqualWeights`); none for n ≤ 0.
 *
 * @example getEqualWeights(4) // [0.25, 0.25, 0.25, 0.25]
 */
export function getEqualWeights(n: number): number[] {
  if (!(n > 0)) return [];
  return new Array<number>(n).fill(1 / n);
}
