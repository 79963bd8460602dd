// The date graph of one metric: each challenger's cumulative effect at the end of each day (the relative uplift, or
// the absolute difference in the metric's units) as a line, its interval as a band around it, against a zero line.
// The plot is a nested SVG whose viewBox is stretched to the width (its strokes do not scale); the labels, ticks and
// markers are in the outer SVG at percentages of its width, so their text keeps its size at 390 px as at 1200.
import { html, nothing, svg, type TemplateResult } from 'lit';
import type { MetricResult, SeriesPoint, VariationStats } from './results-answer.js';
import { axisFor } from './results-chart.js';
import { controlOf, CUT_NOTE, effectOf, type Effect, type EffectScale } from './results-effect.js';
import type { ResultsFormat } from './results-format.js';
import type { Reading } from './results-reading.js';

/** Outer SVG: the plot from TOP to TOP + PLOT, the dates under it. */
const TOP = 8;
const PLOT = 160;
const HEIGHT = TOP + PLOT + 28;
/** The plot's width in its own (stretched) units. */
const WIDTH = 1000;
/** Markers at every day up to this many days; beyond, at the last day only (a month of points still reads). */
const MARKED_DAYS = 31;
/** Date labels on the axis at most (five fit 390 px). */
const DATE_LABELS = 5;
/** One shape per line, so that no colour has to tell them apart (the legend shows the same). */
const SHAPES = ['M-4,0a4,4 0 1,0 8,0a4,4 0 1,0 -8,0', 'M-3.5,-3.5h7v7h-7z', 'M0,-5l5,5l-5,5l-5,-5z', 'M0,-5l4.5,8h-9z'];

interface Line {
  variation: string;
  /** Per point of the series, the challenger's effect that day (null: the metric or the variation was missing). */
  effects: (Effect | null)[];
}

/** Each challenger's effects per day, as `metric` stood at each point (cut at −100% as the table is). */
function linesOf(metric: MetricResult, series: readonly SeriesPoint[], control: string, scale: EffectScale): Line[] {
  const challengers = metric.variations.filter((v) => v.name !== control).map((v) => v.name);
  return challengers.map((variation) => ({
    variation,
    effects: series.map((p) => {
      const m = Array.isArray(p.metrics) ? p.metrics.find((x) => x.name === metric.name) : undefined;
      const v: VariationStats | undefined = m?.variations.find((x) => x.name === variation);
      return m && v ? effectOf(v, scale.difference, controlOf(m, control)) : null;
    }),
  }));
}

/** `M…L…` through the runs of consecutive known points; a gap (an unknown day) starts a new run. */
function linePath(ys: (number | null)[], x: (i: number) => number): string {
  let d = '';
  let open = false;
  ys.forEach((y, i) => {
    if (y === null) return void (open = false);
    d += `${open ? 'L' : 'M'}${x(i).toFixed(1)},${y.toFixed(1)}`;
    open = true;
  });
  return d;
}

/** The band: per run of days with an interval, the upper bounds forward and the lower ones back. */
function bandPath(cis: ([number, number] | null)[], x: (i: number) => number, y: (v: number) => number): string {
  const runs: number[][] = [];
  cis.forEach((ci, i) => {
    if (ci === null) return;
    const run = runs[runs.length - 1];
    if (run && run[run.length - 1] === i - 1) run.push(i);
    else runs.push([i]);
  });
  return runs.map((run) => {
    // A day on its own (the first day, or one between gaps) has no width to fill: its interval is drawn as a bar.
    if (run.length === 1) {
      const i = run[0]!;
      const [low, high] = [y(cis[i]![0]), y(cis[i]![1])];
      return `M${(x(i) - 6).toFixed(1)},${high.toFixed(1)}H${(x(i) + 6).toFixed(1)}V${low.toFixed(1)}H${(x(i) - 6).toFixed(1)}Z`;
    }
    const upper = run.map((i) => `${x(i).toFixed(1)},${y(cis[i]![1]).toFixed(1)}`);
    const lower = [...run].reverse().map((i) => `${x(i).toFixed(1)},${y(cis[i]![0]).toFixed(1)}`);
    return `M${upper.join('L')}L${lower.join('L')}Z`;
  }).join('');
}

/** The days labelled on the axis: the first, the last and evenly between, at most DATE_LABELS. */
function labelled(count: number): number[] {
  const k = Math.min(count, DATE_LABELS);
  if (k === 1) return [0];
  return [...new Set(Array.from({ length: k }, (_, j) => Math.round((j * (count - 1)) / (k - 1))))];
}

/**
 * The date graph of `metric`, or nothing without a point or a challenger: a figure whose caption says what is drawn,
 * an SVG `role="img"` named by the last day's effects, a legend, and the points in a visually hidden table.
 */
