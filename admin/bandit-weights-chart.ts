// A bandit's weights over time as stacked steps: from the phase's start (its weights, equal for a bandit) to each
// reweight and on to now, each arm a band whose height is its share. As in <svc-results>' date graph, the bands are a
// nested SVG whose viewBox is stretched to the width (their edges do not scale) and the labels are in the outer SVG
// at percentages of its width, so their text keeps its size at 390 px as at 1280; nothing is placed by a style
// attribute, which the console's Content-Security-Policy refuses. The table beside it says the same in words.
import { html, svg, type TemplateResult } from 'lit';
import type { ResultsReweight } from '../wire/results-answer.js';

/** The outer SVG: the plot from TOP to TOP + PLOT, the times under it. */
const TOP = 8;
const PLOT = 180;
const HEIGHT = TOP + PLOT + 24;
/** The plot's width in its own (stretched) units. */
const WIDTH = 1000;
/** Time labels on the axis at most (three fit 390 px). */
const TIME_LABELS = 3;
/** Colours (the CSS classes a0…a7 of the bands and swatches) before they repeat. */
const ARM_COLOURS = 8;

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
    const top = PLOT * (1 - (below + own) / 100);
    const bottom = PLOT * (1 - below / 100);
    return `M${x(s.from).toFixed(2)},${bottom.toFixed(2)}V${top.toFixed(2)}H${x(s.to).toFixed(2)}V${bottom.toFixed(2)}Z`;
  }).join('');
}

/** The times labelled under the plot: its start, its end and evenly between, at most TIME_LABELS. */
function labelledTimes(start: number, end: number): number[] {
  if (end <= start) return [start];
  return Array.from({ length: TIME_LABELS }, (_, j) => start + ((end - start) * j) / (TIME_LABELS - 1));
}

/**
 * The chart: an SVG named by `summary` (role `img`) with the stacked bands, the share axis and the time axis (times
 * when it spans under two days, dates beyond); then a legend of each arm's colour, name and weight now.
 */
export function weightsChart(steps: readonly WeightsStep[], arms: readonly string[], summary: string, format: { time(t: number): string; date(t: number): string }): TemplateResult {
  const start = steps[0]!.from;
  const end = steps[steps.length - 1]!.to;
  const span = Math.max(end - start, 1);
  const x = (t: number): number => ((t - start) / span) * WIDTH;
  const pct = (t: number): string => `${(((t - start) / span) * 100).toFixed(3)}%`;
  const y = (share: number): number => TOP + PLOT * (1 - share / 100);
  const short = end - start < 2 * 86_400_000;
  const now = steps[steps.length - 1]!.weights;
  const times = labelledTimes(start, end);
  return html`<svg role="img" aria-label=${summary} width="100%" height=${HEIGHT} class="weights-svg">
      <svg x="0" y=${TOP} width="100%" height=${PLOT} viewBox=${`0 0 ${WIDTH} ${PLOT}`} preserveAspectRatio="none">
        ${arms.map((arm, k) => svg`<path class=${`band a${k % ARM_COLOURS}`} data-arm=${arm} d=${bandPath(steps, arms, k, x)}></path>`)}
        ${[25, 50, 75].map((p) => svg`<line class="grid" x1="0" x2=${WIDTH} y1=${PLOT * (1 - p / 100)} y2=${PLOT * (1 - p / 100)}></line>`)}
        ${steps.slice(1).map((s) => svg`<line class="reweight" x1=${x(s.from)} x2=${x(s.from)} y1="0" y2=${PLOT}></line>`)}
      </svg>
      <line class="axis" x1="0" x2="100%" y1=${TOP + PLOT} y2=${TOP + PLOT}></line>
      ${[0, 50, 100].map((p) => svg`<text class="tick" x="-6" y=${y(p) + 4} text-anchor="end">${p}%</text>`)}
      ${times.map((t, j) => svg`<text class="tick" x=${pct(t)} y=${TOP + PLOT + 18}
        text-anchor=${times.length === 1 ? 'start' : j === 0 ? 'start' : j === times.length - 1 ? 'end' : 'middle'}>${short ? format.time(t) : format.date(t)}</text>`)}
    </svg>
    <ul class="legend" aria-label="Arms and their weights now">
      ${arms.map((arm, k) => html`<li data-arm=${arm}><span class=${`swatch a${k % ARM_COLOURS}`}></span>
        <span class="arm-name">${arm}</span> <span class="muted">${formatShare(now[arm])}</span></li>`)}
    </ul>`;
}

/** A weight as people read it: `33.33%`, `—` when the arm had none then. */
export function formatShare(weight: number | undefined): string {
  return weight === undefined ? '—' : `${Math.round(weight * 100) / 100}%`;
}
