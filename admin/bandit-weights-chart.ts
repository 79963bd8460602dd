// A bandit's weights over time as stacked steps: from the phase's start (its weights, equal for a bandit) to each
// reweight and on to now, each arm a band whose height is its share. The bands are drawn in an SVG stretched to the
// width (their edges do not scale); the axes' labels are HTML placed at percentages, so their text keeps its size at
// 390 px as at 1280. The table beside it says the same in words.
import { html, svg, type TemplateResult } from 'lit';
import type { ResultsReweight } from '../wire/results-answer.js';

/** The plot's box in its own (stretched) units. */
const WIDTH = 1000;
const HEIGHT = 200;
/** Time labels on the axis at most (four fit 390 px). */
const TIME_LABELS = 4;
/** Colours distinct from their neighbours in a stack, each with a 3:1 contrast on white (WCAG's non-text contrast). */
export const ARM_COLOURS = ['#0969da', '#bc4c00', '#8250df', '#1b7c83', '#bf3989', '#4d7c0f', '#9a6700', '#57606a'];

/** One stretch of time with the same weights. */
export interface WeightsStep {
  from: number;
  to: number;
  weights: Record<string, number>;
}

/**
 * The steps from `start` (with `initial` weights) through each reweight to `end`; a reweight at or before the start
 * begins the first step, and one after the end is left out.
 */
export function weightSteps(start: number, end: number, initial: Record<string, number>, reweights: readonly ResultsReweight[]): WeightsStep[] {
  const steps: WeightsStep[] = [];
  let from = start;
  let weights = initial;
  for (const r of reweights) {
    const at = Date.parse(r.at);
    if (at > end) break;
    if (at > from) steps.push({ from, to: at, weights });
    from = Math.max(from, at);
    weights = r.weights;
  }
  if (end > from || !steps.length) steps.push({ from, to: Math.max(end, from), weights });
  return steps;
}

/** Arm `k`'s band: per step, a rectangle between the arms below it and itself (y down from 100 %). */
function bandPath(steps: readonly WeightsStep[], arms: readonly string[], k: number, x: (t: number) => number): string {
  return steps.map((s) => {
    const below = arms.slice(0, k).reduce((sum, a) => sum + (s.weights[a] ?? 0), 0);
    const own = s.weights[arms[k]!] ?? 0;
    const top = HEIGHT * (1 - (below + own) / 100);
    const bottom = HEIGHT * (1 - below / 100);
    return `M${x(s.from).toFixed(2)},${bottom.toFixed(2)}V${top.toFixed(2)}H${x(s.to).toFixed(2)}V${bottom.toFixed(2)}Z`;
  }).join('');
}

/** The times labelled under the plot: its start, its end and evenly between, at most TIME_LABELS. */
function labelledTimes(start: number, end: number): number[] {
  if (end <= start) return [start];
  return Array.from({ length: TIME_LABELS }, (_, j) => start + ((end - start) * j) / (TIME_LABELS - 1));
}

/**
 * The chart: the stacked bands in an SVG named by `summary` (role `img`), the share axis, the time axis (times when it
 * spans under two days, dates beyond) and a legend of each arm's colour, name and weight now.
 */
export function weightsChart(steps: readonly WeightsStep[], arms: readonly string[], summary: string, format: { time(t: number): string; date(t: number): string }): TemplateResult {
  const start = steps[0]!.from;
  const end = steps[steps.length - 1]!.to;
  const span = Math.max(end - start, 1);
  const x = (t: number): number => ((t - start) / span) * WIDTH;
  const short = end - start < 2 * 86_400_000;
  const now = steps[steps.length - 1]!.weights;
  const times = labelledTimes(start, end);
  return html`<div class="chart">
    <div class="plot">
      <svg role="img" aria-label=${summary} viewBox=${`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" width="100%" height="100%">
        ${arms.map((arm, k) => svg`<path class="band" data-arm=${arm} fill=${ARM_COLOURS[k % ARM_COLOURS.length]!} d=${bandPath(steps, arms, k, x)}></path>`)}
        ${[25, 50, 75].map((p) => svg`<line class="grid" x1="0" x2=${WIDTH} y1=${HEIGHT * (1 - p / 100)} y2=${HEIGHT * (1 - p / 100)}></line>`)}
        ${steps.slice(1).map((s) => svg`<line class="reweight" x1=${x(s.from)} x2=${x(s.from)} y1="0" y2=${HEIGHT}></line>`)}
      </svg>
      <div class="y-axis" aria-hidden="true">${[100, 75, 50, 25, 0].map((p) => html`<span style=${`top: ${100 - p}%`}>${p}%</span>`)}</div>
    </div>
    <div class="x-axis" aria-hidden="true">${times.map((t, j) => html`<span class=${j === 0 ? 'first' : j === times.length - 1 ? 'last' : ''}
      style=${`left: ${((t - start) / span) * 100}%`}>${short ? format.time(t) : format.date(t)}</span>`)}</div>
    <ul class="legend" aria-label="Arms and their weights now">
      ${arms.map((arm, k) => html`<li data-arm=${arm}><span class="swatch" style=${`background: ${ARM_COLOURS[k % ARM_COLOURS.length]}`}></span>
        <span class="arm-name">${arm}</span> <span class="muted">${formatShare(now[arm])}</span></li>`)}
    </ul>
  </div>`;
}

/** A weight as people read it: `33.33%`, `—` when the arm had none then. */
export function formatShare(weight: number | undefined): string {
  return weight === undefined ? '—' : `${Math.round(weight * 100) / 100}%`;
}
