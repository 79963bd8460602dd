// Corrections for many comparisons, as GrowthBook applies them across an experiment's goal metrics × variations:
// Holm–Bonferroni (controls the family-wise error rate) and Benjamini–Hochberg (controls the false discovery rate).
// Both answer adjusted p-values in the order given; pure.

/**
 * Holm–Bonferroni: the i-th smallest of m p-values times (m − i), capped at 1, made non-decreasing in that order.
 * @example holmBonferroni([0.01, 0.04, 0.03, 0.005]) // [0.03, 0.06, 0.06, 0.02]
 */
export function holmBonferroni(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => a.p - b.p);
  const adjusted = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, rank) => {
    running = Math.max(running, Math.min(1, p * (m - rank)));
    adjusted[i] = running;
  });
  return adjusted;
}

/**
 * Benjamini–Hochberg: the p-value of rank k (1 = smallest) of m times m / k, capped at 1, made non-increasing from
 * the largest down.
 * @example benjaminiHochberg([0.025, 0.03]) // [0.03, 0.03]
 */
export function benjaminiHochberg(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => b.p - a.p);
  const adjusted = new Array<number>(m);
  let running = 1;
  order.forEach(({ p, i }, fromTop) => {
    running = Math.min(running, Math.min(1, (p * m) / (m - fromTop)));
    adjusted[i] = running;
  });
  return adjusted;
}
