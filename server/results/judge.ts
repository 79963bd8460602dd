import type { AbsoluteDifference, MetricResult, MetricRole, ResultsAnalysis, VariationStats } from '../../wire/results-answer.js';
import { benjaminiHochberg, holmBonferroni } from './corrections.js';

// Which comparisons of a results answer are significant: the family each belongs to, corrected as the experiment says.

/**
 * Adjusts the p-values of one family (the goal metrics × challengers of the given sections, or every metric's but the
 * guardrails' when the experiment names no goals) by the analysis' correction, and marks each comparison significant
 * when its (adjusted) p-value is below alpha: the relative comparisons as one family, the absolute ones as another.
 * Guardrails (their decision is the harm test, with its own family) and secondary metrics beside goals are judged on
 * their own p-values, as GrowthBook does.
 */
export function judge(analysis: ResultsAnalysis, roles: ReadonlyMap<string, MetricRole>, family: readonly MetricResult[][]): void {
  const hasGoals = [...roles.values()].includes('goal');
  const tested: VariationStats[] = [];
  const alone: VariationStats[] = [];
  for (const metrics of family) {
    for (const metric of metrics) {
      const corrected = hasGoals ? metric.role === 'goal' : metric.role !== 'guardrail';
      for (const v of metric.variations.slice(1)) (corrected ? tested : alone).push(v);
    }
  }
  const none: ResultsAnalysis = { ...analysis, correction: 'none' };
  mark(none, alone);
  mark(none, alone.map((v) => v.absolute).filter((a): a is AbsoluteDifference => a !== undefined));
  mark(analysis, tested);
  mark(analysis, tested.map((v) => v.absolute).filter((a): a is AbsoluteDifference => a !== undefined));
}

function mark(analysis: ResultsAnalysis, tests: Array<{ pValue?: number | null; pValueAdjusted?: number | null; significant?: boolean }>): void {
  const withP = tests.filter((t) => typeof t.pValue === 'number');
  const p = withP.map((t) => t.pValue as number);
  const adjusted = analysis.correction === 'holm-bonferroni' ? holmBonferroni(p)
    : analysis.correction === 'benjamini-hochberg' ? benjaminiHochberg(p) : null;
  const adjustedOf = new Map(withP.map((t, i) => [t, adjusted?.[i] ?? null]));
  for (const t of tests) {
    if (adjusted !== null) t.pValueAdjusted = adjustedOf.get(t) ?? null;
    const decisive = t.pValueAdjusted ?? t.pValue;
    t.significant = typeof decisive === 'number' && decisive < analysis.alpha;
  }
}
