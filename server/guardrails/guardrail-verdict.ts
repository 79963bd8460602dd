import type { AutomaticStop, ExperienceConfig } from '../config/config-types.js';
import { holmBonferroni } from '../results/corrections.js';
import type { MetricResult, ResultsAnswer, VariationStats } from '../../wire/results-answer.js';

/** One test of harm of the stop's family: a guardrail and a challenger, with its p-value (null: no test was made). */
interface HarmTest {
  metric: MetricResult;
  variation: VariationStats;
  pValue: number | null;
  adjusted: number;
}

/**
 * Whether an experiment's current phase calls for it to stop by itself, and why: the first guardrail (in the order
 * the experiment lists them) that a variation harms by the one-sided sequential test of harm, its p-value adjusted
 * with Holm–Bonferroni across every guardrail × challenger (harmFamily), or, when the experiment asks for it
 * (`stopOnSrm`), a sample-ratio mismatch. Null: it goes on.
 * @example guardrailVerdict(hero, report, '2026-11-26T10:00:00.000Z') // → { rule: 'guardrail', metric: 'errors', … }
 */
export function guardrailVerdict(experience: ExperienceConfig, report: ResultsAnswer, at: string): AutomaticStop | null {
  const family = harmFamily(experience, report);
  const harmed = family.tests.find((t) => t.adjusted < report.analysis.alpha);
  if (harmed !== undefined) {
    const units = new Map(report.variations.map((v) => [v.name, v.units]));
    const { metric, variation } = harmed;
    return {
      rule: 'guardrail', at, phase: report.phase, metric: metric.name, variation: variation.name,
      uplift: variation.uplift ?? null, ci: variation.ci ?? null, pValue: harmed.pValue,
      pValueAdjusted: harmed.adjusted, familySize: family.size, correction: 'holm-bonferroni',
      units: (units.get(variation.name) ?? 0) + (units.get(report.control) ?? 0),
    };
  }
  if (experience.stopOnSrm === true && report.srm.mismatch) {
    return { rule: 'srm', at, phase: report.phase, srmPValue: report.srm.pValue, units: report.units };
  }
  return null;
}

/**
 * The stop's family: one test of harm per guardrail the experiment names × challenger, any of which may stop the
 * experiment, adjusted with Holm–Bonferroni so that the chance of any false stop stays within alpha however many there
 * are. Holm rejects a true hypothesis only when its p-value is at most alpha / m0 (m0 the true ones), and each harm test
 * is an always-valid sequential p-value, at most alpha / m0 at some look with that chance at most: the bound holds over
 * every look too. A test the report could not make (no units, no variance, a guardrail it was not asked for) counts in
 * the family as p = 1, so the family never shrinks when data is missing. Tests in the experiment's order of
 * guardrails, then of challengers.
 */
function harmFamily(experience: ExperienceConfig, report: ResultsAnswer): { size: number; tests: HarmTest[] } {
  const tests: Omit<HarmTest, 'adjusted'>[] = [];
  for (const name of experience.guardrails ?? []) {
    const metric = report.metrics.find((m) => m.name === name && m.role === 'guardrail');
    for (const variation of metric?.variations.slice(1) ?? []) {
      tests.push({ metric: metric as MetricResult, variation, pValue: typeof variation.harm?.pValue === 'number' ? variation.harm.pValue : null });
    }
  }
  const size = Math.max(tests.length, (experience.guardrails ?? []).length * Math.max(0, report.variations.length - 1));
  const p = tests.map((t) => t.pValue ?? 1);
  const adjusted = holmBonferroni([...p, ...new Array<number>(size - tests.length).fill(1)]);
  return { size, tests: tests.map((t, i) => ({ ...t, adjusted: adjusted[i] as number })) };
}

/** One line for logs and the console: what stopped the experiment, with its numbers. */
export function describeStop(stop: AutomaticStop): string {
  const percent = (x: number | null | undefined): string => (typeof x === 'number' ? `${(x * 100).toFixed(1)} %` : 'n/a');
  const p = (x: number | null | undefined): string => (typeof x !== 'number' ? 'n/a' : x < 0.0001 ? '< 0.0001' : `= ${x.toPrecision(2)}`);
  if (stop.rule === 'srm') return `sample-ratio mismatch in phase ${stop.phase ?? 1} (p ${p(stop.srmPValue)}, ${stop.units ?? 0} units)`;
  const family = stop.familySize === undefined ? '' : `, Holm-adjusted p ${p(stop.pValueAdjusted)} over ${stop.familySize} guardrail × challenger tests`;
  return `"${stop.variation ?? ''}" harmed the guardrail "${stop.metric ?? ''}" (${percent(stop.uplift)} against control, `
    + `p ${p(stop.pValue)}${family}, ${stop.units ?? 0} units)`;
}
