// The part each metric plays in an experiment that names its metrics (goals, secondary metrics, guardrails), and the
// guardrails a variation harms: the label on a metric's caption, the mark in its table and the banner above them.
import { html, nothing, type TemplateResult } from 'lit';
import { harmStanding, harmWords, type HarmStanding } from '../../wire/harm-standing.js';
import type { MetricResult, ResultsAnalysis, ResultsAnswer, VariationStats } from './results-answer.js';
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

/** The guardrails each variation harms by its test alone, in the answer's order, with whether that stops the experiment. */
export function harms(metrics: readonly MetricResult[]): { variation: string; metric: string; pValue: number | null; standing: HarmStanding }[] {
  return metrics.filter((m) => m.role === 'guardrail').flatMap((m) => m.variations
    .filter((v) => v.harm?.harmed === true)
    .map((v) => ({
      variation: v.name, metric: m.name, pValue: typeof v.harm?.pValue === 'number' ? v.harm.pValue : null, standing: harmStanding(v.harm),
    })));
}

/**
 * The banner above the metrics when a variation harms a guardrail (the service's one-sided sequential test, safe to
 * read every day): which variation harms which guardrail, and whether that stops the experiment or is a signal the
 * stop's correction across every guardrail × challenger does not act on (then a status, not an alert). Only the
 * overall results count: a dimension's section is a subgroup, whose test the service does not make the guardrail
 * watch act on.
 */
export function guardrailBanner(r: ResultsAnswer, f: ResultsFormat): TemplateResult | typeof nothing {
  const found = harms(r.metrics);
  if (!found.length) return nothing;
  const stopping = found.filter((h) => h.standing !== 'signal').length;
  const items = found.map((h) => {
    const words = harmWords(h.standing, r.analysis);
    return html`<li><strong>${h.variation}</strong> ${h.standing === 'signal' ? 'on' : 'harms'} <strong>${h.metric}</strong>${
      h.pValue === null ? '' : ` (${f.p(h.pValue)})`}${words ? `: ${words}` : ''}</li>`;
  });
  const title = stopping > 0
    ? (stopping === 1 ? 'A guardrail is harmed.' : 'Guardrails are harmed.')
    : (found.length === 1 ? 'A harm signal on a guardrail.' : 'Harm signals on guardrails.');
  return html`<div part="banner guardrail" role=${stopping > 0 ? 'alert' : 'status'}>
    <strong>${title}</strong>
    <ul class="harms">${items}</ul>
  </div>`;
}

/**
 * The guardrail's harm test on each challenger's row of the guardrail `m`: the service's one-sided sequential test,
 * stricter than the row's own verdict (a row can be significantly worse and not stop the experiment), and whether the
 * stop, corrected across every guardrail × challenger, acts on it: `harms this guardrail: stops the experiment (stop
 * test p = 0.0012, adjusted 0.0048)`, `harm signal, not significant after correction for 4 tests (…)` or `not enough
 * harm to stop the experiment (stop test p = 0.41)`, in words, so no colour has to carry it.
 */
export function harmMark(
  m: MetricResult, v: VariationStats, f: ResultsFormat, analysis: Pick<ResultsAnalysis, 'harmTest'>,
): TemplateResult | typeof nothing {
  if (m.role !== 'guardrail' || !v.harm) return nothing;
  const { pValue, pValueAdjusted } = v.harm;
  const adjusted = typeof pValueAdjusted === 'number' ? `, adjusted ${f.pValue(pValueAdjusted)}` : '';
  const p = typeof pValue === 'number' ? ` (stop test ${f.p(pValue)}${adjusted})` : '';
  const standing = harmStanding(v.harm);
  if (standing === 'none') return html`<span part="no-harm" class="sub muted no-harm">not enough harm to stop the experiment${p}</span>`;
  if (standing === 'signal') return html`<span part="harm" class="harm signal">${harmWords(standing, analysis)}${p}</span>`;
  const words = harmWords(standing, analysis);
  return html`<span part="harm" class="harm">harms this guardrail${words ? `: ${words}` : ''}${p}</span>`;
}
