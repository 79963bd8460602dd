/** z for a two-sided 95 % interval: Φ⁻¹(0.975). */
const Z_95 = 1.959963984540054;

/**
 * The Wilson score interval of a proportion, `successes` of `n` (clamped to n): unlike the Wald interval it stays
 * inside [0, 1] and is right for a click-through rate near 0 or with few impressions. E. B. Wilson, "Probable
 * inference, the law of succession, and statistical inference", JASA 22 (1927) 209–212; Newcombe (1998), method 3.
 * Null when n is 0.
 * @example wilsonInterval(81, 263) // → [0.2553, 0.3662] (Newcombe 1998, Table I)
 */
export function wilsonInterval(successes: number, n: number, z = Z_95): [number, number] | null {
  if (!(n > 0)) return null;
  const p = Math.min(Math.max(successes, 0), n) / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [Math.max(0, centre - half), Math.min(1, centre + half)];
}
