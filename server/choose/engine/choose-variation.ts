/**
 * Index of the range holding `n` (start inclusive, end exclusive), or -1 when `n` falls in the
 * part of a slot that coverage left out. GrowthBook's `chooseVariation`.
 *
 * @example chooseVariation(0.6, [[0, 0.5], [0.5, 1]]) // 1
 */
export function chooseVariation(n: number, ranges: readonly (readonly [number, number])[]): number {
  for (let i = 0; i < ranges.length; i++) {
    const range = ranges[i]!;
    if (n >= range[0] && n < range[1]) return i;
  }
  return -1;
}
