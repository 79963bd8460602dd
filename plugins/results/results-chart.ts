// The interval chart of one metric: per non-control variation a bar over the effect's interval and a point at the
// effect (the relative uplift, or the absolute difference in the metric's units), against a zero line. Inline SVG
// whose horizontal positions are percentages of its width, so it scales with its container while its text keeps its
// size (a viewBox would shrink the labels at 390 px).
import { html, nothing, svg, type TemplateResult } from 'lit';
import type { MetricResult, VariationStats } from './results-answer.js';
import { controlOf, effectOf, VERDICT_WORDS, verdictOf, type EffectScale } from './results-effect.js';

/** The axis: from `low` to `high` (both multiples of `step`, zero inside), ticks every `step`. */
export interface Axis {
  low: number;
  high: number;
  step: number;
  /** Decimals a tick needs as written (a step of 2.5% needs 1). */
  digits: number;
}

/**
 * An axis covering zero and every interval and effect, with 4 to 6 ticks at 1, 2, 2.5 or 5 times a power of ten
 * (the steps a reader counts in); `factor` is what a number written is multiplied by (100 for a percent).
 */
export function axisFor(values: number[], factor = 100): Axis {
  let low = Math.min(0, ...values);
  let high = Math.max(0, ...values);
  if (!(high - low > 0) || !Number.isFinite(high - low)) [low, high] = [-0.1, 0.1];
  const rough = (high - low) / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  let digits = 0;
  // The step as written, e.g. 0.025 → 2.5%: decimals until it is whole (float noise aside).
  const written = step * factor;
  while (digits < 4 && Math.abs(Math.round(written * 10 ** digits) - written * 10 ** digits) > 1e-9) digits++;
  // The tolerance keeps a bound that is already a multiple (0 above all) where it is, despite float noise.
  return { low: Math.floor(low / step + 1e-9) * step, high: Math.ceil(high / step - 1e-9) * step, step, digits };
}

const ROW = 40;
const AXIS = 30;
/** Room left and right of the plot, in percent of the width, for the outer tick labels. */
const MARGIN = 6;

/**
 * The chart of `metric` on `scale` (relative or absolute), or nothing when it has no non-control variation. `level`
 * and `interval` say what the intervals are: `95%`, `sequential confidence intervals`.
 */
export function intervalChart(
  metric: MetricResult, control: string, scale: EffectScale, level: string, interval: string,
): TemplateResult | typeof nothing {
  const rows = metric.variations.filter((v) => v.name !== control);
  if (!rows.length) return nothing;
  const base = controlOf(metric, control);
  const effects = rows.map((v) => effectOf(v, scale.difference, base));
  const axis = axisFor(effects.flatMap((e) => [...(e.ci ?? []), ...(e.value === null ? [] : [e.value])]), scale.factor);
  const x = (v: number): string => `${(MARGIN + ((v - axis.low) / (axis.high - axis.low)) * (100 - 2 * MARGIN)).toFixed(3)}%`;
  const ticks: number[] = [];
  for (let t = axis.low; t <= axis.high + axis.step / 2; t += axis.step) ticks.push(Math.abs(t) < axis.step / 1e6 ? 0 : t);
  const height = rows.length * ROW + AXIS;
  const bottom = rows.length * ROW;
  const what = scale.difference === 'relative' ? 'Uplift' : `Difference${scale.unit ? ' in percentage points' : ''}`;
  return html`<figure part="chart" class="chart">
    <figcaption>${what} against ${control}, with ${level} ${interval}${metric.inverse ? ' · lower is better' : ''}</figcaption>
    <svg role="img" aria-label=${summary(metric, control, rows, base, scale, level)} width="100%" height=${height} class="chart-svg">
      ${ticks.map((t) => svg`<line class="grid" x1=${x(t)} x2=${x(t)} y1="0" y2=${bottom}></line>
        <text class="tick" x=${x(t)} y=${bottom + 20} text-anchor="middle">${scale.tick(t, axis.digits)}</text>`)}
      <line class="axis" x1=${x(axis.low)} x2=${x(axis.high)} y1=${bottom} y2=${bottom}></line>
      <line class="zero" data-zero x1=${x(0)} x2=${x(0)} y1="0" y2=${bottom + 4}></line>
      ${rows.map((v, i) => row(v, base, metric.inverse, i * ROW, x, scale))}
    </svg>
  </figure>`;
}

function row(
  v: VariationStats, base: VariationStats | undefined, inverse: boolean, top: number, x: (v: number) => string, scale: EffectScale,
): TemplateResult {
  const verdict = verdictOf(v, inverse, scale.difference);
  const { value, ci } = effectOf(v, scale.difference, base);
  const label = value === null ? `${v.name}: not enough data` : ci ? `${v.name}: ${scale.value(value)} (${scale.interval(ci)})` : `${v.name}: ${scale.value(value)}`;
  return svg`<g class=${`row ${verdict}`} data-variation=${v.name}>
    <text class="label" x=${`${MARGIN}%`} dx="6" y=${top + 14}>${label}</text>
    ${ci ? svg`<rect class="bar" x=${x(ci[0])} width=${`${Math.max(0.3, parseFloat(x(ci[1])) - parseFloat(x(ci[0])))}%`} y=${top + 22} height="10" rx="3"></rect>` : nothing}
    ${value !== null ? svg`<circle class="point" cx=${x(value)} cy=${top + 27} r="6"></circle>` : nothing}
  </g>`;
}

/** The chart in one sentence per variation, for the SVG's accessible name. */
function summary(
  metric: MetricResult, control: string, rows: VariationStats[], base: VariationStats | undefined, scale: EffectScale, level: string,
): string {
  const word = scale.difference === 'relative' ? 'uplift' : 'difference';
  const parts = rows.map((v) => {
    const { value, ci } = effectOf(v, scale.difference, base);
    if (value === null) return `${v.name}: not enough data`;
    if (!ci) return `${v.name}: ${word} ${scale.value(value)}, no interval yet`;
    return `${v.name}: ${word} ${scale.value(value)}, ${level} interval ${scale.interval(ci)}; ${VERDICT_WORDS[verdictOf(v, metric.inverse, scale.difference)].toLowerCase()}`;
  });
  const unit = scale.unit ? ' in percentage points (pp)' : '';
  return `${scale.name} of ${metric.name} against ${control}${unit}${metric.inverse ? ', lower is better' : ''}. ${parts.join('. ')}.`;
}
