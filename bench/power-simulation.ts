// The empirical power of the tests results run (`compare` from server/results/statistics.ts, the engine behind the
// results endpoint), at a planned number of units: many simulated two-variation experiments, each unit drawn by a
// function of its variation, and the share of experiments whose comparison is significant in the planned direction.
// One experiment is drawn unit by unit up to the largest checkpoint; each test is read at its own number of units
// (a prefix of the same data), and the sequential test also at evenly spaced looks before its end.
import { compare, type Moments } from '../server/results/statistics.js';

/** How a simulation draws and reads its experiments. */
export interface PowerSimulation {
  experiments: number;
  /** A unit's value in the control (0) or the treatment (1). */
  draw: (arm: 0 | 1) => number;
  type: 'binomial' | 'sum';
  alpha: number;
  tuning: number;
  /** Units per variation at which each fixed-horizon figure is read (e.g. the planner's and Fleiss'). */
  fixedAt: number[];
  /** Units per variation at which the sequential test is read at its end. */
  sequentialAt: number;
  /** Looks of the sequential test, evenly spaced up to sequentialAt (the last one at its end). */
  looks: number;
}

export interface PowerResult {
  /** Per entry of fixedAt: the share significant in the planned direction. */
  fixed: number[];
  /** Sequential, read once at its planned units. */
  sequentialAtEnd: number;
  /** Sequential, significant at any of the looks. */
  sequentialEver: number;
  /** Comparisons computed: proof the engine ran. */
  comparisons: number;
}

/** A variation's running sums. */
interface Sums {
  n: number;
  sum: number;
  squares: number;
}

function momentsOf(s: Sums, type: PowerSimulation['type']): Moments {
  const mean = s.sum / s.n;
  if (type === 'binomial') return { units: s.n, total: s.sum, mean, stddev: Math.sqrt(mean * (1 - mean)) };
  return { units: s.n, total: s.sum, mean, stddev: Math.sqrt(Math.max(0, s.squares - s.sum * mean) / (s.n - 1)) };
}

/**
 * Runs the simulation: a unit per variation per step up to the largest checkpoint, each test read at its own.
 * @example simulatePower({ experiments: 2000, draw: (arm) => …, type: 'sum', alpha: 0.05, tuning: 5000, fixedAt: [24000], sequentialAt: 55000, looks: 10 })
 */
export function simulatePower(options: PowerSimulation): PowerResult {
  const { experiments, draw, type, alpha, tuning, fixedAt, sequentialAt, looks } = options;
  const lookAt = new Set(Array.from({ length: looks }, (_, i) => Math.round((sequentialAt * (i + 1)) / looks)));
  const fixedHits = fixedAt.map(() => 0);
  let atEnd = 0;
  let ever = 0;
  let comparisons = 0;
  const last = Math.max(sequentialAt, ...fixedAt);
  const wins = (control: Sums, treatment: Sums, sequential: boolean): boolean => {
    comparisons++;
    const c = compare(momentsOf(control, type), momentsOf(treatment, type), { alpha, sequential, sequentialTuning: tuning });
    return c.pValue !== null && c.pValue < alpha && (c.uplift ?? 0) > 0;
  };
  for (let e = 0; e < experiments; e++) {
    const arms: [Sums, Sums] = [{ n: 0, sum: 0, squares: 0 }, { n: 0, sum: 0, squares: 0 }];
    let seen = false;
    for (let n = 1; n <= last; n++) {
      for (const arm of [0, 1] as const) {
        const x = draw(arm);
        const s = arms[arm];
        s.n++;
        s.sum += x;
        s.squares += x * x;
      }
      fixedAt.forEach((at, i) => {
        if (n === at && wins(arms[0], arms[1], false)) fixedHits[i]!++;
      });
      if (lookAt.has(n)) {
        const hit = wins(arms[0], arms[1], true);
        seen ||= hit;
        if (n === sequentialAt && hit) atEnd++;
      }
    }
    if (seen) ever++;
  }
  return { fixed: fixedHits.map((h) => h / experiments), sequentialAtEnd: atEnd / experiments, sequentialEver: ever / experiments, comparisons };
}

/** The Monte-Carlo standard error of a share p over n experiments. */
export function monteCarloError(p: number, n: number): number {
  return Math.sqrt((p * (1 - p)) / n);
}
