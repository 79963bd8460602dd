import type { MetricConfig } from '../config/config-types.js';
import { capAt, capValueOf } from '../results/capping.js';
import { EVENT_TIME } from '../results/event-columns.js';
import type { ExposedUnits } from '../results/exposed-units.js';
import { metricValuesProgram, type MetricValues } from '../results/metric-values.js';
import { personGraphProgram } from '../results/person-graph.js';
import { plainStatistic, ratioStatistic, summarize, summarizePairs, type UnitKind } from '../results/unit-statistics.js';
import { throughIndex, valuesOp, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';

const DAY_MS = 86_400_000;

/** How far back the baseline reads: two weeks, so that every weekday counts twice. */
export const BASELINE_DAYS = 14;

/** The metric a plan is for, with the metrics a ratio divides (its numerator and denominator, in that order). */
export interface PlannedMetric {
  metric: MetricConfig;
  parts: MetricConfig[];
}

/** The baseline as read: the window, its people, and the metric's mean and unit variance over them. */
export interface BaselineFigures {
  /** The window [from, to] in epoch ms. */
  from: number;
  to: number;
  /** The window's length in days: from the later of `from` and its first event received, at least 1. */
  days: number;
  units: number;
  /** Null without units, and for a ratio whose denominator sums to 0. */
  mean: number | null;
  variance: number | null;
}

const kindOf = (metric: MetricConfig): UnitKind => (metric.type === 'binomial' ? 'proportion' : 'mean');

/** A metric's values per unit, capped as results cap them (the cap computed over these units). */
function capped(v: MetricValues): Float64Array {
  const at = v.metric.cap === undefined ? null : capValueOf(v.metric.cap, v.post);
  return at === null ? v.post : capAt(v.post, at);
}

/**
 * The people active in the project's last BASELINE_DAYS (a person: a profile with every profile linked to it by identify
 * or alias, as results count units), each from their first event in the window as if exposed then, and the metric's
 * value per person from that moment on, counted exactly as results count a unit's (metric-values.ts: the same events,
 * `where`, `windowHours`, `distinct` and cap; no CUPED). Reads the window's events once for their profiles, the people
 * of those profiles, and the events the metric names.
 * @example const figures = yield* baselineProgram('acme/shop', { metric: purchase, parts: [] }, Date.now());
 */
export function* baselineProgram(project: string, planned: PlannedMetric, now: number): SqlProgram<BaselineFigures> {
  const from = now - BASELINE_DAYS * DAY_MS;
  // Through the index by name and receipt time: its entries say the receipt time, so only the window's rows are read.
  const { values: rows = [] } = yield throughIndex(valuesOp(
    `SELECT profile_id, MIN(${EVENT_TIME}), MIN(received_at) FROM events WHERE project = ? AND received_at >= ? GROUP BY profile_id`,
    project, from,
  ), 'events', 'events_name');
  const personOf = yield* personGraphProgram(project, rows.map(([profileId]) => str(profileId)));
  const people = new Map<unknown, { first: number; profile: string }>();
  let received = Infinity;
  for (const [profileId, time, receivedAt] of rows) {
    const profile = str(profileId);
    const person = personOf(profile);
    const first = num(time);
    const seen = people.get(person);
    if (seen === undefined || first < seen.first) people.set(person, { first, profile });
    received = Math.min(received, num(receivedAt));
  }
  const days = Math.max(1, (now - Math.max(from, received)) / DAY_MS);
  const count = people.size;
  const figures = { from, to: now, days, units: count };
  if (count === 0) return { ...figures, mean: null, variance: null };
  const units = unitsOf(people);
  const read = planned.metric.type === 'ratio' ? planned.parts : [planned.metric];
  // CUPED is left out: the plan is for the raw comparison (docs/planning.md says what CUPED would save).
  const values = yield* metricValuesProgram(project, read.map((m) => ({ ...m, cuped: false })), units, personOf);
  if (planned.metric.type !== 'ratio') {
    const s = plainStatistic(kindOf(planned.metric), summarize(capped(values[0] as MetricValues)));
    return { ...figures, mean: s.mean, variance: s.variance };
  }
  const [numerator, denominator] = values as [MetricValues, MetricValues];
  const pair = summarizePairs(capped(numerator), capped(denominator));
  if (pair.y.mean === 0) return { ...figures, mean: null, variance: null };
  const s = ratioStatistic([kindOf(numerator.metric), kindOf(denominator.metric)], pair);
  return { ...figures, mean: s.mean, variance: s.variance };
}

/** The people as results' units (metric-values.ts reads them): each first exposed at its first event, on the service's clock. */
function unitsOf(people: ReadonlyMap<unknown, { first: number; profile: string }>): ExposedUnits {
  const count = people.size;
  const index = new Map<unknown, number>();
  const first = new Float64Array(count);
  const profile: string[] = [];
  let earliest = Infinity;
  for (const [person, p] of people) {
    first[index.size] = p.first;
    index.set(person, index.size);
    profile.push(p.profile);
    earliest = Math.min(earliest, p.first);
  }
  const none = (): null[] => new Array<null>(count).fill(null);
  return {
    index, variation: new Int32Array(count), first, deviceFirst: new Float64Array(count).fill(Number.NaN),
    session: none(), device: none(), profile, context: none(), multipleExposures: 0, earliest,
  };
}
