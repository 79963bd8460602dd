import type { AutomaticStop, ExperienceConfig } from '../config/config-types.js';
import { harmFamily } from '../results/harm-family.js';
import type { ResultsAnswer } from '../../wire/results-answer.js';

/**
 * Whether an experiment's current phase calls for it to stop by itself, and why: the first guardrail (in the order
 * the experiment lists them) that a variation harms by the one-sided sequential test of harm, its p-value adjusted
 * with Holm–Bonferroni across every guardrail × challenger (harmFamily, which the answer's `harm.stops` reads too),
 * or, when the experiment asks for it (`stopOnSrm`), a sample-ratio mismatch. Null: it goes on.
 * @example guardrailVerdict(hero, report, '2026-11-26T10:00:00.000Z') // → { rule: 'guardrail', metric: 'errors', … }
 */
export function guardrailVerdict(experience: ExperienceConfig, report: ResultsAnswer, at: string): AutomaticStop | null {
  const family = harmFamily(experience.guardrails ?? [], report);
  const harmed = family.tests.find((t) => t.stops);
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

/** One line for logs and the console: what stopped the experiment, with its numbers. */
export function describeStop(stop: AutomaticStop): string {
  const percent = (x: number | null | undefined): string => (typeof x === 'number' ? `${(x * 100).toFixed(1)} %` : 'n/a');
  const p = (x: number | null | undefined): string => (typeof x !== 'number' ? 'n/a' : x < 0.0001 ? '< 0.0001' : `= ${x.toPrecision(2)}`);
  if (stop.rule === 'srm') return `sample-ratio mismatch in phase ${stop.phase ?? 1} (p ${p(stop.srmPValue)}, ${stop.units ?? 0} units)`;
  const family = stop.familySize === undefined ? '' : `, Holm-adjusted p ${p(stop.pValueAdjusted)} over ${stop.familySize} guardrail × challenger tests`;
  return `"${stop.variation ?? ''}" harmed the guardrail "${stop.metric ?? ''}" (${percent(stop.uplift)} against control, `
    + `p ${p(stop.pValue)}${family}, ${stop.units ?? 0} units)`;
}
