// The part each metric plays in an experiment that names its metrics (goals, secondary metrics, guardrails), and the
// guardrails a variation harms: the label on a metric's caption, the mark in its table and the banner above them.
import { html, nothing, type TemplateResult } from 'lit';
import type { MetricResult, ResultsAnswer, VariationStats } from './results-answer.js';
import type { ResultsFormat } from './results-format.js';

/** The name of the primary goal: the first metric whose role is `goal` (the experiment lists its goals first). */
export function primaryGoal(metrics: readonly MetricResult[]): string | undefined {
  return metrics.find((m) => m.role === 'goal')?.name;
}

/** A metric's role in words, or '' for a metric the experiment does not name (or an answer from before roles). */
export function roleLabel(m: Pick<MetricResult, 'name' | 'role'>, primary: string | undefined): string {
  if (m.role === 'goal') return m.name === primary ? 'Primary goal' : 'Goal';
  if (m.role === 'secondary') return 'Secondary';
  if (m.role === 'guardrail') return 'Guardrail';
  return '';
}

/** The role label of a metric's caption: words, so no colour has to carry it. */
export function roleTag(m: MetricResult, primary: string | undefined): TemplateResult | typeof nothing {
  const label = roleLabel(m, primary);
  return label ? html`<span part="role" class=${m.role === 'guardrail' ? 'role guardrail' : 'role'}>${label}</span>` : nothing;
}

/** The guardrails each variation harms, in the answer's order: `{variation, metric, pValue}`. */
export function harms(metrics: readonly MetricResult[]): { variation: string; metric: string; pValue: number | null }[] {
  return metrics.filter((m) => m.role === 'guardrail').flatMap((m) => m.variations
    .filter((v) => v.harm?.harmed === true)
    .map((v) => ({ variation: v.name, metric: m.name, pValue: typeof v.harm?.pValue === 'number' ? v.harm.pValue : null })));
}

/**
 * The banner above the metrics when a variation harms a guardrail (the service's one-sided sequential test, safe to
 * read every day): which variation harms which guardrail. Only the overall results count: a dimension's section is a
 * subgroup, whose test the service does not make the guardrail watch act on.
 */
export function guardrailBanner(r: ResultsAnswer, f: ResultsFormat): TemplateResult | typeof nothing {
  const found = harms(r.metrics);
  if (!found.length) return nothing;
  const items = found.map((h) => html`<li><strong>${h.variation}</strong> harms <strong>${h.metric}</strong>${
    h.pValue === null ? '' : ` (${f.p(h.pValue)})`}</li>`);
  return html`<div part="banner guardrail" role="alert">
    <strong>${found.length === 1 ? 'A guardrail is harmed.' : 'Guardrails are harmed.'}</strong>
    <ul class="harms">${items}</ul>
  </div>`;
}

/**
 * The guardrail's harm test on each challenger's row of the guardrail `m`: the service's one-sided sequential test that
 * stops the experiment, stricter than the row's own verdict (a row can be significantly worse and not yet stop it), so
 * the words name it as the stop rule: `harms this guardrail (stop test p = 0.0012)` or `not enough harm to stop the
 * experiment (stop test p = 0.41)`, in words, so no colour has to carry it.
 */
export function harmMark(m: MetricResult, v: VariationStats, f: ResultsFormat): TemplateResult | typeof nothing {
  if (m.role !== 'guardrail' || !v.harm) return nothing;
  const p = typeof v.harm.pValue === 'number' ? ` (stop test ${f.p(v.harm.pValue)})` : '';
  return v.harm.harmed === true
    ? html`<span part="harm" class="harm">harms this guardrail${p}</span>`
    : html`<span part="no-harm" class="sub muted no-harm">not enough harm to stop the experiment${p}</span>`;
}
