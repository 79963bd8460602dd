// The metric form as data: what the inputs hold (text, as typed), the checks made before anything is sent (required
// fields, numbers that are not numbers, a `where` that is not a JSON object) and the item a valid form saves. Every
// other rule (ranges, which metric a ratio may divide) is the service's: its `invalid_config` message names the field.
import { parseObject } from './experience-form.js';
import { metricItemOf, type Metric, type MetricItem, type MetricType } from './metric.js';

export type CapChoice = 'none' | 'absolute' | 'percentile';

export interface MetricDraft {
  name: string;
  type: MetricType;
  event: string;
  /** `sum`: the data field added up. */
  value: string;
  /** JSON; empty: every event of that name. */
  where: string;
  /** Empty: no window. */
  windowHours: string;
  inverse: boolean;
  cap: CapChoice;
  capValue: string;
  ignoreZeros: boolean;
  cuped: boolean;
  /** Empty: the service's default. */
  cupedDays: string;
  numerator: string;
  denominator: string;
}

export type MetricField = keyof MetricDraft;

/** Field → what is wrong with it. */
export type MetricDraftErrors = Partial<Record<MetricField, string>>;

/** Whether a type counts events itself (every type but a ratio, which divides two metrics that do). */
export const countsEvents = (type: MetricType): boolean => type !== 'ratio';

/** Whether a type can be capped: a binomial value is 0 or 1, a ratio's parts are capped on their own. */
export const cappable = (type: MetricType): boolean => type === 'count' || type === 'sum';

/** The longest name the service takes; names travel in `?metrics=a,b`, hence no comma either. */
export const MAX_NAME = 64;

const text = (n: number | undefined): string => (n === undefined ? '' : String(n));

/** The form of `m`, or of a new binomial metric when there is none. */
export function metricDraftOf(m?: Metric): MetricDraft {
  return {
    name: m?.name ?? '',
    type: m?.type ?? 'binomial',
    event: m?.event ?? '',
    value: m?.value ?? '',
    where: m?.where ? JSON.stringify(m.where, null, 2) : '',
    windowHours: text(m?.windowHours),
    inverse: m?.inverse === true,
    cap: m?.cap?.type ?? 'none',
    capValue: text(m?.cap?.value),
    ignoreZeros: m?.cap?.ignoreZeros === true,
    cuped: m?.cuped === true,
    cupedDays: text(m?.cupedDays),
    numerator: m?.numerator ?? '',
    denominator: m?.denominator ?? '',
  };
}

/** A number as typed: the number, or `undefined` for text that is not one (empty text included). */
function numberOf(typed: string): number | undefined {
  if (!typed.trim()) return undefined;
  const n = Number(typed);
  return Number.isFinite(n) ? n : undefined;
}

/**
 * What must be fixed before the form can be sent, for the fields its type shows; empty when nothing. `creating`: the
 * name is typed (an edited metric keeps its name).
 */
export function metricDraftErrors(d: MetricDraft, creating: boolean): MetricDraftErrors {
  const errors: MetricDraftErrors = {};
  const name = d.name.trim();
  if (creating && !name) errors.name = 'Enter a name.';
  else if (creating && (name.length > MAX_NAME || name.includes(','))) errors.name = `At most ${MAX_NAME} characters, without a comma.`;
  const number = (field: MetricField, typed: string, what: string, required: boolean): void => {
    if (!typed.trim()) {
      if (required) errors[field] = `Enter ${what}.`;
    } else if (numberOf(typed) === undefined) errors[field] = `Enter ${what} as a number.`;
  };
  if (countsEvents(d.type)) {
    if (!d.event.trim()) errors.event = 'Enter the name of the event to count.';
    if (d.type === 'sum' && !d.value.trim()) errors.value = 'Enter the data field to add up, e.g. price.';
    const where = parseObject(d.where, true);
    if (typeof where === 'string') errors.where = where;
    number('windowHours', d.windowHours, 'a number of hours', false);
    if (cappable(d.type) && d.cap !== 'none') {
      number('capValue', d.capValue, d.cap === 'absolute' ? 'the largest value a unit counts with' : 'a quantile, e.g. 0.99', true);
    }
  } else {
    if (!d.numerator) errors.numerator = 'Choose the metric divided.';
    if (!d.denominator) errors.denominator = 'Choose the metric it is divided by.';
  }
  if (d.cuped) number('cupedDays', d.cupedDays, 'a number of days', false);
  return errors;
}

/** Every field the form edits: what an edited item had of them is replaced by what the form holds. */
const EDITED = ['type', 'event', 'value', 'where', 'windowHours', 'inverse', 'cap', 'cuped', 'cupedDays', 'numerator', 'denominator'];

/**
 * The item a form saves: `base` (the metric as loaded, when editing) with the form's fields written over it, so what
 * the form does not show is kept. Only the fields of the draft's type are written (what another type held stays in
 * the draft, not in the item), and a setting at the service's default (not inverse, no CUPED) is left out, as the
 * service's file format does. Call only when `metricDraftErrors` is empty.
 *
 * @example metricDraftItem({ ...metricDraftOf(), name: 'signup', event: 'Signed up' }) // binomial, event 'Signed up'
 */
export function metricDraftItem(d: MetricDraft, base?: Metric): MetricItem {
  const item: MetricItem = base ? metricItemOf(base) : { name: d.name.trim(), type: d.type };
  for (const field of EDITED) delete item[field];
  item.type = d.type;
  if (countsEvents(d.type)) {
    item.event = d.event.trim();
    if (d.type === 'sum') item.value = d.value.trim();
    const where = parseObject(d.where, true);
    if (where && typeof where === 'object') item.where = where;
    const windowHours = numberOf(d.windowHours);
    if (windowHours !== undefined) item.windowHours = windowHours;
    if (cappable(d.type) && d.cap !== 'none') {
      item.cap = { type: d.cap, value: Number(d.capValue), ...(d.cap === 'percentile' && d.ignoreZeros ? { ignoreZeros: true } : {}) };
    }
  } else {
    item.numerator = d.numerator;
    item.denominator = d.denominator;
  }
  if (d.inverse) item.inverse = true;
  if (d.cuped) {
    item.cuped = true;
    const days = numberOf(d.cupedDays);
    if (days !== undefined) item.cupedDays = days;
  }
  return item;
}
