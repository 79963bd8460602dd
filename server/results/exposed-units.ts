import { EXPOSURE_EVENT } from '../../wire/event.js';
import { valuesOp, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import { DATA, EVENT_TIME, parseData } from './event-columns.js';
import type { PersonOf } from './person-graph.js';

/** Past every exposure row's id: a reported exposure comes after the rows among equal times. */
const REPORTED_IDS = 2 ** 52;

/** The units of one experiment's analysis: people, each with the variation it saw and its first exposure. */
export interface ExposedUnits {
  /** Person → unit index. */
  index: Map<unknown, number>;
  /** Per unit: the index of its variation in the experience's variations. */
  variation: Int32Array;
  /**
   * Per unit: its first exposure (epoch ms), when the service answered the Choose request that served it, or, for an
   * exposure reported when shown, when it was shown.
   */
  first: Float64Array;
  /** Per unit: the device of its first exposure, when the request said. */
  device: (string | null)[];
  /** People exposed to two variations or more: left out of the units, counted here. */
  multipleExposures: number;
}

export interface UnitWindow {
  /** Units whose first exposure is at or after this time (epoch ms)… */
  from?: number;
  /** …and before this one. */
  to?: number;
}

interface Exposure {
  variation: string;
  first: number;
  id: number;
  device: string | null;
  multiple: boolean;
}

/**
 * Reads the exposures of `experience` and makes them units: one per person (personOf), from its earliest exposure;
 * a person exposed to two variations is left out and counted. Variations no longer in `variations` are left out too.
 * Exposure rows hold every choice of one Choose answer as JSON pairs; only rows naming the experience are read
 * (a substring test in SQL) and parsed.
 * @example const units = yield* exposedUnitsProgram('sqlite', 'acme/shop', 'hero', ['control', 'bold'], personOf, {});
 */
export function* exposedUnitsProgram(
  dialect: 'sqlite' | 'postgres', project: string, experience: string, variations: readonly string[],
  personOf: PersonOf, window: UnitWindow,
): SqlProgram<ExposedUnits> {
  // The pair as exposure-programs.ts writes it: `["<name>",`. Every row of the project is read in table order:
  // SQLite would otherwise walk the (project, ts) index, one random table page per row.
  const needle = `[${JSON.stringify(experience)},`;
  const where = dialect === 'postgres'
    ? 'FROM exposures WHERE project = ? AND strpos(choices, ?) > 0'
    : 'FROM exposures NOT INDEXED WHERE project = ? AND instr(choices, ?) > 0';
  const { values: rows = [] } = yield valuesOp(`SELECT id, profile_id, device, ts, choices ${where}`, project, needle);
  const people = new Map<unknown, Exposure>();
  const add = (person: unknown, exposure: Exposure): void => {
    const seen = people.get(person);
    if (seen === undefined) {
      people.set(person, exposure);
      return;
    }
    const multiple = seen.multiple || seen.variation !== exposure.variation;
    // The earliest exposure (the first written, among equal times) gives the unit its time and device.
    if (exposure.first < seen.first || (exposure.first === seen.first && exposure.id < seen.id)) people.set(person, exposure);
    people.get(person)!.multiple = multiple;
  };
  for (const [id, profileId, device, ts, choices] of rows) {
    const variation = variationIn(str(choices), needle, experience);
    if (variation === null) continue;
    add(personOf(str(profileId)), { variation, first: num(ts), id: num(id), device: device == null ? null : str(device), multiple: false });
  }
  // Exposures reported when shown (`Experiment Viewed` events: `<svc-experience>`, or a caller that deferred them),
  // at the time they were shown. Ordered after the Choose answers' rows among equal times.
  const { values: reported = [] } = yield valuesOp(
    `SELECT profile_id, ${EVENT_TIME[dialect]}, ${DATA[dialect]} FROM events WHERE project = ? AND name = ?`,
    project, EXPOSURE_EVENT,
  );
  reported.forEach(([profileId, time, rawData], i) => {
    const data = parseData(rawData);
    if (data?.experience !== experience || typeof data.variation !== 'string') return;
    const device = data.device === 'mobile' || data.device === 'desktop' ? data.device : null;
    add(personOf(str(profileId)), { variation: data.variation, first: num(time), id: REPORTED_IDS + i, device, multiple: false });
  });
  const known = new Map(variations.map((name, i) => [name, i]));
  const index = new Map<unknown, number>();
  const variation: number[] = [];
  const first: number[] = [];
  const device: (string | null)[] = [];
  let multipleExposures = 0;
  for (const [person, exposure] of people) {
    if (window.from !== undefined && exposure.first < window.from) continue;
    if (window.to !== undefined && exposure.first >= window.to) continue;
    if (exposure.multiple) {
      multipleExposures++;
      continue;
    }
    const at = known.get(exposure.variation);
    if (at === undefined) continue;
    index.set(person, variation.length);
    variation.push(at);
    first.push(exposure.first);
    device.push(exposure.device);
  }
  return { index, variation: Int32Array.from(variation), first: Float64Array.from(first), device, multipleExposures };
}

/**
 * The variation an exposure row's choices give `experience` (its pair starts at `needle`), or null (absent, or served
 * without a variation). The variation is parsed alone, between the needle and the pair's end; a name with a `]` in
 * it does not parse so and takes the whole array's parse.
 */
function variationIn(choices: string, needle: string, experience: string): string | null {
  const at = choices.indexOf(needle);
  if (at < 0) return null;
  const start = at + needle.length;
  try {
    return JSON.parse(choices.slice(start, choices.indexOf(']', start))) as string | null;
  } catch {
    const pairs = JSON.parse(choices) as [string, string | null][];
    for (const [name, variation] of pairs) if (name === experience) return variation;
    return null;
  }
}
