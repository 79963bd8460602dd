import type { MetricCapConfig } from '../config/config-types.js';

// Capping (winsorising from above) of a metric's unit values, as GrowthBook caps them: at an absolute value, or at a
// percentile of the unit values of the experiment's units, computed anew at each read. Pure.

/**
 * The value units are capped at: the absolute value, or the `value` quantile (0 < value ≤ 1) of `values`, linearly
 * interpolated between order statistics (SQL's PERCENTILE_CONT), over the non-zero values with `ignoreZeros`. Null
 * when a percentile has no values to be computed from (then nothing is capped).
 * @example capValueOf({ type: 'percentile', value: 0.5 }, [1, 2, 3, 10]) // 2.5
 */
export function capValueOf(cap: MetricCapConfig, values: ArrayLike<number>): number | null {
  if (cap.type === 'absolute') return cap.value;
  const kept: number[] = [];
  for (let i = 0; i < values.length; i++) {
    const v = values[i] as number;
    if (!(cap.ignoreZeros && v === 0)) kept.push(v);
  }
  if (kept.length === 0) return null;
  kept.sort((a, b) => a - b);
  const h = (kept.length - 1) * cap.value;
  const low = Math.floor(h);
  const high = Math.min(low + 1, kept.length - 1);
  return (kept[low] as number) + (h - low) * ((kept[high] as number) - (kept[low] as number));
}

/** `values` with every value above `at` replaced by `at` (a copy; the input is untouched). */
export function capAt(values: Float64Array, at: number): Float64Array {
  const out = new Float64Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = Math.min(values[i] as number, at);
  return out;
}
