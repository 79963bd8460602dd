// A metric's table (one row per variation: units, mean, the effect with its interval, p-values, significance in words,
// and chance to win and risk where a Bayesian test decides the experiment), the notes under it (CUPED's figures, intervals cut at −100%), its interval chart and, with a
// series, its date graph.
import { html, nothing, type TemplateResult } from 'lit';
import type { MetricResult, ResultsAnalysis, SeriesPoint, VariationStats } from './results-answer.js';
import { intervalChart } from './results-chart.js';
import {
  CUT_NOTE, effectOf, effectScale, significanceOf, type EffectScale, type ResultsDifference,
} from './results-effect.js';
import {
  BASELINE_REASON, capLabel, meanDigits, meanLabel, missingReason, typeLabel, type ResultsFormat,
} from './results-format.js';
import type { Reading } from './results-reading.js';
import { harmMark, roleTag } from './results-roles.js';
import { seriesChart } from './results-series-chart.js';

/** What every metric of an answer is shown with. */
export interface MetricContext {
  control: string;
  f: ResultsFormat;
  reading: Reading;
  difference: ResultsDifference;
  /** The primary goal's name (the first goal), if the experiment names goals. */
  primary: string | undefined;
  /** The answer's analysis: the guardrails' marks name the stop's family (`harmTest`). */
  analysis: Pick<ResultsAnalysis, 'harmTest'>;
}

/**
 * One metric: its table, the notes under it when they apply, its interval chart, and its date graph when `series`
 * has points (the overall section's). `scope` names a dimension's section in the caption.
 */
export function metricView(
  m: MetricResult, ctx: MetricContext, id: string, scope: string, series?: readonly SeriesPoint[],
): TemplateResult {
  const { control, f, reading, difference } = ctx;
  const base = m.variations.find((v) => v.name === control);
  const caption = `caption-${id}`;
  const digits = meanDigits(m.variations.flatMap((v) => (typeof v.mean === 'number' ? [v.mean] : [])));
  const scale = effectScale(m, control, difference, f);
  const about = [
    typeLabel(m),
    m.inverse ? 'lower is better' : '',
    m.cap ? capLabel(m.cap, f) : '',
    m.cupedApplied ? 'CUPED variance reduction' : '',
    scope,
  ].filter(Boolean).join(' · ');
  const cuped = m.variations.filter((v) => v.name !== control && v.cuped);
  const cut = m.variations.some((v) => v.name !== control && effectOf(v, difference, base).cut);
  return html`<div part="metric" class="metric">
    <p class="scroll-cue" id=${`cue-${id}`} aria-hidden="true">Scroll sideways for more →</p>
    <div part="table-scroll" tabindex="0" role="region" aria-labelledby=${caption} aria-description="scroll for more">
      <table part="table">
        <caption id=${caption}>${m.name} ${roleTag(m, ctx.primary)} <span class="muted">· ${about}</span></caption>
        <thead>
          <tr>
            <th scope="col">Variation</th>
            <th scope="col">Units</th>
            <th scope="col">${meanLabel(m.type)}</th>
            <th scope="col">${scale.name} (${reading.level} CI)</th>
            <th scope="col"><span class="nowrap">p-value</span></th>
            ${reading.corrected ? html`<th scope="col">Adjusted <span class="nowrap">p-value</span> <span class="sub">${reading.correction}</span></th>` : nothing}
            <th scope="col">Significance</th>
            ${reading.bayesian ? html`<th scope="col">Chance to win</th><th scope="col">Risk</th>` : nothing}
          </tr>
        </thead>
        <tbody>${m.variations.map((v) => row(m, v, v.name === control, base, f, digits, scale, reading, harmMark(m, v, f, ctx.analysis)))}</tbody>
      </table>
    </div>
    ${cut ? html`<p part="cut" class="note cut">${CUT_NOTE}</p>` : nothing}
    ${cuped.length ? html`<p part="cuped" class="note cuped">${cupedNote(m, cuped, control, f, digits)}</p>` : nothing}
    ${intervalChart(m, control, scale, reading.level, reading.intervals)}
    ${seriesChart(m, series, control, scale, reading, f)}
  </div>`;
}

