// Seeded draws from the distributions the simulations need (binomial, normal, gamma, beta, lognormal), exact and fast
// whatever n: a simulated shop sends thousands of units an hour, and drawing them one by one would be the whole cost.
import { seededRandom } from './seeded-random.js';

/** A seeded source of variates; the same seed gives the same draws. */
export interface Variates {
  uniform(): number;
  normal(): number;
  gamma(shape: number): number;
  beta(a: number, b: number): number;
  binomial(n: number, p: number): number;
  /** exp(N(mu, sigma²)). */
  lognormal(mu: number, sigma: number): number;
  /** n trials over the categories' probabilities (summing to 1), as counts per category. */
  multinomial(n: number, probabilities: readonly number[]): number[];
}

/** Below this mean, a binomial is drawn by its waiting times (cost ~ np); above, split by beta order statistics. */
const DIRECT_MEAN = 16;

/**
 * Variates from a mulberry32 stream: normal by Box–Muller, gamma by Marsaglia & Tsang (2000), binomial by Knuth's
 * recursion on order statistics (TAOCP vol. 2, 3.4.1: the i-th smallest of n uniforms is Beta(i, n + 1 − i)) down to a
 * small mean, then by geometric waiting times (Devroye 1986, X.4).
 * @example const v = variates(7); v.binomial(100_000, 0.05) // → about 5,000, the same every run
 */
export function variates(seed: number): Variates {
  const random = seededRandom(seed);
  // (0, 1): a uniform that is never 0, so logarithms stay finite.
  const uniform = (): number => (random() * 4294967295 + 0.5) / 4294967296;
  let spare: number | null = null;
  const normal = (): number => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const theta = 2 * Math.PI * uniform();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
  const gamma = (shape: number): number => {
    if (shape < 1) return gamma(shape + 1) * uniform() ** (1 / shape);
    const d = shape - 1 / 3;
    const c = 1 / Math.sqrt(9 * d);
    for (;;) {
      let x: number;
      let v: number;
      do {
        x = normal();
        v = 1 + c * x;
      } while (v <= 0);
      v = v * v * v;
      const u = uniform();
      if (u < 1 - 0.0331 * x * x * x * x || Math.log(u) < 0.5 * x * x + d * (1 - v + Math.log(v))) return d * v;
    }
  };
  const beta = (a: number, b: number): number => {
    const x = gamma(a);
    return x / (x + gamma(b));
  };
  const waitingTimes = (n: number, p: number): number => {
    if (p <= 0) return 0;
    const logQ = Math.log1p(-p);
    let count = 0;
    let position = 0;
    for (;;) {
      position += Math.floor(Math.log(uniform()) / logQ) + 1;
      if (position > n) return count;
      count++;
    }
  };
  const binomial = (n: number, p: number): number => {
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n;
    if (p > 0.5) return n - binomial(n, 1 - p);
    if (n * p < DIRECT_MEAN) return waitingTimes(n, p);
    const i = Math.floor((n + 1) / 2);
    const x = beta(i, n + 1 - i);
    return x <= p ? i + binomial(n - i, (p - x) / (1 - x)) : binomial(i - 1, p / x);
  };
  const multinomial = (n: number, probabilities: readonly number[]): number[] => {
    const counts: number[] = [];
    let left = n;
    let mass = 1;
    probabilities.forEach((p, k) => {
      const last = k === probabilities.length - 1;
      const drawn = last ? left : binomial(left, mass > 0 ? Math.min(1, p / mass) : 0);
      counts.push(drawn);
      left -= drawn;
      mass -= p;
    });
    return counts;
  };
  return {
    uniform, normal, gamma, beta, binomial, multinomial,
    lognormal: (mu, sigma) => Math.exp(mu + sigma * normal()),
  };
}
