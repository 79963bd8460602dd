// Thompson sampling's weights: each arm gets the share of posterior draws in which it was best, and every arm keeps a
// floor. The posteriors are normal (the arm's mean of the decision metric and that mean's standard error, as
// gbstats' bandits have them, for binomial and mean metrics alike); the draws are seeded, so one look's weights can be
// drawn again from what was recorded.

/** One arm's posterior on the decision metric. */
export interface ArmPosterior {
  name: string;
  /** Posterior mean of the per-unit value; null without units. */
  mean: number | null;
  /** Standard deviation of that mean; null (or 0 units) when it cannot be estimated yet; 0 says nothing of the spread. */
  stddev: number | null;
}

export interface ThompsonOptions {
  /** Every arm keeps at least this share, percent (arms × minShare ≤ 100). */
  minShare: number;
  /** Lower is better (an `inverse` metric): the best draw is the lowest. */
  inverse?: boolean;
  /** Posterior draws per arm (default 10,000, gbstats' number). */
  draws?: number;
  /** Seeds the draws (the experiment's name and the look's time, say). */
  seed: string;
}

export interface ThompsonWeights {
  /** Percent by arm name, summing to 100, each ≥ minShare. */
  weights: Record<string, number>;
  /** The share of draws in which each arm was best, 0–1. */
  probabilityBest: Record<string, number>;
}

const DEFAULT_DRAWS = 10_000;

/**
 * The weights Thompson sampling gives these arms: arm k gets minShare + (100 − K·minShare)·P(k is best), P estimated
 * by `draws` joint draws from the arms' normal posteriors. An arm without units makes every arm's chance equal:
 * nothing has been learnt that could favour one. An arm whose values have no spread yet (no conversion in its units)
 * is a point at its mean; equal draws are ties, broken at random, so arms that have all seen nothing stay equal.
 * @example thompsonWeights([{name: 'a', mean: 0.05, stddev: 0.001}, {name: 'b', mean: 0.06, stddev: 0.001}], {minShare: 1, seed: 'x'})
 *   // → { weights: { a: 1, b: 99 }, probabilityBest: { a: 0, b: 1 } }
 */
export function thompsonWeights(arms: readonly ArmPosterior[], options: ThompsonOptions): ThompsonWeights {
  const k = arms.length;
  const draws = options.draws ?? DEFAULT_DRAWS;
  const known = arms.every((a) => a.mean !== null && a.stddev !== null && Number.isFinite(a.stddev) && a.stddev >= 0);
  const wins = new Array<number>(k).fill(0);
  const nothingSeen = arms.every((a) => a.stddev === 0 && a.mean === arms[0]?.mean);
  if (!known || k === 0 || nothingSeen) wins.fill(1);
  else {
    const { normal, uniform } = randomSource(options.seed);
    const sign = options.inverse ? -1 : 1;
    for (let d = 0; d < draws; d++) {
      let best = 0;
      let bestValue = -Infinity;
      let ties = 0;
      for (let i = 0; i < k; i++) {
        const arm = arms[i] as ArmPosterior;
        const value = sign * ((arm.mean as number) + (arm.stddev as number) * normal());
        if (value > bestValue) { bestValue = value; best = i; ties = 1; }
        // The i-th of equal draws replaces the best with chance 1/i: each of them is best equally often.
        else if (value === bestValue && uniform() * ++ties < 1) best = i;
      }
      wins[best] = (wins[best] as number) + 1;
    }
  }
  const total = wins.reduce((a, b) => a + b, 0);
  const probabilityBest = Object.fromEntries(arms.map((a, i) => [a.name, (wins[i] as number) / total]));
  const spread = 100 - k * options.minShare;
  const raw = arms.map((a) => options.minShare + spread * (probabilityBest[a.name] as number));
  return { weights: roundToHundred(arms.map((a) => a.name), raw), probabilityBest };
}

/** Equal weights over the arms (an exploring bandit's), summing to exactly 100. */
export function equalWeights(names: readonly string[]): Record<string, number> {
  return roundToHundred(names, names.map(() => 100 / names.length));
}

/** Weights to 4 decimals whose sum is exactly 100: the rounding's remainder goes to the largest. */
function roundToHundred(names: readonly string[], raw: readonly number[]): Record<string, number> {
  const rounded = raw.map((w) => Math.round(w * 1e4) / 1e4);
  const largest = rounded.indexOf(Math.max(...rounded));
  if (largest >= 0) rounded[largest] = Math.round(((rounded[largest] as number) + 100 - rounded.reduce((a, b) => a + b, 0)) * 1e4) / 1e4;
  return Object.fromEntries(names.map((n, i) => [n, rounded[i] as number]));
}

/** Uniform draws in (0, 1) from a mulberry32 stream seeded by the string, and standard normal ones (Box–Muller). */
function randomSource(seed: string): { normal: () => number; uniform: () => number } {
  let state = 2166136261;
  for (let i = 0; i < seed.length; i++) state = Math.imul(state ^ seed.charCodeAt(i), 16777619) >>> 0;
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
  let spare: number | null = null;
  const normal = (): number => {
    if (spare !== null) { const s = spare; spare = null; return s; }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
  return { normal, uniform };
}
