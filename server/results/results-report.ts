import type { VariationConfig } from '../config/config-types.js';
import type { MetricResult, ResultsAnswer, VariationStats, VariationUnits } from '../../src/results-answer.js';
import type { ExposedUnits } from './exposed-units.js';
import type { MetricValues } from './metric-values.js';
import {
  compare, cupedAdjust, moments, sampleRatioMismatch, type Moments,
} from './statistics.js';

// The answer of the results endpoint, built from units and their metric values. Numbers are exact (never rounded);
// a statistic that is undefined is null.

/** The answer of the results endpoint. */
export type ResultsReport = ResultsAnswer;

/** A device dimension value for units whose Choose request named no device. */
export const UNKNOWN_DEVICE = 'unknown';

/**
 * The report of one experiment: units per variation with the sample-ratio test against the current weights, and per
 * metric each variation's moments, the non-control ones compared with the control (the first variation).
 * `dimension: 'device'` adds the same per device of the units' first exposure.
 */
export function buildReport(
  experience: string, variations: readonly VariationConfig[], units: ExposedUnits, values: readonly MetricValues[],
  dimension?: 'device',
): ResultsReport {
  const all = Int32Array.from(units.variation.keys());
  const overall = section(variations, units, values, all);
  const report: ResultsReport = {
    experience,
    control: (variations[0] as VariationConfig).name,
    units: all.length,
    multipleExposures: units.multipleExposures,
    srm: sampleRatioMismatch(overall.variations.map((v) => v.units), variations.map((v) => v.weight)),
    variations: overall.variations,
    metrics: overall.metrics,
  };
  if (dimension === 'device') {
    const byDevice = new Map<string, number[]>();
    units.device.forEach((device, unit) => {
      const value = device ?? UNKNOWN_DEVICE;
      const list = byDevice.get(value);
      if (list) list.push(unit);
      else byDevice.set(value, [unit]);
    });
    report.dimensions = [...byDevice.keys()].sort().map((value) => {
      const members = Int32Array.from(byDevice.get(value) as number[]);
      return { name: 'device', value, units: members.length, ...section(variations, units, values, members) };
    });
  }
  return report;
}

/** Units per variation and metric results over the units `members`. */
function section(
  variations: readonly VariationConfig[], units: ExposedUnits, values: readonly MetricValues[], members: Int32Array,
): { variations: VariationUnits[]; metrics: MetricResult[] } {
  const groups = variations.map(() => [] as number[]);
  for (const unit of members) (groups[units.variation[unit] as number] as number[]).push(unit);
  const byVariation = groups.map((g) => Int32Array.from(g));
  return {
    variations: variations.map((v, i) => ({ name: v.name, weight: v.weight, units: (byVariation[i] as Int32Array).length })),
    metrics: values.map((v) => metricResult(variations, v, byVariation)),
  };
}

function pick(values: Float64Array, members: Int32Array): Float64Array {
  const out = new Float64Array(members.length);
  for (let i = 0; i < members.length; i++) out[i] = values[members[i] as number] as number;
  return out;
}

function metricResult(variations: readonly VariationConfig[], values: MetricValues, byVariation: Int32Array[]): MetricResult {
  const { metric } = values;
  const post = byVariation.map((members) => pick(values.post, members));
  const raw = post.map((v) => moments(metric.type, v));
  let stats: Moments[] = raw;
  let cupedApplied = false;
  if (values.pre !== null) {
    const pre = byVariation.map((members) => pick(values.pre as Float64Array, members));
    const { theta, adjusted } = cupedAdjust(pre, post);
    if (theta !== 0) {
      cupedApplied = true;
      // Adjusted values are no longer 0/1: their spread is the sample standard deviation whatever the metric's type.
      stats = adjusted.map((v, i) => ({ ...moments('sum', v), total: (raw[i] as Moments).total }));
    }
  }
  const control = stats[0] as Moments;
  return {
    name: metric.name,
    type: metric.type,
    cupedApplied,
    variations: variations.map((v, i) => {
      const own = stats[i] as Moments;
      const entry: VariationStats = { name: v.name, ...own };
      return i === 0 ? entry : { ...entry, ...compare(control, own) };
    }),
  };
}