export function seriesChart(
  metric: MetricResult, series: readonly SeriesPoint[] | undefined, control: string, scale: EffectScale, reading: Reading,
  f: ResultsFormat,
): TemplateResult | typeof nothing {
  if (!series?.length) return nothing;
  const lines = linesOf(metric, series, control, scale);
  if (!lines.length) return nothing;
  const known = lines.flatMap((l) => l.effects.flatMap((e) => [...(e?.ci ?? []), ...(e && e.value !== null ? [e.value] : [])]));
  // No day has an effect to draw (the metric is not in the series, or never had enough units): no empty graph.
  if (!known.length) return nothing;
  const axis = axisFor(known, scale.factor);
  const ticks: number[] = [];
  for (let t = axis.low; t <= axis.high + axis.step / 2; t += axis.step) ticks.push(Math.abs(t) < axis.step / 1e6 ? 0 : t);
  const n = series.length;
  const px = (i: number): number => (n === 1 ? WIDTH / 2 : (i * WIDTH) / (n - 1));
  const py = (v: number): number => (PLOT * (axis.high - v)) / (axis.high - axis.low);
  const pct = (i: number): string => `${((px(i) / WIDTH) * 100).toFixed(3)}%`;
  const cut = lines.some((l) => l.effects.some((e) => e?.cut));
  const what = scale.difference === 'relative' ? 'uplift' : `difference${scale.unit ? ' in percentage points' : ''}`;
  const marked = (i: number): boolean => n <= MARKED_DAYS || i === n - 1;
  return html`<figure part="series" class="series">
    <figcaption>Cumulative ${what} against ${control} by day (UTC), with ${reading.level} ${reading.intervals}${
      reading.intervals.startsWith('fixed-horizon') ? ' · fixed-horizon intervals hold at the planned end, not every day' : ''}${
      metric.inverse ? ' · lower is better' : ''}</figcaption>
    <svg role="img" aria-label=${summary(metric, series, lines, control, scale, reading, f)} width="100%" height=${HEIGHT} class="series-svg">
      ${ticks.map((t) => svg`<line class="grid" x1="0" x2="100%" y1=${TOP + py(t)} y2=${TOP + py(t)}></line>
        <text class="tick" x="-6" y=${TOP + py(t) + 4} text-anchor="end">${scale.tick(t, axis.digits)}</text>`)}
      <line class="zero" data-zero x1="0" x2="100%" y1=${TOP + py(0)} y2=${TOP + py(0)}></line>
      <svg x="0" y=${TOP} width="100%" height=${PLOT} viewBox=${`0 0 ${WIDTH} ${PLOT}`} preserveAspectRatio="none" overflow="visible">
        ${lines.map((l, i) => svg`<g class=${`series-line s${i % SHAPES.length}`} data-variation=${l.variation}>
          <path class="band" d=${bandPath(l.effects.map((e) => e?.ci ?? null), px, py)}></path>
          <path class="line" data-variation=${l.variation} d=${linePath(l.effects.map((e) => (e && e.value !== null ? py(e.value) : null)), px)}></path>
        </g>`)}
      </svg>
      ${lines.map((l, i) => svg`<g class=${`series-marks s${i % SHAPES.length}`}>${l.effects.map((e, day) => (e && e.value !== null && marked(day)
        ? svg`<svg class="marker" x=${pct(day)} y=${TOP + py(e.value)} width="1" height="1" overflow="visible"><path d=${SHAPES[i % SHAPES.length]}></path></svg>`
        : nothing))}</g>`)}
      ${labelled(n).map((i) => svg`<text class="tick" x=${pct(i)} y=${TOP + PLOT + 20}
        text-anchor=${n === 1 ? 'middle' : i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle'}>${f.day(series[i]!.date)}</text>`)}
    </svg>
    <ul class="legend">
      ${lines.map((l, i) => html`<li><svg class=${`swatch s${i % SHAPES.length}`} width="28" height="12" aria-hidden="true">
        <line x1="0" x2="28" y1="6" y2="6"></line><svg x="14" y="6" overflow="visible"><path d=${SHAPES[i % SHAPES.length]}></path></svg></svg>${l.variation}</li>`)}
      <li><span class="swatch band-swatch" aria-hidden="true"></span>${reading.level} interval</li>
    </ul>
    ${cut ? html`<p class="note series-note">${CUT_NOTE}</p>` : nothing}
    <!-- Hidden by its container: a table's box ignores the width and overflow that hide it, and widens the page. -->
    <div class="sr-only"><table class="points">
      <caption>${metric.name}: cumulative ${what} against ${control} by day, with ${reading.level} intervals</caption>
      <thead><tr><th scope="col">Date</th><th scope="col">Units</th>${lines.map((l) => html`<th scope="col">${l.variation}</th>`)}</tr></thead>
      <tbody>${series.map((p, day) => html`<tr>
        <th scope="row">${f.date(p.date)}</th>
        <td>${typeof p.units === 'number' ? f.units(p.units) : ''}</td>
        ${lines.map((l) => html`<td>${said(l.effects[day] ?? null, scale)}</td>`)}
      </tr>`)}</tbody>
    </table></div>
  </figure>`;
}

/** One effect in words: `+12.0% (−1.0% to +25.0%)`, or why there is none. */
function said(e: Effect | null, scale: EffectScale): string {
  if (!e || e.value === null) return 'not enough data';
  return e.ci ? `${scale.value(e.value)} (${scale.interval(e.ci)})` : scale.value(e.value);
}

/** The chart in a sentence: what it draws, over which days, and where each line ends. */
function summary(
  metric: MetricResult, series: readonly SeriesPoint[], lines: Line[], control: string, scale: EffectScale, reading: Reading,
  f: ResultsFormat,
): string {
  const first = series[0]!;
  const last = series[series.length - 1]!;
  const days = series.length === 1 ? `on ${f.date(first.date)}` : `from ${f.date(first.date)} to ${f.date(last.date)} (${series.length} days)`;
  const unit = scale.unit ? ' in percentage points (pp)' : '';
  const ends = lines.map((l) => `${l.variation} ${said(l.effects[series.length - 1] ?? null, scale).replace('(', `(${reading.level} interval `)}`);
  return `Cumulative ${scale.name.toLowerCase()} of ${metric.name} against ${control}${unit} by day, ${days}. On ${f.date(last.date)}: ${ends.join('; ')}.`;
}
