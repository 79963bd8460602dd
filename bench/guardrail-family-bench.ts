// How often the automatic stop fires when nothing is harmed: simulated A/A experiments with 5 guardrails and 3
// challengers (15 tests of harm), read every day for 28 days as the guardrail watch reads them.
//
// Each simulated experiment has a control and 3 challengers, and 5 independent binomial guardrails (base rate 5 %,
// lower is worse), all arms equal. Every day `unitsPerDay` new units join each arm; each guardrail's daily conversions
// per arm are drawn from the exact binomial distribution (inverse CDF, one uniform number each). After each day the
// cumulative counts are compared through the engine (`compare` with `guardrail: true`, the one-sided sequential harm
// test) and judged by the service's own verdict (`guardrailVerdict`: Holm across the 15). The share of experiments
// ever stopped is the false-stop rate; beside it, the share in which any single harm test was ever below alpha alone
// (what the stop did before it corrected for the family). The Monte-Carlo error of a share p over N experiments is
// sqrt(p(1 − p)/N).
import type { ExperienceConfig } from '../server/config/config-types.js';
import { guardrailVerdict } from '../server/guardrails/guardrail-verdict.js';
import { compare, type Moments } from '../server/results/statistics.js';
import type { MetricResult, ResultsAnswer, VariationStats } from '../wire/results-answer.js';
import { seededRandom } from './seeded-random.js';
import { goalMark } from './goal-mark.js';

export interface GuardrailFamilyOptions {
  experiments?: number;
  days?: number;
  unitsPerDay?: number;
  guardrails?: number;
  challengers?: number;
  baseRate?: number;
  alpha?: number;
  seed?: number;
}

export interface GuardrailFamilyResult {
  experiments: number;
  days: number;
  unitsPerDay: number;
  guardrails: number;
  challengers: number;
  alpha: number;
  /** Harm tests computed through the engine (experiments × days × guardrails × challengers): proof it ran. */
  tests: number;
  /** Share of experiments the verdict (Holm across the family) ever stopped. */
  stopped: number;
  /** Share of experiments in which some harm test alone was ever below alpha. */
  anyAlone: number;
}

/** The CDF of Binomial(n, p) at 0 … n, for drawing a count with one uniform number. */
function binomialCdf(n: number, p: number): Float64Array {
  const cdf = new Float64Array(n + 1);
  let term = (1 - p) ** n;
  let total = 0;
  for (let k = 0; k <= n; k++) {
    total += term;
    cdf[k] = total;
    term *= ((n - k) / (k + 1)) * (p / (1 - p));
  }
  return cdf;
}

function draw(cdf: Float64Array, u: number): number {
  let low = 0;
  let high = cdf.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (u <= (cdf[mid] as number)) high = mid;
    else low = mid + 1;
  }
  return low;
}

function binomialMoments(units: number, converted: number): Moments {
  const mean = converted / units;
  return { units, total: converted, mean, stddev: Math.sqrt(mean * (1 - mean)) };
}

/**
 * Runs the simulation; the same options give the same numbers on every run.
 * @example simulateGuardrailFamily({ experiments: 400 }) // → { stopped: ≤ 0.05, anyAlone: several times that, … }
 */
export function simulateGuardrailFamily(options: GuardrailFamilyOptions = {}): GuardrailFamilyResult {
  const {
    experiments = 1000, days = 28, unitsPerDay = 300, guardrails = 5, challengers = 3, baseRate = 0.05, alpha = 0.05, seed = 20261201,
  } = options;
  const random = seededRandom(seed);
  const cdf = binomialCdf(unitsPerDay, baseRate);
  const arms = ['control', ...Array.from({ length: challengers }, (_, i) => `challenger-${i + 1}`)];
  const names = Array.from({ length: guardrails }, (_, g) => `guardrail-${g + 1}`);
  const experience: ExperienceConfig = {
    name: 'a-a', alpha, guardrails: names, variations: arms.map((name) => ({ name, weight: 100 / arms.length, body: {} })),
  };
  const result: GuardrailFamilyResult = {
    experiments, days, unitsPerDay, guardrails, challengers, alpha, tests: 0, stopped: 0, anyAlone: 0,
  };
  for (let e = 0; e < experiments; e++) {
    const converted = names.map(() => arms.map(() => 0));
    let stopped = false;
    let alone = false;
    for (let day = 1; day <= days && !stopped; day++) {
      const units = day * unitsPerDay;
      const metrics: MetricResult[] = names.map((name, g) => {
        const counts = converted[g] as number[];
        for (let a = 0; a < arms.length; a++) counts[a] = (counts[a] as number) + draw(cdf, random());
        const control = binomialMoments(units, counts[0] as number);
        const variations: VariationStats[] = arms.map((arm, a) => {
          const own = binomialMoments(units, counts[a] as number);
          const entry: VariationStats = { name: arm, ...own };
          if (a === 0) return entry;
          result.tests++;
          const c = compare(control, own, { alpha, guardrail: true });
          alone ||= c.harm?.harmed === true;
          return { ...entry, ...c };
        });
        return { name, type: 'binomial', role: 'guardrail', inverse: false, cupedApplied: false, variations };
      });
      const report: ResultsAnswer = {
        experience: 'a-a', control: 'control', phase: 1, phases: [], units: units * arms.length, multipleExposures: 0,
        srm: { pValue: null, mismatch: false }, analysis: { alpha, interval: 'fixed-horizon', correction: 'none' },
        variations: arms.map((name) => ({ name, weight: 100 / arms.length, units })), metrics,
      };
      stopped = guardrailVerdict(experience, report, new Date(0).toISOString()) !== null;
    }
    // A stop needs an adjusted p-value below alpha, so a raw one too: `alone` is already true when the reading ends early.
    if (stopped) result.stopped++;
    if (alone) result.anyAlone++;
  }
  result.stopped /= experiments;
  result.anyAlone /= experiments;
  return result;
}

function monteCarloError(share: number, n: number): number {
  return Math.sqrt((share * (1 - share)) / n);
}

export function formatGuardrailFamilyBench(r: GuardrailFamilyResult): string {
  const pct = (x: number): string => `${(100 * x).toFixed(1)} %`;
  const err = (x: number): string => `± ${(100 * monteCarloError(x, r.experiments)).toFixed(1)}`;
  const family = r.guardrails * r.challengers;
  const bound = r.alpha + 2 * monteCarloError(r.alpha, r.experiments);
  return [
    `## Guardrail stop: ${r.experiments} simulated A/A experiments, ${r.guardrails} guardrails × ${r.challengers} challengers ` +
      `(${family} harm tests), read every day for ${r.days} days (${r.unitsPerDay} new units per arm a day, rate 5 %, alpha ${r.alpha})`,
    '',
    '| stop rule | experiments ever stopped (false stops) | goal |',
    '|---|---|---|',
    `| any harm test alone below alpha (before) | ${pct(r.anyAlone)} ${err(r.anyAlone)} | — |`,
    `| Holm across the ${family} (guardrailVerdict) | ${pct(r.stopped)} ${err(r.stopped)} | ${goalMark(r.stopped <= bound, `≤ ${pct(r.alpha)}`)} |`,
    '',
    `${r.tests.toLocaleString('en-US')} harm tests computed through the engine.`,
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(formatGuardrailFamilyBench(simulateGuardrailFamily({ experiments: Number(process.env.BENCH_GUARDRAIL_EXPERIMENTS ?? 1000) })));
}
