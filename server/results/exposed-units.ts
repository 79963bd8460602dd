import { op, type SqlProgram } from '../storage/sql-program.js';
import { num, str } from '../storage/sql-values.js';
import type { PersonOf } from './person-graph.js';

/** The units of one experiment's analysis: people, each with the variation it saw and its first exposure. */
export interface ExposedUnits {
  /** Person → unit index. */
  index: Map<string, number>;
  /** Per unit: the index of its variation in the experience's variations. */
  variation: Int32Array;
  /** Per unit: its first exposure (epoch ms), when the service answered the Choose request that served it. */
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
  // The pair as exposure-programs.ts writes it: `["<name>",`.
  const needle = `[${JSON.stringify(experience)},`;
  const contains = dialect === 'postgres' ? 'strpos(choices, ?) > 0' : 'instr(choices, ?) > 0';
  const { rows } = yield op(
    `SELECT profile_id, device, ts, choices FROM exposures WHERE project = ? AND ${contains} ORDER BY ts, id`,
    project, needle,
  );
  const people = new Map<string, Exposure>();
  for (const row of rows) {
    const variation = variationIn(str(row.choices), experience);
    if (variation === null) continue;
    const person = personOf(str(row.profile_id));
    const seen = people.get(person);
    if (seen === undefined) {
      people.set(person, { variation, first: num(row.ts), device: row.device == null ? null : str(row.device), multiple: false });
    } else if (seen.variation !== variation) {
      seen.multiple = true;
    }
  }
  const known = new Map(variations.map((name, i) => [name, i]));
  const index = new Map<string, number>();
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

/** The variation an exposure row's choices give `experience`, or null (absent, or served without a variation). */
function variationIn(choices: string, experience: string): string | null {
  const pairs = JSON.parse(choices) as [string, string | null][];
  for (const [name, variation] of pairs) if (name === experience) return variation;
  return null;
}
