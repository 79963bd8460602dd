import { evalCondition, type Condition } from '../config/condition.js';
import type { MetricConfig } from '../config/config-types.js';
import { valuesOp, type SqlProgram, type SqlValue } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { DATA, EVENT_TIME, parseData } from './event-columns.js';
import type { ExposedUnits } from './exposed-units.js';
import type { PersonOf } from './person-graph.js';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const DEFAULT_CUPED_DAYS = 14;
/**
 * How much earlier than its exposure's time on the service's clock an event of the same device may be received: that
 * exposure's batch's travel time, which its corrected time includes. A batch arrives within the service's request
 * timeout (2 minutes) of being sent, and a retry carries its own `sentAt`.
 */
const MAX_TRAVEL_MS = 5 * 60_000;

/** One metric's value per unit (units without events are 0), and for CUPED the same before first exposure. */
export interface MetricValues {
  metric: MetricConfig;
  post: Float64Array;
  /** Present when the metric asks for CUPED. */
  pre: Float64Array | null;
  /** A `distinct` count's values already counted, per unit and period (seenBefore). */
  seen?: Set<string>;
}

/**
 * The largest magnitude a `sum` metric's field counts with: beyond it a value is no price or quantity but a bad
 * event, and its square (the variance) would overflow to Infinity and blank the experiment's statistics.
 */
export const MAX_METRIC_VALUE = 1e15;

/**
 * What one matching event adds to a unit's value: for a `sum`, its field (or the product of its fields, `price*quantity`),
 * 0 when one is not a JSON number or the result is beyond ±1e15.
 */
function contribution(metric: MetricConfig, data: Record<string, unknown> | undefined): number {
  if (metric.type !== 'sum') return 1;
  let product = 1;
  for (const field of (metric.value as string).split('*')) {
    const value = data?.[field];
    if (typeof value !== 'number') return 0;
    product *= value;
  }
  return Math.abs(product) <= MAX_METRIC_VALUE ? product : 0;
}

/**
 * Whether a `distinct` count has already counted this event's value for the unit (in the same period: before or after
 * first exposure); an event without the field counts as itself.
 */
function seenBefore(v: MetricValues, unit: number, after: boolean, data: Record<string, unknown> | undefined): boolean {
  const value = data?.[v.metric.distinct as string];
  if (value === undefined || value === null) return false;
  const key = `${unit}:${after ? '+' : '-'}:${JSON.stringify(value)}`;
  if (v.seen?.has(key)) return true;
  (v.seen ??= new Set()).add(key);
  return false;
}

function add(values: Float64Array, unit: number, metric: MetricConfig, amount: number): void {
  if (metric.type === 'binomial') values[unit] = 1;
  else values[unit] = (values[unit] as number) + amount;
}

/**
 * Reads the events the metrics count and turns them into values per unit: a unit's events are those of its person
 * (personOf) from its first exposure on (within `windowHours` when the metric says), and, for CUPED, those in the
 * `cupedDays` before it. An event of the device and session that reported the first exposure is placed against it by
 * that device's own clock (the timestamps as sent: their order and gaps exactly); any other event by its time on the
 * service's clock (each batch's skew corrected with its `sentAt`), the only clock two devices share. Events are read once for all metrics, by name; `data` is parsed only for metrics with
 * `where` or `value`.
 */
export function* metricValuesProgram(
  project: string, metrics: readonly MetricConfig[], units: ExposedUnits, personOf: PersonOf,
): SqlProgram<MetricValues[]> {
  const count = units.variation.length;
  const values: MetricValues[] = metrics.map((metric) => ({
    metric, post: new Float64Array(count), pre: metric.cuped ? new Float64Array(count) : null,
  }));
  if (count === 0 || metrics.length === 0) return values;
  const byEvent = new Map<string, MetricValues[]>();
  for (const v of values) {
    // Every metric here counts events: a ratio is read as its two parts.
    const event = v.metric.event as string;
    const list = byEvent.get(event);
    if (list) list.push(v);
    else byEvent.set(event, [v]);
  }
  const needsData = metrics.some((m) => m.where !== undefined || m.type === 'sum' || m.distinct !== undefined);
  // An event counts only at or after a first exposure (or within a CUPED window before one), and it happened no
  // later than it was received: older receipts cannot count.
  const lookBack = Math.max(0, ...metrics.map((m) => (m.cuped ? (m.cupedDays ?? DEFAULT_CUPED_DAYS) * DAY_MS : 0)));
  let earliest = Infinity;
  for (const first of units.first) earliest = Math.min(earliest, first);
  const since = earliest - lookBack - MAX_TRAVEL_MS;
  const names = [...byEvent.keys()];
  const params: SqlValue[] = [project, since, ...names];
  const { values: rows = [] } = yield valuesOp(
    `SELECT profile_id, session_id, name, ts, ${EVENT_TIME}${needsData ? `, ${DATA}` : ''} FROM events
     WHERE project = ? AND received_at >= ? AND name IN (${names.map(() => '?').join(', ')})`,
    ...params,
  );
  for (const row of rows) countEvent(row as EventRow, byEvent, units, personOf);
  return values;
}

/**
 * A row of the read above: profile_id, session_id, name, the event's time on its device's clock and on the service's,
 * and, when a metric needs it, data.
 */
type EventRow = [unknown, unknown, unknown, unknown, unknown, unknown?];

/** How long after the unit's first exposure the event happened (negative: before), on the clock both share. */
function sinceExposure(row: EventRow, units: ExposedUnits, unit: number): number {
  const [profileId, sessionId, , deviceTime, time] = row;
  const sameDevice = units.session[unit] === str(sessionId) && units.profile[unit] === str(profileId);
  return sameDevice ? num(deviceTime) - (units.deviceFirst[unit] as number) : num(time) - (units.first[unit] as number);
}

function countEvent(row: EventRow, byEvent: Map<string, MetricValues[]>, units: ExposedUnits, personOf: PersonOf): void {
  const [profileId, , name, , , rawData] = row;
  const unit = units.index.get(personOf(str(profileId)));
  if (unit === undefined) return;
  const since = sinceExposure(row, units, unit);
  let data: Record<string, unknown> | undefined;
  let parsed = false;
  for (const v of byEvent.get(str(name)) ?? []) {
    const { metric } = v;
    const after = since >= 0 && (metric.windowHours === undefined || since < metric.windowHours * HOUR_MS);
    const before = v.pre !== null && since < 0 && since >= -(metric.cupedDays ?? DEFAULT_CUPED_DAYS) * DAY_MS;
    if (!after && !before) continue;
    if (!parsed && (metric.where !== undefined || metric.type === 'sum' || metric.distinct !== undefined)) {
      data = parseData(rawData);
      parsed = true;
    }
    if (metric.where !== undefined && !evalCondition(data ?? {}, metric.where as Condition)) continue;
    if (metric.distinct !== undefined && seenBefore(v, unit, after, data)) continue;
    const amount = contribution(metric, data);
    add(after ? v.post : (v.pre as Float64Array), unit, metric, amount);
  }
}