/** One variation's row; `base` is the control's stats, `mark` what the guardrail's harm test says of it. */
function row(
  m: MetricResult, v: VariationStats, isControl: boolean, base: VariationStats | undefined, f: ResultsFormat, digits: number,
  scale: EffectScale, reading: Reading, mark: TemplateResult | typeof nothing,
): TemplateResult {
  const why = isControl ? BASELINE_REASON : missingReason(v, base, scale.difference === 'relative');
  // Chance to win and risk come from the relative comparison whichever difference is shown; the p-values and the
  // verdict from the difference shown.
  const relativeWhy = isControl ? BASELINE_REASON : missingReason(v, base);
  const value = <T>(n: T | null | undefined, show: (n: T) => string, reason = relativeWhy): TemplateResult | string =>
    n === null || n === undefined ? missing(reason) : show(n);
  const effect = effectOf(v, scale.difference, base);
  // The one decision the console's headline, badge and Ship dialog read too: the same words everywhere.
  const significance = significanceOf(v, m.inverse, scale.difference);
  const verdict = significance?.verdict ?? 'neutral';
  const test = scale.difference === 'absolute' ? v.absolute : v;
  return html`<tr>
    <th scope="row">${v.name}${isControl && v.name !== 'control' ? html`<span class="tag muted">control</span>` : nothing}${mark}</th>
    <td>${f.units(v.units)}</td>
    <td>${typeof v.mean === 'number' ? f.mean(m.type, v.mean, digits) : missing(missingMean(v))}${m.type === 'ratio' && typeof v.denominator === 'number'
      ? html`<span class="sub">${f.amount(v.total)} / ${f.amount(v.denominator)}</span>` : nothing}</td>
    <td class=${isControl ? '' : verdict}>${isControl
      ? html`<span class="muted">baseline</span>`
      : effect.value === null
        ? missing(why)
        : html`${withUnit(scale.value(effect.value), scale)}${effect.ci ? html`<span class="sub">${withUnit(scale.interval(effect.ci), scale)}</span>` : nothing}`}</td>
    <td>${isControl ? missing(why) : value(effect.pValue, f.pValue, why)}</td>
    ${reading.corrected ? html`<td>${value(test?.pValueAdjusted, f.pValue, why)}</td>` : nothing}
    <td class=${isControl ? '' : verdict}>${isControl ? missing(why) : significance ? significance.words : missing(relativeWhy)}</td>
    ${reading.bayesian ? html`<td>${value(v.chanceToWin, f.chance)}</td><td>${value(v.risk, f.risk)}</td>` : nothing}
  </tr>`;
}

/** CUPED's figures in a sentence: θ and the adjusted means the comparison used (the table's means are raw). */
function cupedNote(m: MetricResult, rows: VariationStats[], control: string, f: ResultsFormat, digits: number): string {
  const parts = rows.map((v) => {
    const c = v.cuped!;
    return `${v.name}: θ = ${f.figure(c.theta)}, adjusted mean ${f.mean(m.type, c.mean, digits)} against ${f.mean(m.type, c.controlMean, digits)} for ${control}`;
  });
  return `CUPED adjusted these comparisons by behaviour before exposure (the means above are raw). ${parts.join('; ')}.`;
}

/** An absolute difference in percentage points: `pp` to the eye, the words to a screen reader. */
function withUnit(text: string, scale: EffectScale): TemplateResult | string {
  if (!scale.unit) return text;
  return html`${text.split(` ${scale.unit}`).map((part, i) => (i === 0 ? part : html`<span aria-hidden="true"> pp</span><span class="sr-only"> percentage points</span>${part}`))}`;
}

function missingMean(v: VariationStats): string {
  return v.units ? 'Not available: too few units to estimate.' : 'Not available: no units in this variation yet.';
}

/** A statistic the service could not compute: a dash to the eye, the reason to a screen reader and a pointer. */
function missing(reason: string): TemplateResult {
  return html`<span class="missing" title=${reason}><span aria-hidden="true">—</span><span class="sr-only">${reason}</span></span>`;
}
