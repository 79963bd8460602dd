// The interval chart of one metric: per non-control variation a bar over the uplift's 95% interval and a point
// at the uplift, against a zero line. Inline SVG whose horizontal positions are percentages of its width, so it
// scales with its container while its text keeps its size (a viewBox would shrink the labels at 390 px).
import { html, nothing, svg, type TemplateResult } from 'lit';
import type { MetricResult, VariationStats } from './results-answer.js';
import type { ResultsFormat } from './results-format.js';

/** Where an interval lies: above zero (better than the control), below, or across it (inconclusive). */
export type Verdict = 'positive' | 'negative' | 'neutral';

export function verdictOf(ci: [number, number] | null | undefined): Verdict {
  if (!ci) return 'neutral';
  if (ci[0] > 0) return 'positive';
  if (ci[1] < 0) return 'negative';
  return 'neutral';
}

const VERDICT_WORDS: Record<Verdict, string> = {
  positive: 'the interval is above zero, better than the control',
  negative: 'the interval is below zero, worse than the control',
  neutral: 'the interval spans zero, inconclusive',
};

/** The axis: from `low` to `high` (both multiples of `step`, zero inside), ticks every `step`. */
export interface Axis {
  low: number;
  high: number;
  step: number;
  /** Decimals a tick's percent needs (a step of 2.5% needs 1). */
  digits: number;
}

/**
 * An axis covering zero and every interval and uplift, with 4 to 6 ticks at 1, 2, 2.5 or 5 times a power of ten
 * (the steps a reader counts in).
 */
export function axisFor(values: number[]): Axis {
  let low = Math.min(0, ...values);
  let high = Math.max(0, ...values);
  if (!(high - low > 0) || !Number.isFinite(high - low)) [low, high] = [-0.1, 0.1];
  const rough = (high - low) / 4;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= rough) ?? 10) * power;
  let digits = 0;
  // The step as a percent, e.g. 0.025 → 2.5: decimals until it is whole (float noise aside).
  while (digits < 4 && Math.abs(Math.round(step * 100 * 10 ** digits) - step * 100 * 10 ** digits) > 1e-9) digits++;
  // The tolerance keeps a bound that is already a multiple (0 above all) where it is, despite float noise.
  return { low: Math.floor(low / step + 1e-9) * step, high: Math.ceil(high / step - 1e-9) * step, step, digits };
}

const ROW = 40;
const AXIS = 30;
/** Room left and right of the plot, in percent of the width, for the outer tick labels. */
const MARGIN = 6;

/** The chart of `metric`, or nothing when it has no non-control variation. */
export function intervalChart(metric: MetricResult, control: string, format: ResultsFormat): TemplateResult | typeof nothing {
  const rows = metric.variations.filter((v) => v.name !== control);
  if (!rows.length) return nothing;
  const axis = axisFor(rows.flatMap((v) => [...(v.ci ?? []), ...(typeof v.uplift === 'number' ? [v.uplift] : [])]));
  const x = (v: number): string => `${(MARGIN + ((v - axis.low) / (axis.high - axis.low)) * (100 - 2 * MARGIN)).toFixed(3)}%`;
  const ticks: number[] = [];
  for (let t = axis.low; t <= axis.high + axis.step / 2; t += axis.step) ticks.push(Math.abs(t) < axis.step / 1e6 ? 0 : t);
  const height = rows.length * ROW + AXIS;
  const bottom = rows.length * ROW;
  return html`<figure part="chart" class="chart">
    <figcaption>Uplift against ${control}, with 95% confidence intervals</figcaption>
    <svg role="img" aria-label=${summary(metric.name, control, rows, format)} width="100%" height=${height} class="chart-svg">
      ${ticks.map((t) => svg`<line class="grid" x1=${x(t)} x2=${x(t)} y1="0" y2=${bottom}></line>
        <text class="tick" x=${x(t)} y=${bottom + 20} text-anchor="middle">${format.tick(t, axis.digits)}</text>`)}
      <line class="axis" x1=${x(axis.low)} x2=${x(axis.high)} y1=${bottom} y2=${bottom}></line>
      <line class="zero" data-zero x1=${x(0)} x2=${x(0)} y1="0" y2=${bottom + 4}></line>
      ${rows.map((v, i) => row(v, i * ROW, x, format))}
    </svg>
  </figure>`;
}

function row(v: VariationStats, top: number, x: (v: number) => string, format: ResultsFormat): TemplateResult {
  const verdict = verdictOf(v.ci);
  const uplift = typeof v.uplift === 'number' ? v.uplift : null;
  const ci = v.ci ?? null;
  const label = uplift === null ? `${v.name}: not enough data` : ci ? `${v.name}: ${format.uplift(uplift)} (${format.interval(ci)})` : `${v.name}: ${format.uplift(uplift)}`;
  return svg`<g class=${`row ${verdict}`} data-variation=${v.name}>
    <text class="label" x=${`${MARGIN}%`} dx="6" y=${top + 14}>${label}</text>
    ${ci ? svg`<rect class="bar" x=${x(ci[0])} width=${`${Math.max(0.3, parseFloat(x(ci[1])) - parseFloat(x(ci[0])))}%`} y=${top + 22} height="10" rx="3"></rect>` : nothing}
    ${uplift !== null ? svg`<circle class="point" cx=${x(uplift)} cy=${top + 27} r="6"></circle>` : nothing}
  </g>`;
}

/** The chart in one sentence per variation, for the SVG's accessible name. */
function summary(metric: string, control: string, rows: VariationStats[], format: ResultsFormat): string {
  const parts = rows.map((v) => {
    if (typeof v.uplift !== 'number') return `${v.name}: not enough data`;
    if (!v.ci) return `${v.name}: uplift ${format.uplift(v.uplift)}, no interval yet`;
    return `${v.name}: uplift ${format.uplift(v.uplift)}, 95% interval ${format.interval(v.ci)}; ${VERDICT_WORDS[verdictOf(v.ci)]}`;
  });
  return `Uplift of ${metric} against ${control}. ${parts.join('. ')}.`;
}
