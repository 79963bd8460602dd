import type { GuardrailHarm, MetricResult, ResultsAnswer, VariationStats } from '../../wire/results-answer.js';
import { holmBonferroni } from './corrections.js';

/** One test of harm of the automatic stop's family: a guardrail and a challenger. */
export interface FamilyHarmTest {
  metric: MetricResult;
  variation: VariationStats;
  /** The test's own p-value; null: no test was made (it counts as p = 1). */
  pValue: number | null;
  /** Holm–Bonferroni across the family. */
  adjusted: number;
  /** adjusted < alpha: the automatic stop's rule. */
  stops: boolean;
}

export interface HarmFamily {
  /** Every guardrail the experiment names × challenger, whether or not the report holds its test. */
  size: number;
  /** The tests the report holds, in the experiment's order of guardrails, then of challengers. */
  tests: FamilyHarmTest[];
}

/**
 * The automatic stop's family: one test of harm per guardrail the experiment names × challenger, any of which may stop
 * the experiment, adjusted with Holm–Bonferroni so that the chance of any false stop stays within alpha however many
 * there are. Holm rejects a true hypothesis only when its p-value is at most alpha / m0 (m0 the true ones), and each
 * harm test is an always-valid sequential p-value, at most alpha / m0 at some look with that chance at most: the bound
 * holds over every look too. A test the report could not make (no units, no variance, a guardrail it was not asked
 * for) counts as p = 1, so the family never shrinks when data is missing. The stop's verdict and the answer's
 * `harm.stops` both read it.
 * @example harmFamily(['errors', 'latency'], report).tests.find((t) => t.stops) // the first harm that stops it
 */
export function harmFamily(
  guardrails: readonly string[], report: Pick<ResultsAnswer, 'metrics' | 'variations' | 'analysis'>,
): HarmFamily {
  const tests: Omit<FamilyHarmTest, 'adjusted' | 'stops'>[] = [];
  for (const name of guardrails) {
    const metric = report.metrics.find((m) => m.name === name && m.role === 'guardrail');
    for (const variation of metric?.variations.slice(1) ?? []) {
      tests.push({ metric: metric as MetricResult, variation, pValue: typeof variation.harm?.pValue === 'number' ? variation.harm.pValue : null });
    }
  }
  const size = Math.max(tests.length, guardrails.length * Math.max(0, report.variations.length - 1));
  const p = tests.map((t) => t.pValue ?? 1);
  const adjusted = holmBonferroni([...p, ...new Array<number>(size - tests.length).fill(1)]);
  return {
    size,
    tests: tests.map((t, i) => ({ ...t, adjusted: adjusted[i] as number, stops: (adjusted[i] as number) < report.analysis.alpha })),
  };
}

/**
 * Adds to each guardrail's `harm` in the report's overall section its p-value adjusted across the stop's family and
 * whether the stop acts on it (null and false for a test not made), from the same harmFamily as the stop's verdict.
 */
export function markHarmFamily(guardrails: readonly string[], report: Pick<ResultsAnswer, 'metrics' | 'variations' | 'analysis'>): void {
  for (const t of harmFamily(guardrails, report).tests) {
    const harm = t.variation.harm as GuardrailHarm | undefined;
    if (harm === undefined) continue;
    harm.pValueAdjusted = t.pValue === null ? null : t.adjusted;
    harm.stops = t.stops;
  }
}
